package gitx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmark repository: 10,000 files in 100 folders; the task and the
// base each change 1,000 files, 200 of them on both sides (at different
// lines, so they merge line by line). It is built once per process and
// shared by every run of the benchmarks below.
const (
	benchFiles   = 10000
	benchPerDir  = 100
	benchChanged = 1000
	benchOverlap = 200
)

var (
	benchOnce sync.Once
	benchRepo *gitRepo
	benchErr  error
	benchRoot string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

func benchPath(i int) string { return fmt.Sprintf("d%02d/f%04d.txt", i/benchPerDir, i) }

func benchContent(i int, first, last string) string {
	var sb strings.Builder
	sb.WriteString(first + "\n")
	for l := 0; l < 20; l++ {
		fmt.Fprintf(&sb, "file %d line %d: some ordinary source text\n", i, l)
	}
	sb.WriteString(last + "\n")
	return sb.String()
}

func benchSetup(b *testing.B) *gitRepo {
	benchOnce.Do(func() {
		start := time.Now()
		benchRoot, benchErr = os.MkdirTemp("", "gitx-bench-")
		if benchErr != nil {
			return
		}
		g := newGitRepoIn(b, benchRoot)
		write := func(i int, first, last string) {
			p := filepath.Join(g.dir, filepath.FromSlash(benchPath(i)))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(benchContent(i, first, last)), 0o644); err != nil {
				benchErr = err
			}
		}
		for i := 0; i < benchFiles; i++ {
			write(i, "first", "last")
		}
		g.git("add", "-A")
		g.git("commit", "-q", "-m", "10,000 files")
		g.git("branch", "task")
		// The base changes files [800, 1800): first lines.
		for i := benchChanged - benchOverlap; i < 2*benchChanged-benchOverlap; i++ {
			write(i, "FIRST changed on main", "last")
		}
		g.git("commit", "-q", "-am", "main: 1,000 files")
		g.git("tag", "bench-main")
		// The task changes files [0, 1000): last lines.
		g.git("checkout", "-q", "task")
		for i := 0; i < benchChanged; i++ {
			first := "first"
			if i >= benchChanged-benchOverlap {
				first = "FIRST changed on main"
			}
			write(i, first, "LAST changed on the task")
		}
		// Files [800, 1000) carry main's first line here only to build the
		// tree quickly; restore the base's version so they change on both
		// sides at different lines.
		for i := benchChanged - benchOverlap; i < benchChanged; i++ {
			write(i, "first", "LAST changed on the task")
		}
		g.git("commit", "-q", "-am", "task: 1,000 files")
		g.git("checkout", "-q", "main")
		benchRepo = g
		b.Logf("benchmark repository built in %v", time.Since(start).Round(time.Millisecond))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	benchRepo.t = b
	return benchRepo
}

// BenchmarkMergeThreeWay merges a task branch with 1,000 changed files into
// a base with 1,000 others (200 on both sides) in a 10,000-file repository,
// with the base checked out: the merge commit and the 1,000 files written.
// The git sub-benchmark is `git merge` on the same repository, for the
// ratio. The reset between runs is not timed.
func BenchmarkMergeThreeWay(b *testing.B) {
	g := benchSetup(b)
	reset := func() {
		g.git("reset", "-q", "--hard", "bench-main")
	}
	b.Run("gitx", func(b *testing.B) {
		g.t = b
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			reset()
			o := g.opts("task")
			b.StartTimer()
			res, err := Merge(bg, o)
			if err != nil {
				b.Fatal(err)
			}
			if res.Kind != KindMerge || len(res.Updated) != benchChanged {
				b.Fatalf("kind %s, %d files updated", res.Kind, len(res.Updated))
			}
		}
	})
	b.Run("git", func(b *testing.B) {
		g.t = b
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			reset()
			b.StartTimer()
			g.git("merge", "-q", "--no-edit", "task")
		}
	})
	b.StopTimer()
	reset()
}

func BenchmarkMergeLines(b *testing.B) {
	var base, ours, theirs strings.Builder
	for i := 0; i < 10000; i++ {
		line := fmt.Sprintf(`{"op":"observe","eid":"e%05d","at":"2026-04-01T09:00:00Z","src":"s%d"}`+"\n", i, i%50)
		base.WriteString(line)
		ours.WriteString(line)
		theirs.WriteString(line)
	}
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&ours, `{"op":"observe","eid":"o%05d"}`+"\n", i)
		fmt.Fprintf(&theirs, `{"op":"observe","eid":"t%05d"}`+"\n", i)
	}
	bb, ob, tb := []byte(base.String()), []byte(ours.String()), []byte(theirs.String())
	b.SetBytes(int64(len(ob) + len(tb)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		MergeLines(bb, ob, tb)
	}
}

func BenchmarkMergeText(b *testing.B) {
	var base strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&base, "line %d of an ordinary source file\n", i)
		if i%10 == 0 {
			base.WriteString("}\n\n")
		}
	}
	bs := base.String()
	ours := strings.Replace(bs, "line 10 of", "LINE 10 of", 1)
	theirs := strings.Replace(bs, "line 1900 of", "LINE 1900 of", 1)
	b.SetBytes(int64(len(bs)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, clean := MergeText([]byte(bs), []byte(ours), []byte(theirs)); !clean {
			b.Fatal("not clean")
		}
	}
}
