package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/devlearn/devlearn/internal/binfield"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/lesson"
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
	for id, s := range l.all() {
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
		if c.counts != nil {
			counts := *c.counts
			if len(counts.sets) == 0 {
				counts.sets = nil
			}
			if len(counts.at) == 0 {
				counts.at = nil
			}
			c.counts = &counts
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
			// What reads only some states reads them from a log whose
			// other states are still undecoded: each accessor on a log
			// just read, and every accessor after it.
			if msg := sameAnswers(r, st, want); msg != "" {
				t.Fatalf("seed %d, after %s: %s", seed, strings.Join(steps, ", "), msg)
			}
		}
	}
}

// otherConfig has other thresholds and a faster decay than the default.
func otherConfig() *config.Config {
	cfg := config.Default()
	cfg.Thresholds.Pitfall = config.Threshold{Required: 1, SpreadDays: 2, Promote: 0.3}
	cfg.Thresholds.Decision = config.Threshold{Required: 5, SpreadDays: 1, Promote: 0.9}
	cfg.Thresholds.Workflow.Promote = 0.2
	cfg.Decay = config.Decay{AfterDays: 2, HalfLifeDays: 5}
	return cfg
}

// sameAnswers asks a log read through the store the questions a command
// asks of a few states (WithStatus at random moments under two
// configurations, for random statuses, then the accessors by id), each
// first on a log just read, and compares every answer with want's, a
// fresh fold's. It returns what differs, or "".
func sameAnswers(r *rand.Rand, st Store, want *Log) string {
	load := func() *Log {
		l, err := st.Load()
		if err != nil {
			panic(err)
		}
		return l
	}
	sorted := func(obs []Observation) string {
		slices.SortFunc(obs, func(a, b Observation) int { return strings.Compare(a.ID, b.ID) })
		j, _ := json.Marshal(obs)
		return string(j)
	}
	statuses := []string{Observing, Ready, Created, Deprecated}
	ids := append(want.IDs(), "obs_unknown")
	got := load()
	for q := 0; q < 6; q++ {
		cfg := config.Default()
		if r.Intn(2) == 0 {
			cfg = otherConfig()
		}
		// From before the first sighting to long after the last.
		now := t0.Add(time.Duration(r.Intn(400*24)-20*24) * time.Hour)
		var ask []string
		for _, s := range statuses {
			if r.Intn(2) == 0 {
				ask = append(ask, s)
			}
		}
		if q == 3 {
			got = load()
		}
		// The answer of a fresh fold, and every observation in full of
		// it with one of those statuses (WithStatus's shortcuts are
		// checked against the whole rule).
		var full []Observation
		for _, o := range want.Observations(now, cfg) {
			if slices.Contains(ask, o.Status) {
				full = append(full, o)
			}
		}
		g, w, f := sorted(got.WithStatus(now, cfg, ask...)), sorted(want.WithStatus(now, cfg, ask...)), sorted(full)
		if g != w || w != f {
			return fmt.Sprintf("WithStatus(%s, %v) differs\n got %s\nwant %s\nfull %s", now, ask, g, w, f)
		}
	}
	now, cfg := t0.Add(time.Duration(r.Intn(60*24))*time.Hour), config.Default()
	questions := []func(l *Log, id string) string{
		func(l *Log, id string) string {
			o, ok := l.Observation(id, now, cfg)
			j, _ := json.Marshal(o)
			return fmt.Sprint(ok, string(j))
		},
		func(l *Log, id string) string { return fmt.Sprint(l.Has(id), l.TypeOf(id)) },
		func(l *Log, id string) string { return fmt.Sprint(l.Counters(id), l.LastCounted(id, "used")) },
		func(l *Log, id string) string { on, why := l.Flag(id, FlagStale); return fmt.Sprint(on, why) },
		func(l *Log, id string) string { return fmt.Sprint(l.Marks(id)) },
		func(l *Log, id string) string {
			return fmt.Sprint(l.Sighted(id, "s1", now), l.Counted(id, "used", "x"))
		},
	}
	// Every question about every id, in a random order, twice.
	type ask struct {
		q  int
		id string
	}
	var asks []ask
	for q := range questions {
		for _, id := range ids {
			asks = append(asks, ask{q, id})
		}
	}
	for range 2 {
		r.Shuffle(len(asks), func(i, j int) { asks[i], asks[j] = asks[j], asks[i] })
		l := load()
		for _, a := range asks {
			if g, w := questions[a.q](l, a.id), questions[a.q](want, a.id); g != w {
				return fmt.Sprintf("question %d about %s differs: got %s, want %s", a.q, a.id, g, w)
			}
		}
	}
	return ""
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
	want := "ID Type Pattern Details text details quality sources weights legacy legacyCount evidence marks penalties counts tomb"
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
	var facts []string
	for f := range reflect.TypeFor[statusFacts]().Fields() {
		facts = append(facts, f.Name)
	}
	if got := strings.Join(facts, " "); got != "typ visible quality decided hasLegacy count weighted legacyCount first last penalty legacy" {
		t.Fatalf("statusFacts's fields changed: update encoder.facts and factsAt and bump cacheFormat: %s", got)
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
		// A caller that wants every state (learn --list, compaction).
		b.Run(format.name+"/cached-every-state", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				l, err := LoadCached(path, cache)
				if err != nil {
					b.Fatal(err)
				}
				if len(l.IDs()) < 10_000 {
					b.Fatal("states missing")
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

// sessionEndLog is the log of render-ready at a session end, in devflow's
// format: n observations, none ready, which an earlier session end read
// (and so cached); then the lines of the session that make every
// 2,000th ready (scripts/benchtable's "after an earlier run").
func sessionEndLog(n int) (earlier, appended []byte) {
	line := func(i int, ready bool) []byte {
		status, count, conf, last := "observing", 1, 0.33, "2026-04-09T00:00:00Z"
		if ready {
			status, count, conf, last = "ready", 4, 0.95, "2026-04-09T12:00:00Z"
		}
		q := true
		b, _ := json.Marshal(Event{ID: fmt.Sprintf("obs_%08x", i), Type: lesson.Names()[i%4], Pattern: fmt.Sprintf("Lesson number %d about the build scripts", i),
			Confidence: &conf, Observations: count, FirstSeen: "2026-04-01T00:00:00Z", LastSeen: last, Status: status,
			Evidence: Evidences{{Text: "user: you forgot the hook again"}}, QualityOK: &q,
			Details: fmt.Sprintf("area: scripts/hooks/%d; issue: issue %d; impact: untestable; resolution: one job per script", i, i)})
		return append(b, '\n')
	}
	for i := 0; i < n; i++ {
		earlier = append(earlier, line(i, false)...)
		if i%2000 == 1999 {
			appended = append(appended, line(i, true)...)
		}
	}
	return earlier, appended
}

// sessionEnd writes the log of sessionEndLog in dir, its cache written
// by a first read of the earlier part.
func sessionEnd(tb testing.TB, dir string, n int) (path string, cache FoldCache) {
	path = filepath.Join(dir, "log.jsonl")
	cache = FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}
	earlier, appended := sessionEndLog(n)
	cachedThenAppended(tb, path, cache, earlier, appended)
	return path, cache
}

// cachedThenAppended writes earlier at path, reads it once through cache
// (which writes the cache), and appends appended: a log whose cache is
// behind by appended.
func cachedThenAppended(tb testing.TB, path string, cache FoldCache, earlier, appended []byte) {
	tb.Helper()
	if err := os.WriteFile(path, earlier, 0o644); err != nil {
		tb.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(appended); err != nil {
		tb.Fatal(err)
	}
}

// The session end's render reads a 10,000-observation log through the
// cache and decodes the five states its appended lines touched, no other:
// every status is decided from the cached facts. A guard of the speed
// that does not time anything.
func TestSessionEndDecodesOnlyWhatItNeeds(t *testing.T) {
	path, cache := sessionEnd(t, t.TempDir(), 10_000)
	l, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if l.lazy == nil || len(l.states) != 5 || l.lazy.left != 10_000-5 {
		t.Fatalf("read %d states of 10,000 at once", len(l.states))
	}
	ready := l.WithStatus(day(9), config.Default(), Ready)
	if len(ready) != 5 || len(l.states) != 5 {
		t.Fatalf("%d ready, %d states decoded", len(ready), len(l.states))
	}
	if n := len(l.Observations(day(9), config.Default())); n != 10_000 || l.lazy != nil {
		t.Fatalf("%d observations listed", n)
	}
}

// BenchmarkSessionEndReady is what render-ready (and reconcile) pay for
// the log at a session end after an earlier one: the log read through
// the cache with the session's lines appended, and the ready ones asked.
func BenchmarkSessionEndReady(b *testing.B) {
	path, cache := sessionEnd(b, b.TempDir(), 10_000)
	cfg, now := config.Default(), day(9)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l, err := LoadCached(path, cache)
		if err != nil {
			b.Fatal(err)
		}
		if ready := l.WithStatus(now, cfg, Ready); len(ready) != 5 {
			b.Fatalf("%d ready", len(ready))
		}
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

// A log read through the cache maps the cache file, and unmaps it once no
// state is left to decode from it: what the log gave out (observations,
// kept lines, problems) copies its strings and outlives the mapping, and
// reading the cache many times leaves no mapping behind.
func TestMappedCacheOutlivesNothing(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps here")
	}
	dir := t.TempDir()
	path, cache := sessionEnd(t, dir, 2_000)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n{\"op\":\"future\",\"id\":\"obs_x\"}\n")
	f.Close()
	var kept []KeptLine
	var probs []string
	var ready []Observation
	for range 300 {
		l, err := LoadCached(path, cache)
		if err != nil {
			t.Fatal(err)
		}
		if l.lazy == nil {
			t.Fatal("the cache was not read lazily")
		}
		ready = append(ready, l.WithStatus(day(9), config.Default(), Ready)...)
		o, _ := l.Observation("obs_00000002", day(9), config.Default())
		ready = append(ready, o)
		kept = append(kept, l.Kept...)
		for _, p := range l.Problems {
			probs = append(probs, p.Text+p.Err.Error())
		}
	}
	for range 3 {
		runtime.GC()
	}
	time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	runtime.GC()
	maps, _ := os.ReadFile("/proc/self/maps")
	if n := bytes.Count(maps, []byte(cache.Path)); n > 10 {
		t.Fatalf("%d mappings of the cache left after 300 reads", n)
	}
	var b strings.Builder
	for _, o := range ready {
		b.WriteString(o.ID + o.Pattern + o.Details + strings.Join(o.Evidence, ""))
	}
	for _, k := range kept {
		b.Write(k.Raw)
	}
	for _, p := range probs {
		b.WriteString(p)
	}
	if want := 300 * (2 + 2 + 1); len(ready)+len(kept)+len(probs) != want || !strings.Contains(b.String(), "Lesson number 1999") {
		t.Fatalf("%d ready, %d kept, %d problems", len(ready), len(kept), len(probs))
	}
}

// A cache cut short in place under a log still decoding from it (devlearn
// never does; a person might) is a damaged cache, not a crash: the log is
// folded afresh and answers as a fresh fold.
func TestMappedCacheCutShortUnderTheLog(t *testing.T) {
	path, cache := sessionEnd(t, t.TempDir(), 2_000)
	l, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !l.lazy.dec.clone {
		t.Skip("the cache is read here, not mapped")
	}
	if err := os.Truncate(cache.Path, 0); err != nil {
		t.Fatal(err)
	}
	fresh, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	if !l.Has("obs_00000010") {
		t.Fatal("a state read from a cache cut to nothing was lost")
	}
	if got, want := sortedJSON(l.WithStatus(day(9), cfg, Observing)), sortedJSON(fresh.WithStatus(day(9), cfg, Observing)); got != want {
		t.Fatal("statuses read from a cache cut to nothing differ from a fresh fold's")
	}
	if canonical(l) != canonical(fresh) {
		t.Fatal("a log read from a cache cut to nothing differs from a fresh fold")
	}
}

// cacheRecord is where the record of id's state lies in the cache file
// data, and its index: the file's CRC leaves the records out, each is
// checked by its own.
func cacheRecord(t *testing.T, data []byte, id string) (start, end, i int) {
	t.Helper()
	_, r, err := decodeHeader(string(data))
	if err != nil {
		t.Fatal(err)
	}
	base := len(data) - 4 - len(r.S)
	l, err := r.log()
	if err != nil || l.lazy == nil {
		t.Fatalf("cache: %v", err)
	}
	z := l.lazy
	i, ok, bad := z.find(id)
	if !ok || bad {
		t.Fatalf("%s not in the cache", id)
	}
	rec, _, _ := z.record(i)
	start = base + int(fixed32At(z.offsets, i))
	return start, start + len(rec), i
}

// A record damaged where the cache file's CRC does not reach (the states
// are each checked when decoded) changes nothing but speed: whichever way
// the damaged state is reached (joined with the tail, by its status, by
// id, with every state, after an event applied in memory), the answers
// are a fresh fold's, and the cache is written whole again.
func TestFoldCacheDamagedRecordRefolds(t *testing.T) {
	cfg, now := config.Default(), day(9)
	for _, c := range []struct {
		name, damaged string
		ask           func(l *Log) string
	}{
		{"joined with the tail", "obs_00000005", func(l *Log) string {
			o, ok := l.Observation("obs_00000005", now, cfg)
			return fmt.Sprint(ok, sortedJSON(append(l.WithStatus(now, cfg, Ready), o)))
		}},
		{"by id", "obs_00000005", func(l *Log) string {
			o, ok := l.Observation("obs_00000005", now, cfg)
			return fmt.Sprint(ok, sortedJSON([]Observation{o}))
		}},
		{"every state", "obs_00000005", func(l *Log) string { return sortedJSON(l.Observations(now, cfg)) }},
		{"after an event applied", "obs_00000005", func(l *Log) string {
			if err := l.Apply(&Event{Op: OpObserve, ID: "obs_00000009", Type: Pitfall, Pattern: "Lesson number 9 about the build scripts", Src: "codex", At: "2026-04-09T06:00:00Z"}); err != nil {
				t.Fatal(err)
			}
			o, ok := l.Observation("obs_00000005", now, cfg)
			p, _ := l.Observation("obs_00000009", now, cfg)
			return fmt.Sprint(ok, sortedJSON([]Observation{o, p}))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path, cache := sessionEnd(t, dir, 4_000)
			if c.name == "joined with the tail" {
				// A sighting of the damaged state in the lines appended
				// since the cache was written: the read joins it at once.
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(`{"op":"observe","eid":"e_tail","at":"2026-04-09T06:00:00Z","src":"codex","id":"obs_00000005","type":"pitfall","pattern":"Lesson number 5 about the build scripts"}` + "\n")
				f.Close()
			}
			fresh, err := LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := c.ask(fresh)
			data, err := os.ReadFile(cache.Path)
			if err != nil {
				t.Fatal(err)
			}
			start, end, _ := cacheRecord(t, data, c.damaged)
			data[(start+end)/2] ^= 0x5a
			if err := os.WriteFile(cache.Path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := LoadCached(path, cache)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.ask(l); got != want {
				t.Fatalf("through the damaged cache:\n got %s\nwant %s", got, want)
			}
			if c.name != "after an event applied" && canonical(l) != canonical(fresh) {
				t.Fatal("the log read through the damaged cache differs from a fresh fold")
			}
			again, err := os.ReadFile(cache.Path)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, i := cacheRecord(t, again, c.damaged); bytes.Equal(again, data) {
				t.Fatalf("the damaged cache (record %d) was not written again", i)
			}
		})
	}
}

func sortedJSON(obs []Observation) string {
	slices.SortFunc(obs, func(a, b Observation) int { return strings.Compare(a.ID, b.ID) })
	j, _ := json.Marshal(obs)
	return string(j)
}

// The tail is folded while the prefix is checked on another goroutine,
// and its bytes added to the prefix's hash afterwards: a tail long enough
// to be written back leaves a cache whose header names the whole log
// exactly (its size, newlines, CRC and end), which the next read then
// reads through.
func TestTailFoldedBesideThePrefixCheckHashesTheWholeLog(t *testing.T) {
	defer func(v int64) { cacheMinTail = v }(cacheMinTail)
	cacheMinTail = 0
	dir := t.TempDir()
	path, cache := sessionEnd(t, dir, 2_000)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range randomLog(rand.New(rand.NewSource(7)), 3_000) { // over 1/8 of the prefix
		f.Write(append(line, '\n'))
	}
	f.Close()
	if _, err := LoadCached(path, cache); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(path)
	data, err := os.ReadFile(cache.Path)
	if err != nil {
		t.Fatal(err)
	}
	hdr, _, err := decodeHeader(string(data))
	want := &prefixHash{}
	want.add(log, true)
	if err != nil || hdr != want.header(hdr.program) || hdr.size != int64(len(log)) {
		t.Fatalf("the cache written back names %+v (%v), the log is %+v", hdr, err, want.header(hdr.program))
	}
	l, err := LoadCached(path, cache)
	if err != nil || l.lazy == nil {
		t.Fatalf("the next read did not read through the cache: %v", err)
	}
}

// byAddress puts states in the order of their addresses, each of them
// once, whatever the order they come in.
func TestByAddressSortsEveryState(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 3, 255, 256, 257, 1000} {
		order := make([]*State, 0, n)
		for range n / 2 {
			order = append(order, new(State)) // where the heap puts them
		}
		slab := make([]State, n-n/2) // one after the other
		for i := range slab {
			order = append(order, &slab[i])
		}
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		want := map[*State]bool{}
		for _, s := range order {
			want[s] = true
		}
		byAddress(order)
		for i, s := range order {
			if !want[s] {
				t.Fatalf("n %d: state %d is none of those given, or twice", n, i)
			}
			delete(want, s)
			if i > 0 && uintptr(unsafe.Pointer(order[i-1])) >= uintptr(unsafe.Pointer(s)) {
				t.Fatalf("n %d: state %d is not after state %d", n, i, i-1)
			}
		}
	}
}

// The cache is written in the order of the states' addresses (byAddress),
// the speed of its writing: a guard of it, not of what a reader sees.
func TestCacheWritesStatesInAddressOrder(t *testing.T) {
	data := devflowLog(500)
	l := FoldBytes(data)
	h := &prefixHash{}
	h.add(data, true)
	var file bytes.Buffer
	if err := writeCache(&file, h.header("p"), l); err != nil {
		t.Fatal(err)
	}
	_, r, err := decodeHeader(file.String())
	if err != nil {
		t.Fatal(err)
	}
	read, err := r.log()
	if err != nil || read.lazy == nil {
		t.Fatalf("the cache does not read back lazily: %v", err)
	}
	z := read.lazy
	last := uintptr(0)
	for i := range z.decoded {
		rec, ok, _ := z.record(i)
		d := binfield.Decoder{S: rec}
		id := d.Str()
		s := l.states[id]
		if !ok || s == nil {
			t.Fatalf("record %d (%q) is no state of the log", i, id)
		}
		if at := uintptr(unsafe.Pointer(s)); at <= last {
			t.Fatalf("record %d (%s) is not after the one before it in memory", i, id)
		} else {
			last = at
		}
	}
	if len(z.decoded) != 500 {
		t.Fatalf("%d records", len(z.decoded))
	}
}

// afterRender writes in dir the benchtable's log (10,000 observations in
// devflow's format, every tenth ready) read once through the cache, then
// the lines a bulk render appends to it: an intent and a created mark for
// 600 of the ready ones, a soft-cap flag for the other 400.
func afterRender(tb testing.TB, dir string) (path string, cache FoldCache) {
	path = filepath.Join(dir, "log.jsonl")
	cache = FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}
	var log, appended []byte
	add := func(e *Event) {
		b, _ := json.Marshal(e)
		appended = append(append(appended, b...), '\n')
	}
	q := true
	for i := 0; i < 10_000; i++ {
		status, count, conf := "observing", 1, 0.33
		if i%10 == 0 {
			status, count, conf = "ready", 4, 0.95
		}
		b, _ := json.Marshal(Event{ID: fmt.Sprintf("obs_%08x", i), Type: lesson.Names()[i%4], Pattern: fmt.Sprintf("Lesson number %d about the build scripts", i),
			Confidence: &conf, Observations: count, FirstSeen: "2026-04-01T00:00:00Z", LastSeen: "2026-04-09T00:00:00Z", Status: status,
			Evidence: Evidences{{Text: "user: you forgot the hook again"}}, QualityOK: &q,
			Details: fmt.Sprintf("area: scripts/hooks/%d; issue: issue %d; impact: untestable; resolution: one job per script", i, i)})
		log = append(append(log, b...), '\n')
		if i%10 != 0 {
			continue
		}
		id, path := fmt.Sprintf("obs_%08x", i), fmt.Sprintf(".claude/commands/self-learning/lesson-%d.md", i)
		if i/10%5 < 3 {
			add(NewEvent(OpIntent, id, day(9), "render", func(e *Event) { e.Seq, e.Path = 1, path }))
			add(NewEvent(OpCreated, id, day(9), "render", func(e *Event) { e.Seq, e.Path = 2, path }))
		} else {
			add(NewEvent(OpFlag, id, day(9), "render", func(e *Event) { e.Seq, e.Flag, e.Reason = 1, FlagSoftCap, "knowledge file over its soft cap" }))
		}
	}
	cachedThenAppended(tb, path, cache, log, appended)
	return path, cache
}

// BenchmarkReconcileAfterRender is what reconcile pays for the log right
// after a bulk render: the log read through the cache with the render's
// 1,600 lines appended, and the statuses reconcile asks for. "tail": the
// cache not written back (too short a tail); "written-through": a cache
// covering those lines too, as a render writing the cache through its own
// lines would leave it. The two cost the same: what reconcile pays for is
// decoding the thousand states it asks for, not folding their lines.
func BenchmarkReconcileAfterRender(b *testing.B) {
	for _, through := range []bool{false, true} {
		name := "tail"
		if through {
			name = "written-through"
		}
		b.Run(name, func(b *testing.B) {
			path, cache := afterRender(b, b.TempDir())
			if through {
				defer func(v int64) { cacheMinTail = v }(cacheMinTail)
				cacheMinTail = 0
				if _, err := LoadCached(path, cache); err != nil {
					b.Fatal(err)
				}
				cacheMinTail = 1 << 40
			}
			cfg, now := config.Default(), day(9)
			b.ReportAllocs()
			before := cpuTime()
			for i := 0; i < b.N; i++ {
				l, err := LoadCached(path, cache)
				if err != nil {
					b.Fatal(err)
				}
				if got := l.WithStatus(now, cfg, Ready, Created, Deprecated); len(got) != 1_000 {
					b.Fatalf("%d ready, created or deprecated", len(got))
				}
			}
			// CPU, every thread's (the prefix is checked on another core, and
			// the collector's share counts): what a loaded machine cannot take
			// away, unlike the time.
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

// WithStatus on a log the fold cache was just written from reads the
// facts the cache wrote: what it finds is what a log never written finds,
// and stays so once the log changes (events applied, weak observations
// forgotten by compaction).
func TestWithStatusAfterTheCacheIsWritten(t *testing.T) {
	cfg := config.Default()
	cfg.Log.MaxObserving = 2
	statuses := [][]string{{Ready}, {Observing}, {Created, Deprecated}, {Ready, Observing, Created, Deprecated}}
	same := func(seed int64, step string, got, want *Log) {
		t.Helper()
		for _, st := range statuses {
			for _, now := range []time.Time{day(1), day(10), day(40)} {
				g, w := got.WithStatus(now, cfg, st...), want.WithStatus(now, cfg, st...)
				byID := func(a, b Observation) int { return strings.Compare(a.ID, b.ID) }
				slices.SortFunc(g, byID)
				slices.SortFunc(w, byID)
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("seed %d, %s, %v at %v:\n got %+v\nwant %+v", seed, step, st, now, g, w)
				}
			}
		}
	}
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		lines := randomLog(r, 20+r.Intn(80))
		l := fold(t, lines)
		if err := writeCache(io.Discard, cacheHeader{program: "test"}, l); err != nil {
			t.Fatal(err)
		}
		if l.facts == nil {
			t.Fatal("writing the cache left no facts to read")
		}
		same(seed, "cache written", l, fold(t, lines))

		more := randomLog(r, 5)
		for _, line := range more {
			var e Event
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatal(err)
			}
			if err := l.Apply(&e); err != nil && !errors.Is(err, errUnknownOp) { // a newer devlearn's op is kept, as read
				t.Fatal(err)
			}
		}
		all := append(append([][]byte{}, lines...), more...)
		same(seed, "events applied", l, fold(t, all))

		writeCache(io.Discard, cacheHeader{program: "test"}, l)
		want := fold(t, all)
		if _, err := l.WriteCompacted(io.Discard, day(30), cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := want.WriteCompacted(io.Discard, day(30), cfg); err != nil {
			t.Fatal(err)
		}
		same(seed, "compacted", l, want)
	}
}

// BenchmarkLoadCachedFirstRun reads a 10,000-observation log through a
// fold cache that is not there yet, as the first render-ready on a fresh
// clone does: the whole log folded, and the cache written for next time.
func BenchmarkLoadCachedFirstRun(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	cache := FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}
	earlier, _ := sessionEndLog(10_000)
	if err := os.WriteFile(path, earlier, 0o644); err != nil {
		b.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	b.SetBytes(int64(len(earlier)))
	b.ReportAllocs()
	before := cpuTime()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(filepath.Dir(cache.Path))
		b.StartTimer()
		l, err := LoadCached(path, cache)
		if err != nil || l.Lines != 10_000 {
			b.Fatalf("%v, %d lines", err, l.Lines)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}
