package gitx

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// DriverName names devlearn's merge driver in .gitattributes
// (merge=devlearn) and in git's config (merge.devlearn.*).
const DriverName = "devlearn"

// DriverDescription is merge.devlearn.name, shown by git.
const DriverDescription = "devlearn: merge the learned files in .memory by meaning"

// DriverCommand is merge.devlearn.driver. git replaces the placeholders
// (%O base, %A ours and the result, %B theirs, %P the path, %L the marker
// size; %P comes shell-quoted) and runs the line with sh. Where devlearn
// is not installed the line falls back to git's own line merge with
// conflict markers (in the diff3 style, which 'devlearn resolve' reads back
// exactly), so a teammate without devlearn gets a normal conflict, never a
// silent one-sided result (the registration rule, docs/architecture.md). exec passes the exit status on:
// 0 merged, anything else a conflict.
const DriverCommand = `command -v devlearn >/dev/null 2>&1 && exec devlearn merge-driver %O %A %B %P %L || exec git merge-file --diff3 --marker-size=%L -L ours -L base -L theirs %A %O %B`

// Setting is one git config key and its value.
type Setting struct{ Key, Value string }

// DriverSettings are the git config entries that register the driver in a
// clone (`git config KEY VALUE` for each, or DriverGitConfig as a file).
// git config is never committed, so a clone without them merges these
// files with git's built-in line merge: a normal conflict, never a silent
// one (the registration rule, docs/architecture.md).
func DriverSettings() []Setting {
	return []Setting{
		{Key: "merge." + DriverName + ".name", Value: DriverDescription},
		{Key: "merge." + DriverName + ".driver", Value: DriverCommand},
	}
}

// DriverGitConfig is DriverSettings in git's config file syntax, values
// quoted, for appending to .git/config or for an include.path file.
func DriverGitConfig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[merge %q]\n", DriverName)
	for _, s := range DriverSettings() {
		fmt.Fprintf(&b, "\t%s = %s\n", s.Key[strings.LastIndexByte(s.Key, '.')+1:], quoteConfig(s.Value))
	}
	return b.String()
}

// quoteConfig quotes a git config value: inside double quotes only the
// backslash and the double quote need escaping.
func quoteConfig(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// GitAttributes are the .gitattributes lines that route devlearn's files
// to the driver, one per rule of DefaultMergers, so git and devlearn merge
// choose the same files.
func GitAttributes() string {
	var b strings.Builder
	b.WriteString("# devlearn: merge the learned files by meaning (devlearn merge-driver)\n")
	for _, r := range fileRules {
		fmt.Fprintf(&b, "%s merge=%s\n", r.pattern, DriverName)
	}
	return b.String()
}

// fileRule is one kind of devlearn file and how it merges by meaning.
type fileRule struct {
	pattern string // path.Match syntax; valid in .gitattributes too
	merge   func(base, ours, theirs []byte) ([]byte, []Renumbering, error)
}

var fileRules = []fileRule{
	{".memory/*.jsonl", mergeLogRule}, // the observation log, and any other top-level log
	{project.TasksDir + "/*.jsonl", mergeLogRule},
	{project.EvolutionLog, mergeLogRule},
	{project.ManifestFile, func(b, o, t []byte) ([]byte, []Renumbering, error) {
		out, err := MergeManifest(b, o, t)
		return out, nil, err
	}},
	{project.DecisionsFile, func(b, o, t []byte) ([]byte, []Renumbering, error) {
		return MergeKnowledge(knowfile.Decisions, b, o, t)
	}},
	{project.PitfallsFile, func(b, o, t []byte) ([]byte, []Renumbering, error) {
		return MergeKnowledge(knowfile.Pitfalls, b, o, t)
	}},
}

func mergeLogRule(b, o, t []byte) ([]byte, []Renumbering, error) {
	out, err := MergeLog(b, o, t)
	return out, nil, err
}

func ruleFor(p string) *fileRule {
	for i := range fileRules {
		if ok, _ := path.Match(fileRules[i].pattern, p); ok {
			return &fileRules[i]
		}
	}
	return nil
}

// IsDevlearnFile reports whether p (relative to the repository root,
// slash-separated) is one of the files devlearn merges by meaning.
func IsDevlearnFile(p string) bool { return ruleFor(p) != nil }

// Outcome is the merge of one file changed on both sides.
type Outcome struct {
	Path string `json:"path"`
	// Data is the merged file. When Clean is false it is what a person
	// resolves: the text with conflict markers from Drive, nil from
	// MergeFile.
	Data  []byte `json:"-"`
	Clean bool   `json:"clean"`
	// ByMeaning is true when the file was merged as one of devlearn's
	// files; false when it was merged as plain text.
	ByMeaning bool `json:"by_meaning"`
	// Reason says why the file was merged as plain text, or why it
	// conflicts.
	Reason     string        `json:"reason,omitempty"`
	Renumbered []Renumbering `json:"renumbered,omitempty"`
}

// MergeFile merges one file changed on both sides of a merge, against
// their common ancestor (base is nil or empty when both sides added it).
// devlearn's own files (see GitAttributes) merge by meaning; when a side
// is not in devlearn's format, or for any other file, the merge is git's
// line merge, and a conflict stays a conflict. This is the one function
// behind both the git merge driver and devlearn merge, so both give the
// same bytes.
func MergeFile(p string, base, ours, theirs []byte) Outcome {
	out := Outcome{Path: p}
	rule := ruleFor(p)
	if rule == nil {
		out.Reason = "not one of devlearn's files"
		return mergePlain(out, base, ours, theirs)
	}
	data, ren, err := mergeByMeaning(rule, base, ours, theirs)
	if err == nil {
		for i := range ren {
			ren[i].Path = p
		}
		out.Data, out.Clean, out.ByMeaning, out.Renumbered = data, true, true, ren
		return out
	}
	out.Reason = err.Error()
	if ce, ok := err.(*ConflictError); ok && !ce.Format {
		out.ByMeaning = true
		return out
	}
	return mergePlain(out, base, ours, theirs)
}

// mergeByMeaning runs a rule, turning a panic (a bug) into a plain-text
// merge rather than a failed merge or a lost side.
func mergeByMeaning(rule *fileRule, base, ours, theirs []byte) (data []byte, ren []Renumbering, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, ren, err = nil, nil, &ConflictError{Reason: fmt.Sprintf("devlearn could not read it (internal error: %v)", r), Format: true}
		}
	}()
	return rule.merge(base, ours, theirs)
}

func mergePlain(out Outcome, base, ours, theirs []byte) Outcome {
	if isBinary(base) || isBinary(ours) || isBinary(theirs) {
		out.Reason = joinReason(out.Reason, "a binary file changed on both sides")
		return out
	}
	out.Data, out.Clean = MergeText(base, ours, theirs)
	if !out.Clean {
		out.Reason = joinReason(out.Reason, "both sides changed the same lines")
	}
	return out
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Drive is MergeFile for git's merge driver: a conflict leaves the text
// with conflict markers (diff3 style) for a person to resolve, or, for a
// binary file, ours, as git does.
func Drive(p string, base, ours, theirs []byte, markerSize int) Outcome {
	out := MergeFile(p, base, ours, theirs)
	if out.Clean {
		return out
	}
	if isBinary(base) || isBinary(ours) || isBinary(theirs) {
		out.Data = ours
		return out
	}
	// A conflict in the content may still merge cleanly as text (two
	// entries given one number in different places of the file): the
	// clean text is left, and the path stays a conflict.
	out.Data, _ = MergeTextMarked(base, ours, theirs, markerSize)
	return out
}

// DriverFiles are the arguments git gives the driver: three temporary
// files (the result goes into Ours), the path being merged and the
// conflict marker size.
type DriverFiles struct {
	Base, Ours, Theirs string
	Path               string
	MarkerSize         int
}

// RunDriver reads the three versions, merges them with Drive and writes the
// result over the Ours file. Relative names are taken from dir, where git
// runs the driver (the top of the worktree).
func RunDriver(dir string, f DriverFiles) (Outcome, error) {
	abs := func(name string) string {
		if filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(dir, name)
	}
	var data [3][]byte
	for i, name := range []string{f.Base, f.Ours, f.Theirs} {
		b, err := os.ReadFile(abs(name))
		if err != nil {
			return Outcome{Path: f.Path}, err
		}
		data[i] = b
	}
	p := strings.TrimPrefix(filepath.ToSlash(f.Path), "./")
	out := Drive(p, data[0], data[1], data[2], f.MarkerSize)
	// Git names the file; it lies in the worktree (or wherever git keeps
	// its temporary files): a link at it is refused all the same.
	ours := abs(f.Ours)
	if err := safefile.WriteFile(filepath.Dir(ours), ours, out.Data, 0o644); err != nil {
		return out, err
	}
	return out, nil
}
