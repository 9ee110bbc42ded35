// Package directives finds the agent-facing rule files a team keeps in
// .directives/ folders at any level of a repository (the engine's
// directives, docs/directives.md), and holds what devlearn does with them: the
// cumulative walk-up discovery, the per-session record of what the agent
// was shown, the checklist comparison behind the Stop gate, the templates,
// the mention of new files in the nearest AGENTS.md, and the area a learned
// pitfall or invariant is routed to.
//
// Discovery runs on the hook path after every tool call, so this package
// imports nothing heavier than the standard library's file and JSON
// packages and devlearn's own small ones.
package directives

import (
	"fmt"
	"strings"
)

// DirName is the folder directive files live in, at any level.
const DirName = ".directives"

// GlobalDirName is the folder of $DEVLEARN_HOME holding the directives of
// every project (the files directly in it, no .directives/ level).
const GlobalDirName = "directives"

// Type is one of the engine's eight directive file names (docs/directives.md).
type Type struct {
	Name string
	// Core types are given to the agent in full when discovered; the
	// others are named, for the agent to read when its task needs them.
	Core  bool
	About string
}

// Types lists every directive type, core first, in the engine's order. A
// folder's files are always listed in this order.
var Types = []Type{
	{Name: "AGENTS.md", Core: true, About: "what an agent working here must know first"},
	{Name: "INVARIANTS.md", Core: true, About: "rules that always hold here"},
	{Name: "ARCHITECTURE.md", Core: true, About: "how this part is built, and why"},
	{Name: "TESTING.md", About: "how to test here"},
	{Name: "PITFALLS.md", About: "mistakes already made here, and their fixes"},
	{Name: "CONTRIBUTING.md", About: "how changes here are made and reviewed"},
	{Name: "TEMPLATE.md", About: "the shape new files here take"},
	{Name: "CHECKLIST.md", About: "what must be ticked before work here is done"},
}

// The names code refers to.
const (
	AgentsFile     = "AGENTS.md"
	InvariantsFile = "INVARIANTS.md"
	PitfallsFile   = "PITFALLS.md"
	ChecklistFile  = "CHECKLIST.md"
)

// TypeOf returns the type of a file name, and false for a name that is not
// a directive type.
func TypeOf(name string) (Type, bool) {
	for _, t := range Types {
		if t.Name == name {
			return t, true
		}
	}
	return Type{}, false
}

func typeRank(name string) int {
	for i, t := range Types {
		if t.Name == name {
			return i
		}
	}
	return len(Types)
}

// TypeNames lists the names of every type, in order.
func TypeNames() []string {
	out := make([]string, len(Types))
	for i, t := range Types {
		out[i] = t.Name
	}
	return out
}

// Filtered lists the names of the types a skill may declare (the engine's directives:
// "skill-filtered, loaded when skill declares them"), in order.
func Filtered() []string {
	var out []string
	for _, t := range Types {
		if !t.Core {
			out = append(out, t.Name)
		}
	}
	return out
}

// CheckDeclared checks a name a skill declares: a filtered type, spelt as
// the engine spells it. The error says what to write instead.
func CheckDeclared(name string) error {
	allowed := strings.Join(Filtered(), ", ")
	t, ok := TypeOf(name)
	switch {
	case ok && t.Core:
		return fmt.Errorf("%s is a core type, always given in full: declare only %s", name, allowed)
	case ok:
		return nil
	}
	for _, t := range Types {
		if !t.Core && (strings.EqualFold(name, t.Name) || strings.EqualFold(name+".md", t.Name)) {
			return fmt.Errorf("%q is not a directive type: write %s", name, t.Name)
		}
	}
	return fmt.Errorf("%q is not a directive type a skill can declare: one of %s", name, allowed)
}

// Loaded decides how the agent is given a discovered file: in full
// (true) for a core type, and for a filtered type the current stage's
// skill declares; by name (false) otherwise. The hooks and 'directives
// discover' both ask it, so they never disagree.
func Loaded(f File, declared []string) bool {
	if f.Core {
		return true
	}
	for _, d := range declared {
		if d == f.Type {
			return true
		}
	}
	return false
}
