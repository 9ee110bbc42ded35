package gitx

import (
	"bytes"
	"path"

	"github.com/epiclabs-io/diff3"
)

// FileMerger merges one file changed on both sides of a merge. base is nil
// when both sides added the file. clean false means the result is a
// conflict and must not be committed; merged is then ignored.
type FileMerger func(path string, base, ours, theirs []byte) (merged []byte, clean bool, err error)

// MergerRule chooses a FileMerger for the paths matching Pattern
// (path.Match syntax, slash-separated, relative to the repository root).
type MergerRule struct {
	Pattern string
	Merge   FileMerger
}

// Mergers is an ordered list of rules; the first match wins. A file no rule
// matches is merged line by line (diff3), and binary files conflict.
type Mergers []MergerRule

// Lookup returns the merger for p, if a rule matches it.
func (ms Mergers) Lookup(p string) (FileMerger, bool) {
	for _, r := range ms {
		if ok, _ := path.Match(r.Pattern, p); ok {
			return r.Merge, true
		}
	}
	return nil, false
}

// DefaultMergers are the rules for devlearn's own files, the same files
// and the same merges as the git merge driver (see GitAttributes and
// MergeFile): the event logs as sets of lines, the manifest by observation,
// decisions.md and pitfalls.md by entry. A side not in devlearn's format is
// merged as plain text; a conflict refuses the merge with its reason.
func DefaultMergers() Mergers {
	ms := make(Mergers, 0, len(fileRules))
	for _, r := range fileRules {
		ms = append(ms, MergerRule{Pattern: r.pattern, Merge: devlearnMerger})
	}
	return ms
}

func devlearnMerger(p string, base, ours, theirs []byte) ([]byte, bool, error) {
	out := MergeFile(p, base, ours, theirs)
	if !out.Clean {
		return nil, false, &ConflictError{Reason: out.Reason}
	}
	return out.Data, true, nil
}

// MergeText is the line-by-line three-way merge of text files, done by
// github.com/epiclabs-io/diff3 (Khanna-Kunal-Pierce diff3) over its Myers
// diff: its default Hunt-McIlroy LCS is quadratic on files with many equal
// lines (a 2,000-line file with blank lines and braces took 0.7 s against
// 1.7 ms). Lines keep their endings, so a change to the last line's newline
// is a change like any other. Changes to the same or to adjacent lines
// conflict, as they do with git; identical changes on both sides are taken
// once.
func MergeText(base, ours, theirs []byte) (merged []byte, clean bool) {
	blocks := diff3.Diff3MergeWithOptions(splitLines(ours), splitLines(base), splitLines(theirs), diff3.MergeOptions{Algorithm: diff3.DiffAlgorithmMyers, ExcludeFalseConflicts: true})
	out := make([]byte, 0, max(len(ours), len(theirs)))
	for _, b := range blocks {
		if b.Conflict != nil {
			return nil, false
		}
		for _, l := range b.Ok {
			out = append(out, l...)
		}
	}
	return out, true
}

// splitLines cuts data after each newline, keeping it.
func splitLines(data []byte) []string {
	lines := make([]string, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, string(data))
			break
		}
		lines = append(lines, string(data[:i+1]))
		data = data[i+1:]
	}
	return lines
}

// isBinary is git's test: a NUL byte in the first 8,000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}
