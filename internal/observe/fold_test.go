package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

// randomLog builds a log of every kind of line: events of every op over a
// few observations and sources, devflow snapshot lines, and unknown ops.
func randomLog(r *rand.Rand, n int) [][]byte {
	patterns := []struct{ typ, pattern string }{
		{Pitfall, "Hook scripts grow into god scripts"},
		{Decision, "Use JSONL for the observation log"},
		{Workflow, "Run the release checklist"},
		{Procedural, "Regenerate the golden files after a format change"},
		{Pitfall, "The CI cache hides a stale go.sum"},
	}
	var lines [][]byte
	for i := 0; i < n; i++ {
		p := patterns[r.Intn(len(patterns))]
		id := ID(p.typ, p.pattern)
		at := t0.Add(time.Duration(r.Intn(20*24)) * time.Hour)
		src := fmt.Sprintf("s%d", r.Intn(6))
		var e *Event
		switch k := r.Intn(100); {
		case k < 55:
			q := r.Intn(4) > 0
			e = ObserveEvent(Sighting{ID: id, Type: p.typ, Pattern: p.pattern, Details: fmt.Sprintf("details %d", r.Intn(3)),
				Evidence: []string{fmt.Sprintf("user said %d", r.Intn(15))}, QualityOK: &q, Record: fmt.Sprint(r.Intn(3))}, src, at)
			if r.Intn(4) == 0 {
				e.Weight = 2 + r.Intn(2) // a bug or feedback session
			}
		case k < 60:
			e = NewEvent(OpDeprecate, id, at, "reconcile", func(e *Event) { e.Reason = "deleted" })
		case k < 64:
			e = NewEvent(OpRestore, id, at, "user", nil)
		case k < 69:
			e = NewEvent(OpPenalize, id, at, "reconcile", func(e *Event) { e.Factor = 0.3; e.Reason = "deleted" })
		case k < 74:
			e = NewEvent(OpCreated, id, at, "render", func(e *Event) { e.Path = "x/" + id + ".md" })
		case k < 78:
			e = NewEvent(OpIntent, id, at, "render", func(e *Event) { e.Path = "x/" + id + ".md" })
		case k < 80:
			e = NewEvent(OpPromote, id, at, "user", nil)
		case k < 85:
			on := r.Intn(2) == 0
			e = NewEvent(OpFlag, id, at, "reconcile", func(e *Event) { e.Flag = FlagStale; e.On = &on; e.Reason = "gone.go" })
		case k < 90:
			e = NewEvent(OpCount, id, at, src, func(e *Event) { e.Counter = "used" })
		case k < 92:
			e = NewEvent(OpTombstone, id, at, "compact", nil)
		case k < 97:
			status := []string{"observing", "ready", "created", "deprecated"}[r.Intn(4)]
			conf := float64(r.Intn(95)) / 100
			q := true
			e = &Event{ID: id, Type: p.typ, Pattern: p.pattern, Confidence: &conf, Observations: 1 + r.Intn(4),
				FirstSeen: FormatTime(at), LastSeen: FormatTime(at.Add(48 * time.Hour)), Status: status,
				Evidence: Evidences{{Text: "devflow evidence"}}, QualityOK: &q, ArtifactPath: "old/path.md"}
		default:
			e = &Event{Op: "future-op", EID: fmt.Sprintf("f%d", i), ID: id, At: FormatTime(at)}
		}
		b, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		lines = append(lines, b)
	}
	return lines
}

func fold(t *testing.T, lines [][]byte) *Log {
	t.Helper()
	l, err := Fold(bytes.NewReader(bytes.Join(append(lines, nil), []byte("\n"))))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// state renders everything a fold determines, at a few moments, so that
// two folds can be compared whole.
func state(l *Log) string {
	cfg := config.Default()
	var b strings.Builder
	for _, now := range []time.Time{t0, t0.Add(30 * 24 * time.Hour), t0.Add(200 * 24 * time.Hour)} {
		j, _ := json.Marshal(l.Observations(now, cfg))
		b.Write(j)
		b.WriteByte('\n')
	}
	for _, id := range l.IDs() {
		fmt.Fprintf(&b, "%s %v %v\n", id, l.Counters(id), l.LastCounted(id, "used"))
	}
	return b.String()
}

func TestFoldIsOrderIndependentAndIgnoresDuplicates(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		lines := randomLog(r, 10+r.Intn(80))
		want := state(fold(t, lines))

		shuffled := append([][]byte(nil), lines...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := 0; i < len(lines)/3; i++ { // duplicated lines, as a bad merge would leave
			shuffled = append(shuffled, lines[r.Intn(len(lines))])
		}
		if got := state(fold(t, shuffled)); got != want {
			t.Fatalf("seed %d: shuffled and duplicated lines fold differently:\n got %s\nwant %s", seed, got, want)
		}
	}
}

func TestCompactFoldsToTheSameStateAndIsIdempotent(t *testing.T) {
	cfg := config.Default()
	for seed := int64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		lines := randomLog(r, 10+r.Intn(80))
		l := fold(t, lines)
		want := state(l)

		var once bytes.Buffer
		if _, err := l.WriteCompacted(&once, t0, cfg); err != nil {
			t.Fatal(err)
		}
		l2, err := Fold(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got := state(l2); got != want {
			t.Fatalf("seed %d: compacted log folds differently:\n got %s\nwant %s\nlog:\n%s", seed, got, want, once.String())
		}
		var twice bytes.Buffer
		if _, err := l2.WriteCompacted(&twice, t0, cfg); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("seed %d: compacting twice changed the log:\n%s\n---\n%s", seed, once.String(), twice.String())
		}
	}
}

// A branch that compacted and a branch that appended merge as a set union
// of lines (what the merge driver does); the result must equal folding
// everything both sides ever saw.
func TestCompactedBranchMergesWithAppendingBranch(t *testing.T) {
	cfg := config.Default()
	for seed := int64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewSource(seed))
		base := randomLog(r, 30)
		ours := randomLog(r, 10)
		theirs := randomLog(r, 10)

		var compacted bytes.Buffer
		if _, err := fold(t, append(append([][]byte{}, base...), ours...)).WriteCompacted(&compacted, t0, cfg); err != nil {
			t.Fatal(err)
		}
		merged := append(bytes.Split(bytes.TrimSpace(compacted.Bytes()), []byte("\n")), theirs...)
		all := append(append(append([][]byte{}, base...), ours...), theirs...)
		if got, want := state(fold(t, merged)), state(fold(t, all)); got != want {
			t.Fatalf("seed %d: merge of a compacted branch differs:\n got %s\nwant %s", seed, got, want)
		}
	}
}

func TestCorruptLinesAreReportedWithTheirNumbersAndKept(t *testing.T) {
	in := strings.Join([]string{
		`{"op":"observe","eid":"e1","at":"2026-04-01T09:00:00Z","src":"s1","id":"obs_aaaaaa","type":"pitfall","pattern":"p"}`,
		`not json at all`,
		`{"op":"observe","eid":"e2","at":"yesterday","src":"s1","id":"obs_aaaaaa","type":"pitfall","pattern":"p"}`,
		`{"op":"observe","src":"s1","type":"pitfall"}`,
		`{"op":"from-the-future","id":"obs_aaaaaa"}`,
		`{"op":"observe","eid":"e3","at":"2026-04-02T09:00:00Z","src":"s2","id":"obs_aaaaaa","type":"pitfall","pat`,
	}, "\n")
	l, err := Fold(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range l.Problems {
		got = append(got, p.Error())
	}
	want := []string{
		`line 2: not JSON: invalid character 'o' in literal null (expecting 'u') (column 2)`,
		`line 3: observe "obs_aaaaaa": time "yesterday" is not RFC 3339`,
		`line 4: no "id"`,
		`line 6: torn last line (a writer stopped mid-line): not JSON: the line ends too early (column 106)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("problems:\n got %q\nwant %q", got, want)
	}
	if len(l.Kept) != 5 {
		t.Fatalf("kept %d lines, want the 4 corrupt ones and the unknown op", len(l.Kept))
	}
	o, ok := l.Observation("obs_aaaaaa", t0, config.Default())
	if !ok || o.Count != 1 {
		t.Fatalf("the good line must still fold: %+v", o)
	}
}

// The hand-written decoder must read every line as encoding/json does.
func TestDecoderAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	lines := randomLog(r, 3000)
	lines = append(lines, bytes.Split(bytes.TrimSpace(devflowLog(50)), []byte("\n"))...)
	l := fold(t, lines)
	var buf bytes.Buffer
	if _, err := l.WriteCompacted(&buf, t0, config.Default()); err != nil {
		t.Fatal(err)
	}
	lines = append(lines, bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))...)
	lines = append(lines, []byte(`{"id":"obs_x","pattern":"esc\u00e9 \"q\" \\ \n","evidence":[],"marks":null,"confidence":null}`))
	var d decoder
	views := decoder{views: true} // as the fold reads: strings are views of the line
	for _, line := range lines {
		var want, got, viewed Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("encoding/json: %v on %s", err, line)
		}
		if err := d.decode(line, &got); err != nil {
			t.Fatalf("decoder: %v on %s", err, line)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("decoders disagree on %s:\n got %+v\nwant %+v", line, got, want)
		}
		if err := views.decode(line, &viewed); err != nil || !reflect.DeepEqual(want, viewed) {
			t.Fatalf("views disagree on %s (%v):\n got %+v\nwant %+v", line, err, viewed, want)
		}
	}
}

// The fold keeps no byte of the lines it reads (it reads them in place,
// as views): what it keeps is copied, so the parts of the file it read
// are freed. A view kept by mistake would hold a whole part, megabytes.
func TestFoldKeepsNoLine(t *testing.T) {
	runtime.GC()
	before := int64(heapObjects())
	// Sightings of ten observations from five sessions: the folded state
	// is a few kilobytes, however long the log.
	var log bytes.Buffer
	q := true
	for i := 0; log.Len() < 3*partSize; i++ {
		s := Sighting{Type: Pitfall, Pattern: fmt.Sprintf("Lesson %d", i%10), Details: "area: x; issue: y", QualityOK: &q,
			Evidence: []string{fmt.Sprintf("user said %d", i%3)}}
		s.ID = ID(s.Type, s.Pattern)
		b, _ := json.Marshal(ObserveEvent(s, fmt.Sprintf("s%d", i%5), t0.Add(time.Duration(i)*time.Second)))
		log.Write(b)
		log.WriteByte('\n')
	}
	l := FoldBytes(log.Bytes())
	log = bytes.Buffer{}
	runtime.GC()
	kept := int64(heapObjects()) - before
	if len(l.Problems) != 0 || len(l.states) == 0 {
		t.Fatalf("%d problems, %d observations", len(l.Problems), len(l.states))
	}
	if kept > partSize/4 {
		t.Fatalf("the folded log keeps %d bytes: a part of the file (%d bytes) is held by a view", kept, partSize)
	}
	runtime.KeepAlive(l)
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A branch that forgot a weak observation (compact over log.max_observing)
// and a branch that went on sighting it, and rendered it, merge without
// losing the second branch's work: the tombstone forgets what the first
// branch knew, not everything older than the moment it compacted.
func TestForgettingOnOneBranchKeepsTheOthersSightings(t *testing.T) {
	line := func(op, eid, day, src, id, extra string) []byte {
		return []byte(fmt.Sprintf(`{"op":%q,"eid":%q,"at":"2026-05-%sT09:00:00Z","src":%q,"id":%q%s}`, op, eid, day, src, id, extra))
	}
	obs := func(eid, day, src, id, pattern string) []byte {
		return line("observe", eid, day, src, id, fmt.Sprintf(`,"type":"workflow","pattern":%q,"quality_ok":true`, pattern))
	}
	var base [][]byte
	for i := range 3 {
		id := fmt.Sprintf("obs_strong%06d", i)
		base = append(base, obs(fmt.Sprintf("s%da", i), "01", "base1", id, fmt.Sprintf("strong %d", i)), obs(fmt.Sprintf("s%db", i), "02", "base2", id, fmt.Sprintf("strong %d", i)))
	}
	const weak = "obs_weak00000001"
	base = append(base, obs("w1", "01", "base1", weak, "weak one"))

	// Ours compacts on day 10 with room for three observing observations.
	cfg := config.Default()
	cfg.Log.MaxObserving = 3
	var compacted bytes.Buffer
	stats, err := fold(t, base).WriteCompacted(&compacted, time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC), cfg)
	if err != nil || len(stats.Forgotten) != 1 || stats.Forgotten[0] != weak {
		t.Fatalf("forgotten %v, %v", stats.Forgotten, err)
	}
	// Theirs, meanwhile: two more sessions on days 8 and 9, then rendered.
	theirs := [][]byte{
		obs("w2", "08", "b2", weak, "weak one"),
		obs("w3", "09", "b3", weak, "weak one"),
		line("created", "w4", "09", "render", weak, `,"path":".claude/commands/self-learning/weak-one.md"`),
	}
	merged := append(bytes.Split(bytes.TrimSpace(compacted.Bytes()), []byte("\n")), theirs...)
	now := time.Date(2026, 5, 11, 9, 0, 0, 0, time.UTC)
	var got *Observation
	for _, o := range fold(t, merged).Observations(now, config.Default()) {
		if o.ID == weak {
			got = &o
		}
	}
	if got == nil || got.Status != Created || got.Count != 2 {
		t.Fatalf("after the merge: %+v", got)
	}
}

// WithStatus, which works out in full only the observations it returns,
// gives the ready observations Observations gives, whatever the log and
// the time.
func TestReadyAgreesWithObservations(t *testing.T) {
	cfg := config.Default()
	readies := 0
	for seed := int64(0); seed < 20; seed++ {
		l := fold(t, randomLog(rand.New(rand.NewSource(seed)), 400))
		for _, now := range []time.Time{day(5), day(30), day(200)} {
			var want []Observation
			for _, o := range l.Observations(now, cfg) {
				if o.Status == Ready {
					want = append(want, o)
				}
			}
			got := l.WithStatus(now, cfg, Ready)
			SortByConfidence(got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s: Ready gave %d, Observations %d ready", seed, now, len(got), len(want))
			}
			readies += len(got)
		}
	}
	if readies == 0 {
		t.Fatal("no log had a ready observation: the comparison proved nothing")
	}
}

// Folding nothing (the tail of a log read through the fold cache when
// nothing was appended since) allocates next to nothing, not a part's
// 4 MiB: an empty first buffer was once read as not yet the end.
func TestFoldNothingAllocatesLittle(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 4 {
		if _, err := foldFrom(bytes.NewReader(nil), 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("folding nothing four times allocated %d bytes", n)
	}
}

// The workers' logs are joined into the one that folded the most: a log of
// one part comes back as the log its worker built, whichever worker that
// was, its states not inserted again; logs that both folded are joined.
func TestMergeKeepsTheFullestLog(t *testing.T) {
	data := devflowLog(200)
	for _, full := range []int{0, 1} {
		logs := []*Log{NewLog(), NewLog()}
		logs[full] = FoldBytes(data)
		want := logs[full]
		if got := merge(logs); got != want || len(got.states) != 200 {
			t.Fatalf("the full log in place %d: got another log, %d states", full, len(got.states))
		}
	}
	halves := bytes.SplitAfterN(data, []byte("\n"), 101)
	a, b := FoldBytes(bytes.Join(halves[:100], nil)), FoldBytes(halves[100])
	if got, want := merge([]*Log{a, b}), FoldBytes(data); !reflect.DeepEqual(got.Observations(day(10), config.Default()), want.Observations(day(10), config.Default())) || got.Lines != 200 {
		t.Fatalf("two halves merged differ from the whole")
	}
}

// gcPercent reads the collection rate without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// percentReader records the collection rate at each read of the log.
type percentReader struct {
	r    io.Reader
	seen []int
}

func (p *percentReader) Read(b []byte) (int, error) {
	p.seen = append(p.seen, gcPercent())
	return p.r.Read(b)
}

// A log of one part folds at the rate the command chose; a longer one at
// Go's default from its second part on, and the command's rate is back
// once it is folded.
func TestLongLogsFoldAtTheDefaultCollectionRate(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var long bytes.Buffer
	if _, err := growingLog(&long, 3*partSize); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want int // the rate at the last read
	}{{"one part", long.Bytes()[:bytes.IndexByte(long.Bytes()[partSize/2:], '\n')+partSize/2+1], 400}, {"three parts", long.Bytes(), 100}} {
		r := &percentReader{r: bytes.NewReader(tc.data)}
		l, err := Fold(io.MultiReader(r)) // a reader that cannot tell its size
		if err != nil || len(l.Problems) != 0 {
			t.Fatalf("%s: %v, %d problems", tc.name, err, len(l.Problems))
		}
		if r.seen[0] != 400 || r.seen[len(r.seen)-1] != tc.want {
			t.Fatalf("%s: collection rates at the reads %v, want 400 first and %d last", tc.name, r.seen, tc.want)
		}
		if got := gcPercent(); got != 400 {
			t.Fatalf("%s: the rate is %d after the fold, want the command's 400 back", tc.name, got)
		}
	}
	// Long folds that overlap (an MCP server's two requests) put back the
	// command's rate, not the one the first of them set, whichever ends
	// first.
	a := collectForLongFold()
	b := collectForLongFold()
	a()
	if got := gcPercent(); got != 100 {
		t.Fatalf("the rate is %d while a long fold still runs, want 100", got)
	}
	b()
	if got := gcPercent(); got != 400 {
		t.Fatalf("the rate is %d after overlapping folds, want the command's 400 back", got)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := Fold(io.MultiReader(bytes.NewReader(long.Bytes()))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := gcPercent(); got != 400 {
		t.Fatalf("the rate is %d after three folds at once, want the command's 400 back", got)
	}
}
