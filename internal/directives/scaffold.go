package directives

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/templates"
)

// Template returns the template of a directive type.
func Template(typ string) ([]byte, error) {
	if _, ok := TypeOf(typ); !ok {
		return nil, fmt.Errorf("%q is not a directive type (types: %s)", typ, strings.Join(TypeNames(), ", "))
	}
	return fs.ReadFile(templates.Directives, "directives/"+typ)
}

// Scaffold is what `directives init` writes in a folder: the templates of
// the types asked for, except where a file is already there, and the
// mentions of the new files in the nearest AGENTS.md.
type Scaffold struct {
	Dir      string            `json:"dir"` // the .directives/ folder, relative to the root
	Created  []string          `json:"created"`
	Kept     []string          `json:"kept"` // already there: never overwritten
	Mentions []Mention         `json:"mentions"`
	Files    map[string][]byte `json:"-"` // path -> content, the new files and the edited AGENTS.md files
}

// PlanScaffold plans the templates of types (all when empty) in the
// .directives/ folder of level (relative to root, "." for the root). A file
// there, a person's or a symbolic link, is kept as it is.
func PlanScaffold(root, level string, types []string) (*Scaffold, error) {
	if len(types) == 0 {
		types = TypeNames()
	}
	for _, t := range types {
		if _, ok := TypeOf(t); !ok {
			return nil, fmt.Errorf("%q is not a directive type (types: %s)", t, strings.Join(TypeNames(), ", "))
		}
	}
	dir := LevelFile(level, "")
	dir = strings.TrimSuffix(dir, "/")
	s := &Scaffold{Dir: dir, Created: []string{}, Kept: []string{}, Mentions: []Mention{}, Files: map[string][]byte{}}
	for _, t := range TypeNames() {
		if !slices.Contains(types, t) {
			continue
		}
		rel := LevelFile(level, t)
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			s.Kept = append(s.Kept, rel)
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		data, err := Template(t)
		if err != nil {
			return nil, err
		}
		s.Files[rel] = data
		s.Created = append(s.Created, rel)
	}
	ms, err := Mentions(root, s.Created, s.Files)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		s.Files[m.Path] = m.Data
		s.Mentions = append(s.Mentions, m)
	}
	return s, nil
}
