package knowledge

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/devlearn/devlearn/internal/repopath"
)

// Glob is a file trigger ready to match: the doublestar pattern in the
// form paths are compared in (slashed, lower case: file systems on
// Windows and macOS ignore case, and a lesson learned on one fires on the
// other), and a literal part every matching path must contain, checked
// first because a substring test costs a fraction of a full match.
type Glob struct {
	Pattern string
	Literal string
	// Shown is the pattern as written, for explanations.
	Shown string
	// Derived: read from the lesson's text rather than written as a
	// trigger (explanations say so).
	Derived bool
	// AtRequest: a file a learned failure's text names, whose area is
	// the command that failed. The call passed it; reading or editing it
	// runs nothing that fails, so it is evidence only where a request
	// names it (the agent is about to run the command on it).
	AtRequest bool
}

// compileGlob prepares a pattern, written relative to the project root
// with either kind of slash. An absolute pattern (a path in another clone
// or on another machine) matches a project path that its own path ends
// with: "/home/alice/shop/internal/x.go" matches "internal/x.go".
func compileGlob(pattern string) Glob {
	g := Glob{Pattern: repopath.Fold(pattern), Shown: pattern}
	if strings.ContainsAny(g.Pattern, "{") {
		return g // alternatives: no single literal is required
	}
	best := ""
	for _, part := range strings.FieldsFunc(g.Pattern, func(r rune) bool { return strings.ContainsRune("*?[]", r) }) {
		if strings.Contains(part, "]") {
			continue
		}
		if len(part) > len(best) {
			best = part
		}
	}
	// A class "[...]" was split on its brackets above; its inside is not
	// literal. Only keep the literal when the pattern has no class at all.
	if strings.ContainsAny(g.Pattern, "[]") {
		best = ""
	}
	if repopath.IsAbs(g.Pattern) {
		// A tail may start anywhere in it: only its last segment is sure.
		best = best[strings.LastIndexByte(best, '/')+1:]
	}
	g.Literal = strings.Trim(best, "/")
	return g
}

// Match reports whether path matches; path is in the form Fold gives.
func (g Glob) Match(path string) bool {
	if g.Literal != "" && !strings.Contains(path, g.Literal) {
		return false
	}
	if doublestar.MatchUnvalidated(g.Pattern, path) {
		return true
	}
	if repopath.IsAbs(path) || !repopath.IsAbs(g.Pattern) {
		return false
	}
	// An absolute pattern: does a tail of it, starting at a whole
	// segment, match the project path?
	for i := 0; i < len(g.Pattern); i++ {
		if g.Pattern[i] != '/' {
			continue
		}
		tail := g.Pattern[i+1:]
		if tail == "" || tail[0] == '*' {
			break // "**/x" would match far more than the lesson's file
		}
		if doublestar.MatchUnvalidated(tail, path) {
			return true
		}
	}
	return false
}

// MatchName reports whether a bare file name, as a request names it
// ("fix client.ts"), is the file the glob's last segment names.
func (g Glob) MatchName(name string) bool {
	last := g.Pattern[strings.LastIndexByte(g.Pattern, '/')+1:]
	if last == "" || strings.ContainsAny(last, "*?[{") {
		return false
	}
	return last == name
}

// MatchNamed reports whether a path a request names is the glob's file:
// its name alone ("layout.tsx"), or a path whose folders, as far as both
// go, are the glob's. A request that names another folder's file of the
// same name (`@bmad/…/create-architecture/workflow.md`) names another
// file: every workflow of a project is a workflow.md.
func (g Glob) MatchNamed(path string) bool {
	path = strings.TrimPrefix(strings.TrimPrefix(path, "@"), "./")
	ps, gs := strings.Split(path, "/"), strings.Split(g.Pattern, "/")
	if !g.MatchName(ps[len(ps)-1]) {
		return false
	}
	for i, j := len(ps)-2, len(gs)-2; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if strings.ContainsAny(gs[j], "*?[{") {
			return true
		}
		if ps[i] != gs[j] {
			return false
		}
	}
	return true
}

// Broad reports whether the glob names neither a file nor a folder, only
// an ending anywhere under a tree ("**/*.go", "internal/**/*.go"):
// matching it says little about what a call is for. "db/migrations/**"
// and "**/module5/*.go" name a folder, "**/*_test.go" a kind of file.
func (g Glob) Broad() bool {
	i := strings.LastIndexByte(g.Pattern, '/')
	last := g.Pattern[i+1:]
	if !strings.ContainsAny(last, "*?") {
		return false
	}
	if dot := strings.IndexByte(last, '.'); dot >= 0 {
		last = last[:dot]
	}
	if strings.Trim(last, "*?") != "" {
		return false
	}
	if i < 0 {
		return true
	}
	prev := g.Pattern[strings.LastIndexByte(g.Pattern[:i], '/')+1 : i]
	return prev == "**"
}
