package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Problem is a line that could not be used. It is reported, never fatal.
type Problem struct {
	Line int    // 1-based
	Torn bool   // the last line, cut off by a writer that is still writing or crashed
	Err  error  // what was wrong with it
	Text string // the start of the line, for the user to recognise it
}

func (p Problem) Error() string {
	if p.Torn {
		return fmt.Sprintf("line %d: torn last line (a writer stopped mid-line): %v", p.Line, p.Err)
	}
	return fmt.Sprintf("line %d: %v", p.Line, p.Err)
}

// Stop, returned by a line function, ends the scan early without error.
var Stop = errors.New("stop scanning")

// Fatal wraps an error from a line function that must end the scan and be
// returned, rather than mark the line as bad.
type Fatal struct{ Err error }

func (f Fatal) Error() string { return f.Err.Error() }
func (f Fatal) Unwrap() error { return f.Err }

// Scan calls fn for every non-blank line of r, with its 1-based number. A
// line fn rejects (any error but Stop or Fatal) becomes a Problem and the
// scan goes on. Lines may be of any length; memory stays at the longest
// line. A last line without a newline is accepted if fn accepts it, and is
// reported as torn otherwise.
//
// The slice passed to fn is only valid until fn returns.
func Scan(r io.Reader, fn func(n int, line []byte) error) ([]Problem, error) {
	return ScanFrom(r, 1, fn)
}

// ScanFrom is Scan over a part of a file that starts at line number first,
// so that a file split among workers still reports its own line numbers.
func ScanFrom(r io.Reader, first int, fn func(n int, line []byte) error) ([]Problem, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	var problems []Problem
	var long []byte
	for n := first; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return problems, err
		}
		eof := errors.Is(err, io.EOF)
		if done, err := scanLine(&problems, n, line, eof, fn); done || err != nil {
			return problems, err
		}
		if eof {
			return problems, nil
		}
	}
}

// ScanBytes is ScanFrom over lines already in memory, read in place: data
// holds whole lines, the first numbered first; its last line may lack its
// newline only when final (the end of the file), and is then torn if fn
// rejects it. fn's slice is a part of data.
func ScanBytes(data []byte, first int, final bool, fn func(n int, line []byte) error) ([]Problem, error) {
	var problems []Problem
	for n := first; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		last := len(data) == 0 && final
		if done, err := scanLine(&problems, n, line, last, fn); done || err != nil {
			return problems, err
		}
	}
	return problems, nil
}

// scanLine passes one line (with its newline, if any) to fn and records
// a problem when fn rejects it; done is true when fn asked to stop.
func scanLine(problems *[]Problem, n int, line []byte, last bool, fn func(n int, line []byte) error) (done bool, err error) {
	torn := last && len(line) > 0 && line[len(line)-1] != '\n'
	body := bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return false, nil
	}
	ferr := fn(n, body)
	if ferr == nil {
		return false, nil
	}
	// fatal is declared here, not per line: errors.As makes it escape,
	// and a heap allocation per line is most of what a fast reader would
	// allocate.
	var fatal Fatal
	switch {
	case errors.Is(ferr, Stop):
		return true, nil
	case errors.As(ferr, &fatal):
		return true, fatal.Err
	}
	*problems = append(*problems, Problem{Line: n, Torn: torn, Err: ferr, Text: preview(body)})
	return false, nil
}

// ScanFile is Scan over the file at path; a missing file is ErrNotExist.
func ScanFile(path string, fn func(n int, line []byte) error) ([]Problem, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotExist
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Scan(f, fn)
}

func preview(b []byte) string {
	const max = 60
	if len(b) <= max {
		return string(b)
	}
	return string(b[:max]) + "…"
}
