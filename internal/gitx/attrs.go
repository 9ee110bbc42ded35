package gitx

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// filtered returns the paths that git would not store or check out as they
// are: a filter (Git LFS, git-crypt), a working-tree encoding, ident
// expansion or CRLF line endings. go-git applies none of these, so a merge
// touching them is refused rather than done wrong.
func filtered(s storer.EncodedObjectStorer, common string, trees []*object.Tree, paths []string) []string {
	var stack []gitattributes.MatchAttribute
	if b, err := os.ReadFile(filepath.Join(common, "info", "attributes")); err == nil {
		if as, err := gitattributes.ReadAttributes(bytes.NewReader(b), nil, true); err == nil {
			stack = append(stack, as...)
		}
	}
	seen := map[string]bool{}
	for _, t := range trees {
		for _, p := range paths {
			dir := path.Dir(p)
			for {
				key := t.Hash.String() + ":" + dir
				if !seen[key] {
					seen[key] = true
					stack = append(stack, treeAttributes(s, t, dir)...)
				}
				if dir == "." {
					break
				}
				dir = path.Dir(dir)
			}
		}
	}
	if len(stack) == 0 {
		return nil
	}
	m := gitattributes.NewMatcher(stack)
	var out []string
	for _, p := range paths {
		res, _ := m.Match(strings.Split(p, "/"), []string{"filter", "working-tree-encoding", "ident", "eol"})
		bad := false
		for name, a := range res {
			switch name {
			case "filter", "working-tree-encoding":
				bad = a.IsValueSet()
			case "ident":
				bad = a.IsSet()
			case "eol":
				bad = a.IsValueSet() && a.Value() == "crlf"
			}
			if bad {
				break
			}
		}
		if bad {
			out = append(out, p)
		}
	}
	return out
}

// treeAttributes reads the .gitattributes of folder dir in t, if any.
func treeAttributes(s storer.EncodedObjectStorer, t *object.Tree, dir string) []gitattributes.MatchAttribute {
	name := ".gitattributes"
	var domain []string
	if dir != "." {
		name = dir + "/.gitattributes"
		domain = strings.Split(dir, "/")
	}
	e, err := treeEntryAt(t, name)
	if err != nil || e.absent() {
		return nil
	}
	data, err := readBlob(s, e.Hash)
	if err != nil {
		return nil
	}
	as, err := gitattributes.ReadAttributes(bytes.NewReader(data), domain, dir == ".")
	if err != nil {
		return nil
	}
	return as
}
