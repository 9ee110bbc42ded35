package observe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// canonical is everything a fold determines, whole: every field of every
// state (slices whose order depends on the order of joins sorted, empty
// maps as nil), the kept lines, the problems and the count of lines; then
// the views at a few moments, so that the comparison does not rest on the
// cache's own encoder alone.
func canonical(l *Log) string {
	n := NewLog()
	n.Lines, n.Kept = l.Lines, l.Kept
	for _, p := range l.Problems {
		p.Err = fmt.Errorf("%v", p.Err)
		n.Problems = append(n.Problems, p)
	}
	for id, s := range l.states {
		c := *s
		c.evidence = slices.Clone(s.evidence)
		slices.SortFunc(c.evidence, func(a, b timedText) int { return strings.Compare(a.text, b.text) })
		c.penalties = slices.Clone(s.penalties)
		slices.SortFunc(c.penalties, func(a, b mark) int { return strings.Compare(penaltyKey(a), penaltyKey(b)) })
		if len(c.evidence) == 0 {
			c.evidence = nil
		}
		if len(c.penalties) == 0 {
			c.penalties = nil
		}
		if len(c.sources) == 0 {
			c.sources = nil
		}
		if len(c.weights) == 0 {
			c.weights = nil
		}
		if len(c.marks) == 0 {
			c.marks = nil
		}
		if len(c.flags) == 0 {
			c.flags = nil
		}
		if len(c.counters) == 0 {
			c.counters = nil
		}
		if len(c.counted) == 0 {
			c.counted = nil
		}
		n.states[id] = &c
	}
	w := &encoder{sorted: true}
	w.log(n)
	return string(w.B) + "\n" + state(l)
}

// A history of everything that happens to a log: appends (torn and corrupt
// lines among them), compactions, merges with another branch, truncations
// anywhere, checkouts of an older version, rewrites in place of the same
// size, and a cache deleted, cut short or damaged. After every step the
// log read through the cache is the log folded afresh, and so is a second
// read (which meets the cache the first one wrote).
func TestFoldCacheEqualsFreshFold(t *testing.T) {
	defer func(v int64) { cacheMinTail = v }(cacheMinTail)
	cfg := config.Default()
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		cacheMinTail = []int64{0, 200, 1 << 20}[r.Intn(3)]
		dir := t.TempDir()
		st := Store{Root: dir, Path: filepath.Join(dir, "log.jsonl"), LockPath: filepath.Join(dir, "log.lock"),
			Cache: FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}}
		var versions [][]byte
		read := func() []byte { b, _ := os.ReadFile(st.Path); return b }
		write := func(b []byte) {
			// A new file, as git and the merge driver write one.
			tmp := st.Path + ".new"
			if err := os.WriteFile(tmp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, st.Path); err != nil {
				t.Fatal(err)
			}
		}
		var steps []string
		for step := 0; step < 40; step++ {
			versions = append(versions, read())
			var what string
			switch k := r.Intn(100); {
			case k < 45:
				what = "append"
				var b bytes.Buffer
				for _, line := range randomLog(r, 1+r.Intn(30)) {
					b.Write(line)
					b.WriteByte('\n')
				}
				switch r.Intn(8) {
				case 0:
					b.WriteString("{\"op\":\"observe\",\"id\":\"obs_torn") // a writer still writing
					what += " torn"
				case 1:
					b.WriteString("not json\n")
					what += " corrupt"
				}
				f, err := os.OpenFile(st.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(b.Bytes())
				f.Close()
			case k < 55:
				what = "compact"
				if _, err := st.Compact(context.Background(), t0, cfg); err != nil {
					t.Fatal(err)
				}
			case k < 65:
				what = "merge"
				lines := bytes.Split(bytes.TrimRight(read(), "\n"), []byte("\n"))
				lines = append(lines, randomLog(r, 1+r.Intn(20))...)
				r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
				write(append(bytes.Join(lines, []byte("\n")), '\n'))
			case k < 73:
				what = "truncate"
				b := read()
				if len(b) > 0 {
					b = b[:r.Intn(len(b))]
				}
				if err := os.Truncate(st.Path, int64(len(b))); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			case k < 80:
				what = "checkout"
				write(versions[r.Intn(len(versions))])
			case k < 87:
				what = "rewrite in place"
				b := read()
				if i := bytes.Index(b, []byte(`"src":"s`)); i >= 0 {
					b[i+8] = "012345"[r.Intn(6)]
					f, err := os.OpenFile(st.Path, os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteAt(b, 0) // same inode, same size
					f.Close()
				}
			case k < 91:
				what = "cache deleted"
				os.Remove(st.Cache.Path)
			case k < 95:
				what = "cache cut short"
				if b, err := os.ReadFile(st.Cache.Path); err == nil && len(b) > 0 {
					os.WriteFile(st.Cache.Path, b[:r.Intn(len(b))], 0o644)
				}
			default:
				what = "cache damaged"
				if b, err := os.ReadFile(st.Cache.Path); err == nil && len(b) > 0 {
					b[r.Intn(len(b))] ^= byte(1 + r.Intn(255))
					os.WriteFile(st.Cache.Path, b, 0o644)
				}
			}
			steps = append(steps, what)
			want, err := LoadFile(st.Path)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				got, err := st.Load()
				if err != nil {
					t.Fatal(err)
				}
				if g, w := canonical(got), canonical(want); g != w {
					t.Fatalf("seed %d, after %s (read %d): the cached fold differs from a fresh one\n got %q\nwant %q", seed, strings.Join(steps, ", "), i+1, g, w)
				}
			}
		}
	}
}

// Two programs reading two different logs through the same cache at once:
// each writes the cache for its log, and neither ever trusts the other's.
func TestFoldCacheTwoWritersNeverTrustTheOthers(t *testing.T) {
	defer func(v int64) { cacheMinTail = v }(cacheMinTail)
	cacheMinTail = 0
	dir := t.TempDir()
	cache := FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}
	r := rand.New(rand.NewSource(7))
	var paths []string
	var wants []string
	for i := 0; i < 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("log%d.jsonl", i))
		var b bytes.Buffer
		for _, line := range randomLog(r, 200) {
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := LoadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		paths, wants = append(paths, p), append(wants, canonical(want))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := (g + i) % 2
				got, err := LoadCached(paths[k], cache)
				if err != nil {
					errs <- err.Error()
					return
				}
				if canonical(got) != wants[k] {
					errs <- fmt.Sprintf("log %d read through the cache differs from its fresh fold", k)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// The cache writes every field of State: a field added to State fails this
// test until stateenc.go writes and reads it (and cacheFormat is bumped).
func TestStateFieldsEncoded(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[State]().Fields() {
		names = append(names, f.Name)
	}
	want := "ID Type Pattern Details text details quality sources weights legacy legacyCount evidence marks penalties flags counters counted tomb"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("State's fields changed: update stateenc.go and bump cacheFormat\n got %s\nwant %s", got, want)
	}
	var marks []string
	for f := range reflect.TypeFor[mark]().Fields() {
		marks = append(marks, f.Name)
	}
	if got := strings.Join(marks, " "); got != "stamp reason path anchor factor on legacy" {
		t.Fatalf("mark's fields changed: update stateenc.go and bump cacheFormat: %s", got)
	}
}

// BenchmarkLoadCached reads a 10,000-observation log through a warm fold
// cache with a session's few lines appended since (what render-ready and
// reconcile pay at session end), beside folding it afresh.
func BenchmarkLoadCached(b *testing.B) {
	for _, format := range []struct {
		name string
		gen  func(int) []byte
	}{{"devflow", devflowLog}, {"events", eventLog}} {
		dir := b.TempDir()
		path := filepath.Join(dir, "log.jsonl")
		cache := FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}
		if err := os.WriteFile(path, format.gen(10_000), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := LoadCached(path, cache); err != nil { // writes the cache
			b.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range randomLog(rand.New(rand.NewSource(1)), 20) {
			f.Write(append(line, '\n'))
		}
		f.Close()
		b.Run(format.name+"/cached", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := LoadCached(path, cache); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(format.name+"/fresh", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := LoadFile(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSaveFoldCache writes the cache of a 10,000-observation log, as
// the first run over a log (or the first after it was rewritten) does.
func BenchmarkSaveFoldCache(b *testing.B) {
	data := devflowLog(10_000)
	l := FoldBytes(data)
	h := &prefixHash{}
	h.add(data, true)
	hdr := h.header("bench")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := writeCache(io.Discard, hdr, l); err != nil {
			b.Fatal(err)
		}
	}
}
