package directives

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree writes files (path -> content) under a new root and returns it.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func paths(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func TestDiscoverOrderDedupIgnore(t *testing.T) {
	root := tree(t, map[string]string{
		".directives/CHECKLIST.md":         "- [ ] x",
		".directives/AGENTS.md":            "root",
		"a/.directives/AGENTS.md":          "a",
		"a/b/.directives/TESTING.md":       "b",
		"a/b/.directives/INVARIANTS.md":    "b",
		"a/b/c/file.go":                    "",
		"vendor/x/.directives/AGENTS.md":   "vendored",
		"vendor/x/y.go":                    "",
		"a/.directives/not-a-directive.md": "",
	})
	global := filepath.Join(t.TempDir(), "directives")
	os.MkdirAll(global, 0o755)
	os.WriteFile(filepath.Join(global, "AGENTS.md"), []byte("g"), 0o644)
	if err := os.Symlink(filepath.Join(root, "a", ".directives"), filepath.Join(root, "a", "b", "c", ".directives")); err != nil {
		t.Fatal(err)
	}
	res, err := Discover([]string{filepath.Join(root, "a/b/c/file.go"), filepath.Join(root, "vendor/x/y.go")},
		Options{Root: root, GlobalDir: global, Ignore: []string{"vendor"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(global, "AGENTS.md"),
		".directives/AGENTS.md", ".directives/CHECKLIST.md",
		"a/.directives/AGENTS.md",
		"a/b/.directives/INVARIANTS.md", "a/b/.directives/TESTING.md",
	}
	if got := paths(res.Files); !slices.Equal(got, want) {
		t.Fatalf("files:\n got %q\nwant %q", got, want)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "a/b/c/.directives/AGENTS.md" || !strings.Contains(res.Skipped[0].Reason, "the same file as a/.directives/AGENTS.md") {
		t.Fatalf("skipped: %+v", res.Skipped)
	}
	if !slices.Equal(res.Starts, []string{"a/b/c", "vendor/x"}) {
		t.Fatalf("starts %q", res.Starts)
	}
	if _, err := Discover([]string{t.TempDir()}, Options{Root: root}); err == nil {
		t.Fatal("a path outside the root was walked")
	}
}

// The memo lists a folder once while it is unchanged, and a file that
// appears in a folder listed before is new in the session.
func TestMemoAndNewFiles(t *testing.T) {
	root := tree(t, map[string]string{"p/.directives/AGENTS.md": "a", "p/x.go": ""})
	dir := filepath.Join(root, "p", ".directives")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old)
	m := &Memo{}
	opts := Options{Root: root, Memo: m}
	if _, err := Discover([]string{filepath.Join(root, "p/x.go")}, opts); err != nil {
		t.Fatal(err)
	}
	if len(m.records()) == 0 || !m.Levels["p"].Trusted {
		t.Fatalf("memo not kept: %+v", m.Levels)
	}
	// Unchanged: answered from the memo, nothing to record.
	if _, err := Discover([]string{filepath.Join(root, "p/x.go")}, opts); err != nil {
		t.Fatal(err)
	}
	if r := m.records(); len(r) != 0 {
		t.Fatalf("an unchanged folder was recorded again: %+v", r)
	}
	os.WriteFile(filepath.Join(dir, "TESTING.md"), []byte("t"), 0o644)
	res, err := Discover([]string{filepath.Join(root, "p/x.go")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.New, []string{"p/.directives/TESTING.md"}) || len(res.Files) != 2 {
		t.Fatalf("new %q, files %q", m.New, paths(res.Files))
	}
}

func TestCompare(t *testing.T) {
	file := "# C\n\n- [ ] one\n  * [x] two\n1. [ ] three\nnot a box [ ]\n"
	for _, tc := range []struct {
		name, got string
		ok        bool
		line      int
		unticked  []int
	}{
		{"all ticked", "# C\n\n- [x] one\n  * [x] two\n1. [X] three\nnot a box [ ]", true, 0, nil},
		{"crlf", "# C\r\n\r\n- [x] one\r\n  * [x] two\r\n1. [x] three\r\nnot a box [ ]\r\n", true, 0, nil},
		{"unticked", "# C\n\n- [x] one\n  * [x] two\n1. [ ] three\nnot a box [ ]\n", false, 0, []int{5}},
		{"words added", "# C\n\n- [x] one!\n  * [x] two\n1. [x] three\nnot a box [ ]\n", false, 3, nil},
		{"unticked a ticked one", "# C\n\n- [x] one\n  * [ ] two\n1. [x] three\nnot a box [ ]\n", false, 4, nil},
		{"ticked outside a list", "# C\n\n- [x] one\n  * [x] two\n1. [x] three\nnot a box [x]\n", false, 6, nil},
		{"a line dropped", "# C\n- [x] one\n  * [x] two\n1. [x] three\nnot a box [ ]\n", false, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(file, tc.got)
			if c.OK() != tc.ok || c.Boxes != 3 {
				t.Fatalf("ok %v boxes %d: %+v", c.OK(), c.Boxes, c)
			}
			if tc.line > 0 && (len(c.Problems) != 1 || c.Problems[0].Line != tc.line) {
				t.Fatalf("problems %+v, want line %d", c.Problems, tc.line)
			}
			if tc.unticked != nil && !slices.Equal(c.Unticked, tc.unticked) {
				t.Fatalf("unticked %v", c.Unticked)
			}
		})
	}
	if n := OpenBoxes(file); n != 2 {
		t.Fatalf("open boxes %d", n)
	}
}

func TestParseSubmission(t *testing.T) {
	root := tree(t, map[string]string{"p/.directives/CHECKLIST.md": "- [ ] a\n", "p/README.md": ""})
	abs := filepath.Join(root, "p/.directives/CHECKLIST.md")
	subs, err := ParseSubmission([]byte(`{"`+abs+`": "- [x] a\n"}`), root)
	if err != nil || len(subs) != 1 || subs[0].Abs != abs || subs[0].Content != "- [x] a\n" {
		t.Fatalf("%+v %v", subs, err)
	}
	for in, want := range map[string]string{
		"- [x] a":                           "stdin is not JSON",
		`{"~/x/CHECKLIST.md": "a"}`:         "not one under ~",
		`{"p/README.md": "a"}`:              "is not a CHECKLIST.md",
		`{"p/.directives/CHECKLIST.md": 3}`: "must be the checklist's markdown as one JSON string",
		`{}`:                                "the JSON object is empty",
		`{"q/CHECKLIST.md": "x"}`:           "no such file",
	} {
		if _, err := ParseSubmission([]byte(in), root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestMentions(t *testing.T) {
	root := tree(t, map[string]string{
		".directives/AGENTS.md":    "# Root\n\n## Directive files\n\n- `x/.directives/TESTING.md`: old\n\n## Other\n\ntext\n",
		"a/.directives/TESTING.md": "t",
		"b/.directives/AGENTS.md":  "# B\n",
	})
	ms, err := Mentions(root, []string{"a/.directives/TESTING.md", "b/.directives/AGENTS.md", "x/.directives/TESTING.md", "not/a/directive.md"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Path != ".directives/AGENTS.md" || !slices.Equal(ms[0].Files, []string{"a/.directives/TESTING.md", "b/.directives/AGENTS.md"}) {
		t.Fatalf("%+v", ms)
	}
	want := "# Root\n\n## Directive files\n\n- `x/.directives/TESTING.md`: old\n- `a/.directives/TESTING.md`: how to test here\n- `b/.directives/AGENTS.md`: what an agent working here must know first\n\n## Other\n\ntext\n"
	if string(ms[0].Data) != want {
		t.Fatalf("got\n%s", ms[0].Data)
	}
	// A file beside its own AGENTS.md is named there; no AGENTS.md at all
	// names nothing.
	ms, _ = Mentions(root, []string{"b/.directives/TESTING.md"}, nil)
	if len(ms) != 1 || ms[0].Path != "b/.directives/AGENTS.md" || !strings.HasSuffix(string(ms[0].Data), "# B\n\n## Directive files\n\n- `b/.directives/TESTING.md`: how to test here\n") {
		t.Fatalf("%+v", ms)
	}
	bare := tree(t, map[string]string{"a/.directives/TESTING.md": "t"})
	if ms, _ := Mentions(bare, []string{"a/.directives/TESTING.md"}, nil); len(ms) != 0 {
		t.Fatalf("%+v", ms)
	}
}

func TestLearnedTarget(t *testing.T) {
	root := tree(t, map[string]string{
		"pkg/api/.directives/AGENTS.md":        "",
		"pkg/api/v2/h.go":                      "",
		".directives/AGENTS.md":                "",
		"node_modules/m/.directives/AGENTS.md": "",
	})
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "linked"), 0o755)
	os.Symlink(outside, filepath.Join(root, "linked", ".directives"))
	for area, want := range map[string]string{
		"pkg/api/v2/h.go":                        "pkg/api/.directives/PITFALLS.md",
		"pkg/api/":                               "pkg/api/.directives/PITFALLS.md",
		"pkg/api/**/*.go":                        "pkg/api/.directives/PITFALLS.md",
		filepath.Join(root, "pkg/api/v2/new.go"): "pkg/api/.directives/PITFALLS.md",
		"docs/x.md":                              ".directives/PITFALLS.md",
		"node_modules/m/i.js":                    ".directives/PITFALLS.md",
		"npm test":                               "",
		"-":                                      "",
		"../elsewhere/x.go":                      "",
		"/etc/passwd":                            "",
		"linked/x.go":                            "",
	} {
		if got := LearnedTarget(root, area, "pitfall", []string{"node_modules"}); got != want {
			t.Errorf("%q: got %q, want %q", area, got, want)
		}
	}
	if got := LearnedTarget(root, "pkg/api", "decision", nil); got != "pkg/api/.directives/INVARIANTS.md" {
		t.Errorf("decision: %q", got)
	}
	if got := LearnedTarget(root, "pkg/api", "workflow", nil); got != "" {
		t.Errorf("workflow: %q", got)
	}
	for rel, ok := range map[string]bool{"pkg/.directives/PITFALLS.md": true, ".directives/INVARIANTS.md": true, ".memory/knowledge/pitfalls.md": true, "pkg/.directives/AGENTS.md": false, "pkg/PITFALLS.md": false, "../.directives/PITFALLS.md": false} {
		if _, got := KindOf(rel); got != ok {
			t.Errorf("KindOf(%q) = %v", rel, got)
		}
	}
}

// Two hooks of one session at once never both show a directive: Update
// holds the session's lock from reading to appending.
func TestSessionUpdateIsExclusive(t *testing.T) {
	root := tree(t, map[string]string{".memory/learning.json": "{}"})
	s := SessionAt(root, "s")
	done := make(chan int, 8)
	for i := 0; i < 8; i++ {
		go func() {
			shown := 0
			err := s.Update(context.Background(), time.Now(), func(st *State) ([]Record, error) {
				if st.Shown["/x"] != "" {
					return nil, nil
				}
				shown = 1
				return []Record{{Op: OpShown, Real: "/x", How: HowFull}}, nil
			})
			if err != nil {
				t.Error(err)
			}
			done <- shown
		}()
	}
	total := 0
	for i := 0; i < 8; i++ {
		total += <-done
	}
	if total != 1 {
		t.Fatalf("shown %d times", total)
	}
	if data, err := os.ReadFile(filepath.Join(root, ".memory/.local/.gitignore")); err != nil || !strings.Contains(string(data), "*") {
		t.Fatalf(".memory/.local does not ignore itself: %q %v", data, err)
	}
}

func TestSessionRefusesALinkedLocalDir(t *testing.T) {
	root := tree(t, map[string]string{".memory/learning.json": "{}"})
	os.Symlink(t.TempDir(), filepath.Join(root, ".memory", ".local"))
	err := SessionAt(root, "s").Update(context.Background(), time.Now(), func(*State) ([]Record, error) { return nil, nil })
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("got %v", err)
	}
}

func TestWithLocalIgnored(t *testing.T) {
	got, changed := WithLocalIgnored([]byte("tmp/"))
	if !changed || string(got) != "tmp/\n# devlearn: session state of this working tree, never committed\n/.local/\n" {
		t.Fatalf("%q", got)
	}
	if _, changed := WithLocalIgnored(got); changed {
		t.Fatal("added twice")
	}
}

// One function decides how a file is given: core types always in full, a
// filtered type in full only when declared.
func TestLoaded(t *testing.T) {
	tst := File{Type: "TESTING.md"}
	agents := File{Type: "AGENTS.md", Core: true}
	if !Loaded(agents, nil) || Loaded(tst, nil) || Loaded(tst, []string{"CHECKLIST.md"}) || !Loaded(tst, []string{"CHECKLIST.md", "TESTING.md"}) {
		t.Fatal("Loaded")
	}
	if strings.Join(Filtered(), ",") != "TESTING.md,PITFALLS.md,CONTRIBUTING.md,TEMPLATE.md,CHECKLIST.md" {
		t.Fatal(Filtered())
	}
}
