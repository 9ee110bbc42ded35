package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/words"
)

// benchProject is a project with n entries and a warm cache whose files
// are old enough not to be racy.
func benchProject(b *testing.B, n int) (Sources, string) {
	b.Helper()
	root := b.TempDir()
	genEntries(b, root, n)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(root, ".memory", "knowledge", "entries"), old, old)
	src := Sources{Root: root}
	cache := filepath.Join(root, "cache.bin")
	if _, err := Load(src, cache, Full); err != nil {
		b.Fatal(err)
	}
	return src, cache
}

// BenchmarkCandidates is the hook's read of the cache: a few stat calls,
// the section headers, the index, and the items it names for one Write.
func BenchmarkCandidates(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			src, cache := benchProject(b, n)
			call := &Call{Tool: "Write", Paths: []string{"src/module5/x.go"}, FileScoped: true,
				Words: words.NewHaystack("please add the golf handler to module 5", "then run the tests")}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				set, err := Candidates(src, cache, call)
				if err != nil || set.Rebuilt || len(set.Items) == 0 || len(set.Items) > n/2 {
					b.Fatalf("rebuilt %v, %d items, %v", set.Rebuilt, len(set.Items), err)
				}
			}
		})
	}
}

// BenchmarkLoadCached reads every item from the cache (a command's read,
// and what a hook would do without the index).
func BenchmarkLoadCached(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			src, cache := benchProject(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				set, err := Load(src, cache, Quick)
				if err != nil || set.Rebuilt || len(set.Items) != n {
					b.Fatalf("rebuilt %v, %d items, %v", set.Rebuilt, len(set.Items), err)
				}
			}
		})
	}
}

// BenchmarkLoadFull is session start's check of every entry file.
func BenchmarkLoadFull(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			src, cache := benchProject(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Load(src, cache, Full); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRank scores every item against one Write call.
func BenchmarkRank(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			src, cache := benchProject(b, n)
			set, _ := Load(src, cache, Quick)
			call := &Call{Tool: "Write", Paths: []string{"src/module5/x.go"}, FileScoped: true,
				Words: words.NewHaystack("please add the golf handler to module 5", "then run the tests")}
			o := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Rank(set.Items, call, o)
			}
		})
	}
}

// BenchmarkIndex builds the session-start index of 1,000 entries.
func BenchmarkIndex(b *testing.B) {
	src, cache := benchProject(b, 1000)
	set, _ := Load(src, cache, Quick)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		BuildIndex(set, IndexOptions{BudgetTokens: 1500})
	}
}

// BenchmarkRebuild is the first hook call after the knowledge changed (one
// entry added) and the first in a new DEVLEARN_HOME (the global folder is
// another one): the cache is brought up to date, reading only what
// changed (the target: 20 ms at 1,000 entries, docs/benchmarks.md).
func BenchmarkRebuild(b *testing.B) {
	call := &Call{Tool: "Write", Paths: []string{"src/module5/x.go"}, FileScoped: true}
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("changed/entries=%d", n), func(b *testing.B) {
			src, cache := benchProject(b, n)
			dir := filepath.Join(src.Root, ".memory", "knowledge", "entries")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				body := fmt.Sprintf("---\nkey: added-%d\nsummary: Added %d\npriority: HIGH\ntriggers:\n  tools: [Write]\n---\nAdded.\n", i, i)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("added-%d.md", i)), []byte(body), 0o644); err != nil {
					b.Fatal(err)
				}
				old := time.Now().Add(-time.Minute)
				os.Chtimes(dir, old.Add(time.Duration(i)*time.Millisecond), old.Add(time.Duration(i)*time.Millisecond))
				b.StartTimer()
				set, err := Candidates(src, cache, call)
				if err != nil || !set.Rebuilt {
					b.Fatalf("rebuilt %v, %v", set.Rebuilt, err)
				}
			}
		})
		b.Run(fmt.Sprintf("new-home/entries=%d", n), func(b *testing.B) {
			src, cache := benchProject(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				src.GlobalDir = filepath.Join(b.TempDir(), "knowledge", "entries")
				b.StartTimer()
				set, err := Candidates(src, cache, call)
				if err != nil || !set.Rebuilt {
					b.Fatalf("rebuilt %v, %v", set.Rebuilt, err)
				}
			}
		})
	}
}

// BenchmarkReadAll is a cold read of 1,000 entries, every file parsed and
// its triggers derived from its text: what the first hook call of a clone
// with no cache yet pays (a later rebuild reads only the files that changed).
func BenchmarkReadAll(b *testing.B) {
	root := b.TempDir()
	genEntries(b, root, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if set := ReadAll(Sources{Root: root}); len(set.Items) != 1000 {
			b.Fatal(len(set.Items))
		}
	}
}
