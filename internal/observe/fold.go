package observe

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonl"
)

// Log is the folded observation log: one joined State per id, plus what
// compaction must carry over untouched.
type Log struct {
	states map[string]*State
	// Kept are lines folding does not understand: unknown ops (from a newer
	// devlearn) and corrupt lines. Compaction writes them back as they are;
	// only `learn --purge` drops corrupt ones.
	Kept []KeptLine
	// Problems are the corrupt lines, with their line numbers.
	Problems []jsonl.Problem
	// Lines is how many non-blank lines were read.
	Lines int

	dec decoder
}

// KeptLine is a line carried through compaction verbatim.
type KeptLine struct {
	N       int
	Raw     []byte
	Corrupt bool
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{states: map[string]*State{}} }

// Fold reads a whole log. Corrupt lines become Problems and fold nothing.
func Fold(r io.Reader) (*Log, error) {
	l := NewLog()
	problems, err := jsonl.Scan(r, l.foldLine)
	l.Problems = problems
	return l, err
}

// LoadFile folds the log at path; a missing file is an empty log.
func LoadFile(path string) (*Log, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewLog(), nil
	}
	if err != nil {
		return nil, err
	}
	return FoldBytes(data), nil
}

// parallelMin is the log size from which folding is split among cores.
const parallelMin = 1 << 20

// FoldBytes folds a whole log held in memory. Because folding is a join,
// the log can be cut at any line boundary, each part folded on its own
// core, and the parts joined: the result is the same as folding it in one
// pass, in any order.
func FoldBytes(data []byte) *Log {
	workers := runtime.GOMAXPROCS(0)
	if len(data) < parallelMin || workers < 2 {
		l, _ := Fold(bytes.NewReader(data)) // a bytes.Reader never fails
		return l
	}
	parts := make([]*Log, 0, workers)
	var wg sync.WaitGroup
	start, line := 0, 1
	for i := 0; i < workers && start < len(data); i++ {
		end := len(data)
		if i < workers-1 {
			end = start + (len(data)-start)/(workers-i)
			if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
				end += nl + 1
			} else {
				end = len(data)
			}
		}
		l := NewLog()
		parts = append(parts, l)
		chunk, first := data[start:end], line
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Problems, _ = jsonl.ScanFrom(bytes.NewReader(chunk), first, l.foldLine)
		}()
		line += bytes.Count(chunk, []byte{'\n'})
		start = end
	}
	wg.Wait()
	out := parts[0]
	for _, p := range parts[1:] {
		for _, s := range p.states {
			out.join(s)
		}
		out.Kept = append(out.Kept, p.Kept...)
		out.Problems = append(out.Problems, p.Problems...)
		out.Lines += p.Lines
	}
	return out
}

// foldLine decodes one line and joins it in. An unknown op is kept; any
// other error marks the line corrupt (jsonl.Scan records it).
func (l *Log) foldLine(n int, line []byte) error {
	l.Lines++
	var e Event
	if err := l.dec.decode(line, &e); err != nil {
		l.keep(n, line, true)
		return errors.New(jsonMsg(err))
	}
	if e.ID == "" {
		l.keep(n, line, true)
		return fmt.Errorf("no \"id\"")
	}
	s, err := fromEvent(&e, lineID(line))
	if errors.Is(err, errUnknownOp) {
		l.keep(n, line, false)
		return nil
	}
	if err != nil {
		l.keep(n, line, true)
		return fmt.Errorf("%s %q: %v", opName(e.Op), e.ID, err)
	}
	l.join(s)
	return nil
}

func (l *Log) keep(n int, line []byte, corrupt bool) {
	l.Kept = append(l.Kept, KeptLine{N: n, Raw: append([]byte(nil), line...), Corrupt: corrupt})
}

// Join folds one state (from an event being recorded, say) into the log.
func (l *Log) join(s *State) {
	if cur, ok := l.states[s.ID]; ok {
		cur.join(s)
		return
	}
	l.states[s.ID] = s
}

// Apply folds events into the log in memory, as if they had been read.
func (l *Log) Apply(events ...*Event) error {
	for _, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		s, err := fromEvent(e, lineID(b))
		if err != nil {
			return fmt.Errorf("%s %q: %w", opName(e.Op), e.ID, err)
		}
		l.join(s)
	}
	return nil
}

// Has reports whether id has any state in the log.
func (l *Log) Has(id string) bool { _, ok := l.states[id]; return ok }

// TypeOf returns the type recorded for id, if any.
func (l *Log) TypeOf(id string) string {
	if s, ok := l.states[id]; ok {
		return s.Type
	}
	return ""
}

// IDs lists every id in the log, sorted.
func (l *Log) IDs() []string {
	ids := make([]string, 0, len(l.states))
	for id := range l.states {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// lineID names a line that has no event id: the hash of its bytes, so the
// same line read twice (a duplicate after a merge) is the same fact.
func lineID(line []byte) string {
	sum := sha256.Sum256(line)
	return "line_" + hex.EncodeToString(sum[:8])
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
