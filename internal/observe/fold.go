package observe

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonl"
)

// Log is the folded observation log: one joined State per id, plus what
// compaction must carry over untouched.
type Log struct {
	// states are the states decoded; a log read from the fold cache
	// keeps the others in lazy until they are asked for (get, all).
	states map[string]*State
	lazy   *lazyStates
	// applied are the events Apply folded in while states were left to
	// decode: a log folded afresh from a damaged cache applies them again.
	applied []*Event
	// Kept are lines folding does not understand: unknown ops (from a newer
	// devlearn) and corrupt lines. Compaction writes them back as they are;
	// only `learn --purge` drops corrupt ones.
	Kept []KeptLine
	// Problems are the corrupt lines, with their line numbers.
	Problems []jsonl.Problem
	// Lines is how many non-blank lines were read.
	Lines int

	dec   decoder
	ev    Event // the line being folded
	names names

	// facts are the status facts of every state as the fold cache was
	// last written from this log, nil once anything changed it since.
	facts *factsMemo
	// latest is the time of the latest sighting the views show (see
	// clock), worked out once while clocked: Observation asks for it on
	// every call, and a log of ten thousand states takes milliseconds.
	latest  int64
	clocked bool
}

// changed forgets what was worked out from the states as they were: a
// state was joined, folded into or forgotten.
func (l *Log) changed() {
	l.facts = nil
	l.clocked = false
}

// factsMemo is every state's status facts, in the order the fold cache
// wrote them (by address): WithStatus reads them instead of taking them
// again from ten thousand states scattered in memory.
type factsMemo struct {
	states []*State
	facts  []statusFacts
}

// KeptLine is a line carried through compaction verbatim.
type KeptLine struct {
	N       int
	Raw     []byte
	Corrupt bool
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{states: map[string]*State{}} }

// Fold reads a whole log, once, in parts of at most a few megabytes: the
// memory it takes is the folded observations', whatever the log's size.
// Parts are folded on every core and joined: because folding is a join,
// the log can be cut at any line boundary and the result is the same as
// folding it in one pass, in any order. Corrupt lines become Problems and
// fold nothing.
func Fold(r io.Reader) (*Log, error) { return foldFrom(r, 1, nil) }

// foldFrom folds what r holds, its first line numbered first. seen, when
// not nil, is given every part read, in the order of the log, before it is
// folded: the fold cache hashes exactly the bytes folded.
func foldFrom(r io.Reader, first int, seen func(data []byte, final bool)) (*Log, error) {
	return foldInto(nil, r, first, seen)
}

// foldInto is foldFrom folding into l, on one core, when l is not nil:
// the lines about a state l holds are applied to it, where folding them
// into a log of their own would build a second state and its maps only
// to join them into the first (a log read through the fold cache and the
// few lines appended since).
func foldInto(into *Log, r io.Reader, first int, seen func(data []byte, final bool)) (*Log, error) {
	workers := runtime.GOMAXPROCS(0)
	if into != nil {
		workers = 1
	}
	type part struct {
		data  []byte
		first int
		final bool
	}
	parts := make(chan part, workers)
	logs := make([]*Log, workers)
	var wg sync.WaitGroup
	m, isMapped := r.(*mappedLog)
	folder := func(l *Log) func(p part) {
		fold := func(p part) {
			if into == nil && p.final && p.first == first && len(l.states) == 0 {
				// A log read as one part (nearly every log): its map
				// of states sized once, for about a state per line,
				// instead of grown and rehashed as they come.
				l.states = make(map[string]*State, min(len(p.data)/384, 1<<15))
			}
			probs, _ := jsonl.ScanBytes(p.data, p.first, p.final, l.foldLine)
			l.Problems = append(l.Problems, probs...)
			l.dropViews()
		}
		return func(p part) {
			if !isMapped {
				fold(p)
			} else if !m.touch(func() { fold(p) }) {
				// The file was cut short under the mapping: the
				// caller folds it again from a read.
				m.faulted.Store(true)
			}
		}
	}
	// Lines joined into a log (a tail after the fold cache: a session's,
	// a bulk render's) are folded where they are cut, one part after the
	// other: a goroutine of its own would fold them no sooner, and
	// handing each part over to it is a thread woken on a busy machine.
	var inline func(p part)
	if into != nil {
		logs[0], inline = into, folder(into)
	}
	for i := range logs {
		if inline != nil {
			break
		}
		logs[i] = NewLog()
		foldPart := folder(logs[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range parts {
				foldPart(p)
			}
		}()
	}
	// Each part is a buffer of its own, never reused: the lines are read
	// in place, and a fold keeps no byte of them (see decoder.views).
	var readErr error
	line, carry := first, []byte(nil)
	firstSize := partSize
	if n, ok := sizeOf(r); ok && n < partSize {
		firstSize = int(n) + 1 // a small log: a buffer its size (+1 to see the end)
	}
	for read := 0; readErr == nil; read++ {
		size := partSize
		if firstSize > 0 {
			size, firstSize = firstSize, 0
		}
		if read == 1 {
			// A log of more than one part is collected at Go's default
			// rate while it is folded, whatever the command chose (four
			// times less often; hooks not at all): its memory is then
			// about the observations' at any length, not four times that
			// (BenchmarkFoldLog's peak-MB at 100 MB and at 1 GB).
			defer collectForLongFold()()
		}
		if len(carry) > 0 && len(carry) >= size/2 {
			size = 2 * len(carry) // a line longer than a part
		}
		buf, err := readPart(r, carry, size)
		final := false
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			final = true
			readErr = io.EOF
		case err != nil:
			readErr = err
		}
		var cut, lines int
		if !isMapped {
			cut, lines = cutPart(buf, final, seen)
		} else if !m.touch(func() { cut, lines = cutPart(buf, final, seen) }) {
			m.faulted.Store(true)
			break
		}
		carry = buf[cut:]
		if cut > 0 {
			if inline != nil {
				inline(part{buf[:cut], line, final})
			} else {
				parts <- part{buf[:cut], line, final}
			}
			line += lines
		}
	}
	close(parts)
	wg.Wait()
	if isMapped && m.faulted.Load() {
		return nil, errMapFault
	}
	out := merge(logs)
	if errors.Is(readErr, io.EOF) {
		readErr = nil
	}
	return out, readErr
}

// readPart is the next part of the log: carry (the end of the last part,
// a line not yet whole) and what follows it, size bytes in all when the
// log holds them; io.EOF or io.ErrUnexpectedEOF when it ends there. A
// part read is a buffer of its own; a part of a mapped log is a slice of
// the mapping (carry is the end of the last slice, just before it).
func readPart(r io.Reader, carry []byte, size int) ([]byte, error) {
	if m, ok := r.(*mappedLog); ok {
		start := m.off - len(carry)
		end := min(start+size, len(m.data))
		m.off = end
		if end == len(m.data) {
			return m.data[start:end], io.EOF
		}
		return m.data[start:end], nil
	}
	buf := make([]byte, size)
	n := copy(buf, carry)
	m, err := io.ReadFull(r, buf[n:])
	return buf[:n+m], err
}

// cutPart cuts a part read at its last newline (the end of the log is
// folded whole), shows seen what is folded, and counts its lines.
func cutPart(buf []byte, final bool, seen func(data []byte, final bool)) (cut, lines int) {
	cut = len(buf)
	if !final {
		cut = bytes.LastIndexByte(buf, '\n') + 1
	}
	if seen != nil {
		seen(buf[:cut], final)
	}
	return cut, bytes.Count(buf[:cut], []byte{'\n'})
}

// merge joins the workers' logs into one: into the one that folded the
// most. A log of one part (most logs) is folded by whichever worker takes
// it, and joining all its states into another, empty log inserted every
// one of them again, in half the runs (TestMergeKeepsTheFullestLog).
func merge(logs []*Log) *Log {
	for i, l := range logs {
		if len(l.states) > len(logs[0].states) {
			logs[0], logs[i] = l, logs[0]
		}
	}
	out := logs[0]
	for _, p := range logs[1:] {
		for _, s := range p.states {
			out.join(s)
		}
		out.Kept = append(out.Kept, p.Kept...)
		out.Problems = append(out.Problems, p.Problems...)
		out.Lines += p.Lines
	}
	// Parts finish in any order: problems and kept lines are reported in
	// the order of the log.
	slices.SortFunc(out.Problems, func(a, b jsonl.Problem) int { return a.Line - b.Line })
	slices.SortStableFunc(out.Kept, func(a, b KeptLine) int { return a.N - b.N })
	return out
}

// longFolds counts the folds of long logs in progress (an MCP server may
// run two): the first sets Go's default collection rate, the last puts
// back the rate there was before the first.
var longFolds struct {
	sync.Mutex
	n, before int
}

// collectForLongFold sets Go's default collection rate until the restore
// it returns is called.
func collectForLongFold() (restore func()) {
	longFolds.Lock()
	defer longFolds.Unlock()
	if longFolds.n == 0 {
		longFolds.before = debug.SetGCPercent(100)
	}
	longFolds.n++
	return func() {
		longFolds.Lock()
		defer longFolds.Unlock()
		if longFolds.n--; longFolds.n == 0 {
			debug.SetGCPercent(longFolds.before)
		}
	}
}

// partSize is how much of a log is read and folded at a time.
const partSize = 4 << 20

// sizeOf is how many bytes r holds, when it can tell.
func sizeOf(r io.Reader) (int64, bool) {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len()), true
	case interface{ Size() int64 }: // a section of a file, read from its start
		return v.Size(), true
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size(), true
		}
	}
	return 0, false
}

// LoadFile folds the log at path; a missing file is an empty log.
func LoadFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewLog(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return foldFile(f, nil, nil)
}

// FoldBytes folds a whole log held in memory.
func FoldBytes(data []byte) *Log {
	l, _ := Fold(bytes.NewReader(data)) // a bytes.Reader never fails
	return l
}

// foldLine decodes one line and joins it in. An unknown op is kept; any
// other error marks the line corrupt (jsonl.Scan records it). The line's
// bytes are read in place and never kept: what the fold stores is copied.
func (l *Log) foldLine(n int, line []byte) error {
	l.Lines++
	e := &l.ev
	e.reset()
	l.dec.views = true
	if err := l.dec.decode(line, e); err != nil {
		l.keep(n, line, true)
		return errors.New(jsonMsg(err))
	}
	if e.ID == "" {
		l.keep(n, line, true)
		return fmt.Errorf("no \"id\"")
	}
	eid := e.EID
	if eid == "" {
		eid = lineID(line)
	}
	err := l.fold(e, eid)
	if errors.Is(err, errUnknownOp) {
		l.keep(n, line, false)
		return nil
	}
	if err != nil {
		l.keep(n, line, true)
		return fmt.Errorf("%s %q: %v", opName(e.Op), e.ID, err)
	}
	return nil
}

// fold joins one event in: a devflow line or a snapshot as the state it
// holds, any other event straight into its observation's state, so that a
// line about an observation already folded allocates nothing but what it
// adds.
func (l *Log) fold(e *Event, eid string) error {
	l.changed()
	at, err := parseTime(e.At)
	if err != nil {
		return err
	}
	switch e.Op {
	case "":
		s, err := fromDevflow(e, eid, &l.names)
		if err != nil {
			return err
		}
		l.join(s)
		return nil
	case OpSnapshot:
		e.own() // the state built keeps the event's strings
		s, err := fromSnapshot(e, strings.Clone(eid))
		if err != nil {
			return err
		}
		l.join(s)
		return nil
	}
	if err := e.check(at); err != nil {
		return err
	}
	s, _ := l.get(e.ID)
	if s == nil {
		s = newState(strings.Clone(e.ID))
		l.states[s.ID] = s
	}
	s.apply(e, stamp{e.Seq, at, eid}, &l.names)
	return nil
}

// dropViews forgets the last line read, so that its part of the file can
// be freed.
func (l *Log) dropViews() {
	clear(l.ev.Evidence[:cap(l.ev.Evidence)])
	l.ev.reset()
	l.dec.line = nil
	l.dec.r.Reset(nil)
}

func (l *Log) keep(n int, line []byte, corrupt bool) {
	l.Kept = append(l.Kept, KeptLine{N: n, Raw: append([]byte(nil), line...), Corrupt: corrupt})
}

// Join folds one state (from an event being recorded, say) into the log.
func (l *Log) join(s *State) {
	l.changed()
	if cur, ok := l.get(s.ID); ok {
		cur.join(s)
		return
	}
	l.states[s.ID] = s
}

// Apply folds events into the log in memory, as if they had been read.
func (l *Log) Apply(events ...*Event) error {
	for _, e := range events {
		eid := e.EID
		if eid == "" {
			b, err := marshalEvent(e)
			if err != nil {
				return err
			}
			eid = lineID(b)
		}
		c := *e
		if err := l.fold(&c, eid); err != nil {
			return fmt.Errorf("%s %q: %w", opName(e.Op), e.ID, err)
		}
		if l.lazy != nil {
			l.applied = append(l.applied, e)
		}
	}
	return nil
}

// Has reports whether id has any state in the log.
func (l *Log) Has(id string) bool { _, ok := l.get(id); return ok }

// TypeOf returns the type recorded for id, if any.
func (l *Log) TypeOf(id string) string {
	if s, ok := l.get(id); ok {
		return s.Type
	}
	return ""
}

// IDs lists every id in the log, sorted.
func (l *Log) IDs() []string {
	states := l.all()
	ids := make([]string, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// lineID names a line that has no event id: the hash of its bytes, so the
// same line read twice (a duplicate after a merge) is the same fact. The
// id tells lines of one log apart and is never trusted with more than
// that, so a fast 64-bit hash does (SHA-256 here was a tenth of a fresh
// fold's CPU); the fold cache's format names the hash.
func lineID(line []byte) string {
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], xxhash.Sum64(line))
	var id [len("line_") + 16]byte
	copy(id[:], "line_")
	hex.Encode(id[len("line_"):], sum[:])
	return string(id[:])
}

func opName(op string) string {
	if op == "" {
		return "devflow line"
	}
	return op
}

// jsonMsg words a decoding error for a person: what is wrong and at which
// column of the line.
func jsonMsg(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := "not JSON: " + se.Err.Error()
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			msg = "not JSON: the line ends too early"
		}
		return fmt.Sprintf("%s (column %d)", msg, se.ByteOffset+1)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "not JSON: the line ends too early"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
