package directives

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// MentionHeading is the section of an AGENTS.md where devlearn names the
// directive files added beside or below it (the engine's end-of-session
// "AGENTS.md updates").
const MentionHeading = "## Directive files"

// Mention is an edit of an AGENTS.md that names new directive files.
type Mention struct {
	Path  string   `json:"path"`  // the AGENTS.md, relative to the root
	Files []string `json:"files"` // the files it now names
	Data  []byte   `json:"-"`     // its new content
}

// Split reads a directive path relative to the root ("pkg/.directives/
// TESTING.md") as its level ("pkg", "." for the root) and type; ok is false
// for any other path.
func Split(rel string) (level, typ string, ok bool) {
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if _, known := TypeOf(name); !known || path.Base(dir) != DirName {
		return "", "", false
	}
	level = path.Dir(dir)
	if dir == DirName {
		level = "."
	}
	return level, name, true
}

// LevelFile is the directive of type typ at level.
func LevelFile(level, typ string) string {
	if level == "." {
		return DirName + "/" + typ
	}
	return level + "/" + DirName + "/" + typ
}

// Mentions plans, for new directive files (relative to root), the edit of
// the nearest AGENTS.md that names each one: the AGENTS.md beside it, else
// the first one above. A new AGENTS.md is named in the one above its own
// level. pending are files about to be written (path -> content): they
// count as existing, and their content is the one edited. A file already
// named (its path appears in the AGENTS.md), or with no AGENTS.md at or
// above it, needs nothing. Only regular files are edited, never a
// symbolic link.
func Mentions(root string, files []string, pending map[string][]byte) ([]Mention, error) {
	var out []Mention
	byPath := map[string]int{}
	content := map[string]string{}
	for _, f := range files {
		level, typ, ok := Split(f)
		if !ok {
			continue
		}
		start := level
		if typ == AgentsFile {
			if level == "." {
				continue
			}
			start = parentLevel(level)
		}
		agents, text, err := nearestAgents(root, start, pending)
		if err != nil {
			return nil, err
		}
		if agents == "" {
			continue
		}
		if cur, ok := content[agents]; ok {
			text = cur
		}
		if strings.Contains(text, f) {
			continue
		}
		t, _ := TypeOf(typ)
		text = withMention(text, fmt.Sprintf("- `%s`: %s", f, t.About))
		content[agents] = text
		i, ok := byPath[agents]
		if !ok {
			i = len(out)
			byPath[agents] = i
			out = append(out, Mention{Path: agents})
		}
		out[i].Files = append(out[i].Files, f)
		out[i].Data = []byte(text)
	}
	return out, nil
}

// nearestAgents finds the first AGENTS.md from level up to the root.
func nearestAgents(root, level string, pending map[string][]byte) (string, string, error) {
	for l := level; ; l = parentLevel(l) {
		rel := LevelFile(l, AgentsFile)
		if data, ok := pending[rel]; ok {
			return rel, string(data), nil
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(abs)
		switch {
		case err == nil && fi.Mode().IsRegular():
			data, err := os.ReadFile(abs)
			if err != nil {
				return "", "", err
			}
			return rel, string(data), nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", "", err
		}
		if l == "." {
			return "", "", nil
		}
	}
}

// withMention adds an item to the MentionHeading section, creating the
// section at the end when there is none.
func withMention(text, item string) string {
	ls := strings.Split(strings.TrimRight(text, "\n"), "\n")
	at := slices.Index(ls, MentionHeading)
	if at < 0 {
		return strings.TrimRight(text, "\n") + "\n\n" + MentionHeading + "\n\n" + item + "\n"
	}
	end := len(ls)
	for i := at + 1; i < len(ls); i++ {
		if strings.HasPrefix(ls[i], "# ") || strings.HasPrefix(ls[i], "## ") {
			end = i
			break
		}
	}
	last := end
	for last > at+1 && strings.TrimSpace(ls[last-1]) == "" {
		last--
	}
	insert := []string{item}
	if last == at+1 {
		insert = []string{"", item} // a blank line under the heading
	}
	if end < len(ls) && last == end {
		insert = append(insert, "")
	}
	ls = slices.Insert(ls, last, insert...)
	return strings.Join(ls, "\n") + "\n"
}
