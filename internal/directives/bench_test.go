package directives

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchTree is a repository 8 folders deep with directives at the root,
// at depth 2 and at depth 5, and 20 sibling folders at each level, whose
// folders are old enough for their stamps to be trusted.
func benchTree(b *testing.B) (root, file string) {
	files := map[string]string{
		".directives/AGENTS.md":               "root rules\n",
		".directives/CHECKLIST.md":            "- [ ] vet\n",
		"a/b/.directives/AGENTS.md":           "b rules\n",
		"a/b/.directives/TESTING.md":          "b tests\n",
		"a/b/c/d/e/.directives/INVARIANTS.md": "e invariants\n",
		"a/b/c/d/e/f/g/h/x.go":                "package h\n",
	}
	dir := ""
	for _, part := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		dir += part + "/"
		for i := 0; i < 20; i++ {
			files[fmt.Sprintf("%ssibling%d/y.go", dir, i)] = "package y\n"
		}
	}
	root = tree(b, files)
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	return root, filepath.Join(root, "a/b/c/d/e/f/g/h/x.go")
}

// BenchmarkDiscover is the walk post-tool-use makes after every tool call:
// cold (every level listed) and through a session's memo (one stat a
// level).
func BenchmarkDiscover(b *testing.B) {
	root, file := benchTree(b)
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			res, err := Discover([]string{file}, Options{Root: root, Ignore: []string{"node_modules", "vendor"}})
			if err != nil || len(res.Files) != 5 {
				b.Fatalf("%v %d", err, len(res.Files))
			}
		}
	})
	b.Run("memo", func(b *testing.B) {
		m := &Memo{}
		Discover([]string{file}, Options{Root: root, Memo: m})
		m.records()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := Discover([]string{file}, Options{Root: root, Ignore: []string{"node_modules", "vendor"}, Memo: m})
			if err != nil || len(res.Files) != 5 {
				b.Fatalf("%v %d", err, len(res.Files))
			}
		}
	})
}

// BenchmarkSessionUpdate is a post-tool-use's state round trip once the
// session has seen its directives: lock, read and fold the log, walk
// through the memo, unlock, nothing appended.
func BenchmarkSessionUpdate(b *testing.B) {
	root, file := benchTree(b)
	os.MkdirAll(filepath.Join(root, ".memory"), 0o755)
	s := SessionAt(root, "bench")
	step := func() {
		err := s.Update(context.Background(), time.Now(), func(st *State) ([]Record, error) {
			_, err := Discover([]string{file}, Options{Root: root, Memo: &st.Memo})
			return nil, err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	step()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}
