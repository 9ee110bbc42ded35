package reconcile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/devlearn/devlearn/internal/project"
)

// sparseFilter reports, for a project path, whether it lies outside the
// sparse checkout (its index entries are skip-worktree): such a path is
// missing from disk by design, not deleted by a person (the checkout states rule, docs/architecture.md).
func sparseFilter(p *project.Project) (func(rel string) bool, error) {
	none := func(string) bool { return false }
	if !sparseCheckout(p) {
		return none, nil
	}
	idx, err := readIndex(p)
	if err != nil || idx == nil {
		return none, err
	}
	skipped := map[string]bool{}
	var dirs []string
	for _, e := range idx.Entries {
		if e.SkipWorktree {
			skipped[e.Name] = true
			dirs = append(dirs, e.Name)
		}
	}
	return func(rel string) bool {
		rel = strings.TrimPrefix(filepath.ToSlash(rel), "./")
		if skipped[rel] {
			return true
		}
		if prefix := strings.TrimSuffix(rel, "/") + "/"; prefix != "/" {
			for _, d := range dirs {
				if strings.HasPrefix(d, prefix) {
					return true
				}
			}
		}
		return false
	}, nil
}

// readIndex decodes the worktree's git index; nil when there is none.
func readIndex(p *project.Project) (*index.Index, error) {
	data, err := os.ReadFile(filepath.Join(p.GitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// trackedNames is the set of base names of the files git tracks.
func trackedNames(p *project.Project) map[string]bool {
	out := map[string]bool{}
	idx, err := readIndex(p)
	if err != nil || idx == nil {
		return out
	}
	for _, e := range idx.Entries {
		out[path.Base(e.Name)] = true
	}
	return out
}

func sparseCheckout(p *project.Project) bool {
	for _, f := range []string{filepath.Join(p.CommonDir, "config"), filepath.Join(p.GitDir, "config.worktree")} {
		data, err := os.ReadFile(f)
		if err == nil && configTrue(data, "core", "sparsecheckout") {
			return true
		}
	}
	return false
}

// configTrue reports whether a git config file sets section.key (both
// lower case, no subsection) to true; the last setting wins, as in git.
// It reads only what a boolean needs: session start runs reconcile, and
// go-git's config decoder would link encoding/gob, whose initialisation
// alone costs every hook process a quarter of a millisecond.
func configTrue(data []byte, section, key string) bool {
	in, val := false, false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				in = false
				continue
			}
			name := strings.TrimSpace(line[1:end])
			in = strings.EqualFold(name, section) // `[core "x"]` is a subsection
			line = strings.TrimSpace(line[end+1:])
		}
		if !in || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, hasValue := strings.Cut(line, "=")
		if !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		if !hasValue {
			val = true // a key alone is true
			continue
		}
		if i := strings.IndexAny(v, "#;"); i >= 0 {
			v = v[:i]
		}
		switch strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`)) {
		case "true", "yes", "on", "1":
			val = true
		default:
			val = false
		}
	}
	return val
}
