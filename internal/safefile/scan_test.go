package safefile

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// writers are the standard library's calls that write, create, move or
// remove a file by its path, following whatever links the path holds.
var writers = map[string]map[string]bool{
	"os": {
		"OpenFile": true, "Create": true, "WriteFile": true, "Rename": true,
		"Remove": true, "RemoveAll": true, "Mkdir": true, "MkdirAll": true,
		"CreateTemp": true, "MkdirTemp": true, "Symlink": true, "Link": true,
		"Truncate": true, "Chmod": true, "Chown": true, "Lchown": true, "Chtimes": true,
		"OpenRoot": true, "CopyFS": true,
	},
	"io/ioutil":              {"WriteFile": true, "TempFile": true, "TempDir": true},
	"github.com/gofrs/flock": {"New": true},
}

// allowed are the only other places that may call them, and why.
var allowed = map[string]string{
	// Locks are opened read-only and never written; they live in the
	// per-clone state and $DEVLEARN_HOME/locks, which no repository can
	// commit, and the lock library opens them by name.
	"internal/jsonl/lock.go": "lock files",
	// Built only with the devlearn_crash tag, for the crash tests.
	"internal/crashpoint/crashpoint_crash.go": "test build",
}

// Every file devlearn writes goes through this package: the module's
// source (tests aside) is read, and any other call of a writing function
// of the standard library fails the test, naming the call. A new writer
// cannot forget the check of links.
func TestNoOtherPackageWritesFilesItself(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	fset := token.NewFileSet()
	seen := 0
	for _, top := range []string{"cmd", "internal", "templates"} {
		filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			// internal/eval measures devlearn (make eval): it builds scratch
			// projects in temporary folders and writes reports where a
			// developer tells it; devlearn itself never runs it.
			if strings.HasPrefix(rel, "internal/safefile/") || strings.HasPrefix(rel, "internal/eval/") || allowed[rel] != "" {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			seen++
			names := map[string]string{} // local name → import path
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				name := p[strings.LastIndex(p, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				names[name] = p
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				if writers[names[x.Name]][sel.Sel.Name] {
					bad = append(bad, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), names[x.Name], sel.Sel.Name))
				}
				return true
			})
			return nil
		})
	}
	if seen < 100 {
		t.Fatalf("read %d files: the scan is not looking at the module", seen)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Fatalf("these write files without safefile (a link in the path would be followed); use safefile or jsonl:\n%s", strings.Join(bad, "\n"))
	}
	for rel := range allowed {
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			t.Errorf("allowed file %s is gone: take it off the list", rel)
		}
	}
}
