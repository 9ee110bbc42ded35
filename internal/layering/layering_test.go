package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/devlearn/devlearn/"

// leaves are the helpers every layer may use: they import no devlearn
// package, so moving a text or JSON helper here never drags a domain in.
var leaves = []string{
	"internal/agent/codex/configtoml",
	"internal/binfield",
	"internal/contenthash",
	"internal/crashpoint",
	"internal/eval/figures",
	"internal/exitcode",
	"internal/extract/lang",
	"internal/inject",
	"internal/jsonpos",
	"internal/jsonscan",
	"internal/jsonstr",
	"internal/jsonstr/jsonstrtest",
	"internal/lesson",
	"internal/proc",
	"internal/redact",
	"internal/repopath",
	"internal/safefile",
	"internal/stamp",
	"internal/textcase",
	"internal/textcut",
	"internal/textkey",
	"internal/words",
	"internal/mdfront",
	"templates",
}

// commands are the layer that reads flags and prints: only an entry
// point (cmd/...) may import them.
var commands = []string{"internal/cli", "internal/hookcmd"}

// forbidden are edges between domain packages that once pulled a whole
// domain in for one helper, with where the helper lives now.
var forbidden = map[[2]string]string{
	{"internal/knowledge", "internal/render"}:   "the slug is internal/textkey's",
	{"internal/textsim", "internal/observe"}:    "pattern normalisation is internal/textkey's",
	{"internal/identity", "internal/observe"}:   "pattern normalisation is internal/textkey's",
	{"internal/classify", "internal/knowledge"}: "word matching is internal/words'",
	{"internal/trust", "internal/manifest"}:     "content hashes are internal/contenthash's",
	{"internal/knowledge", "internal/hook"}:     "the hook serves from knowledge, not the other way",
	{"internal/observe", "internal/knowledge"}:  "observations are below knowledge entries",
	{"internal/render", "internal/knowledge"}:   "render writes observations' artifacts; knowledge entries are served, not rendered",

	// The hooks serve from knowledge; the one writer of entries sits
	// above it and imports it, so reading never depends on writing.
	{"internal/knowledge", "internal/knowledge/entrystore"}: "entrystore writes entries and imports knowledge, not the other way",
	{"internal/knowledge", "internal/evolve"}:               "writing an entry through the audited writer is internal/knowledge/entrystore's",
}

// graph reads the import graph from the sources themselves, not from
// "go list": go test caches a result by the files the test opened, so a
// test that asked a subprocess would pass from its cache after an import
// changed.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	root := "../.."
	g := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		from := filepath.ToSlash(rel)
		if _, ok := g[from]; !ok {
			g[from] = nil
		}
		for _, im := range f.Imports {
			if to, ok := strings.CutPrefix(strings.Trim(im.Path.Value, `"`), module); ok && !slices.Contains(g[from], to) {
				g[from] = append(g[from], to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLayering(t *testing.T) {
	g := graph(t)
	if len(g) < 50 {
		t.Fatalf("go list found %d devlearn packages: the test is not looking at the module", len(g))
	}
	isLeaf := map[string]bool{}
	for _, p := range leaves {
		if _, ok := g[p]; !ok {
			t.Errorf("leaf %s is not a package any more: update the list", p)
		}
		isLeaf[p] = true
	}
	var froms []string
	for p := range g {
		froms = append(froms, p)
	}
	sort.Strings(froms)
	for _, from := range froms {
		for _, to := range g[from] {
			if isLeaf[from] {
				t.Errorf("%s is a leaf but imports %s: move the helper it needs into a leaf too", from, to)
			}
			for _, c := range commands {
				if to == c && !strings.HasPrefix(from, "cmd/") && !strings.HasPrefix(from, "internal/cli") && !strings.HasPrefix(from, "internal/hookcmd") {
					t.Errorf("%s imports the command layer %s: domain code never reads flags or prints", from, to)
				}
			}
			if why, ok := forbidden[[2]string{from, to}]; ok {
				t.Errorf("%s imports %s: %s", from, to, why)
			}
		}
	}
}

// rootContexts are the only places a context starts from nothing: the
// entry points, which cancel it at SIGINT or SIGTERM, and a hook
// environment built without one (tests, benchmarks).
var rootContexts = map[string]bool{
	"cmd/devlearn/main.go":                          true,
	"internal/hookcmd/hookcmd.go":                   true,
	"internal/eval/genuine/cmd/evalgenuine/main.go": true,
	"internal/eval/replay/cmd/replay/main.go":       true,
}

// TestOneRootContext keeps every command on the context a signal
// cancels: a context.Background() below the entry points is a lock wait,
// a gate or a model call that ^C would not stop.
func TestOneRootContext(t *testing.T) {
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if (strings.Contains(line, "context.Background()") || strings.Contains(line, "context.TODO()")) && !rootContexts[rel] {
				t.Errorf("%s:%d: a context from nothing; take the command's (env.Context(), cmd.Context() or the caller's ctx)", rel, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
