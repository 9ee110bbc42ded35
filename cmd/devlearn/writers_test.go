package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestEveryWriterInHistory holds 'devlearn history' to "every change
// devlearn made": it finds, in the code, every trigger a change can be
// recorded under (each evolve.Trigger{Command: ...} literal: every write
// into a project goes through evolve.Writer, which takes one), and
// requires testdata/script/history_writers.txtar to run that command and
// see it in history. A new writing command fails here until the script
// runs it.
//
// A Command that is not a string literal names its values in a
// "//devlearn:triggers "a" "b"" comment on the line above or the same
// line; one without that comment fails the test.
func TestEveryWriterInHistory(t *testing.T) {
	inCode := triggersInCode(t, "../../internal")
	if len(inCode) < 10 {
		t.Fatalf("found only %d triggers in the code: the scan is broken", len(inCode))
	}
	ar, err := txtar.ParseFile("../../testdata/script/history_writers.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(fileNamed(ar, "want-triggers.txt"))), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	for trig, where := range inCode {
		if !slices.Contains(lines, trig) {
			t.Errorf("%s records changes as %q, but history_writers.txtar never runs it: add it to the script and to want-triggers.txt", where, trig)
		}
	}
	for _, l := range lines {
		if _, ok := inCode[l]; !ok {
			t.Errorf("want-triggers.txt lists %q, which no evolve.Trigger in the code records", l)
		}
	}
}

func fileNamed(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// triggersInCode maps every trigger command found under dir to where.
func triggersInCode(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		directives := map[int][]string{} // line -> values
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if rest, ok := strings.CutPrefix(c.Text, "//devlearn:triggers "); ok {
					for _, q := range quoted.FindAllString(rest, -1) {
						v, _ := strconv.Unquote(q)
						line := fset.Position(c.Pos()).Line
						directives[line] = append(directives[line], v)
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isTrigger(lit.Type, f.Name.Name) {
				return true
			}
			pos := fset.Position(lit.Pos())
			where := pos.Filename + ":" + strconv.Itoa(pos.Line)
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok || ident(kv.Key) != "Command" {
					continue
				}
				if bl, ok := kv.Value.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					v, _ := strconv.Unquote(bl.Value)
					out[v] = where
					continue
				}
				vals := append(directives[pos.Line], directives[pos.Line-1]...)
				if len(vals) == 0 {
					t.Errorf("%s: evolve.Trigger's Command is not a string literal: name its values in a //devlearn:triggers comment above it", where)
				}
				for _, v := range vals {
					out[v] = where
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isTrigger(typ ast.Expr, pkg string) bool {
	switch x := typ.(type) {
	case *ast.SelectorExpr:
		return ident(x.X) == "evolve" && x.Sel.Name == "Trigger"
	case *ast.Ident:
		return pkg == "evolve" && x.Name == "Trigger"
	}
	return false
}

func ident(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
