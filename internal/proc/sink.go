package proc

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrLimit is the error of a Limit sink that was given more than it keeps.
var ErrLimit = errors.New("output over its limit")

// Limit keeps everything up to Max bytes and refuses more: for output
// that is useless once cut (a JSON answer), so the command is stopped.
type Limit struct {
	Max int
	buf []byte
}

func (l *Limit) Write(p []byte) (int, error) {
	if len(l.buf)+len(p) > l.Max {
		return 0, ErrLimit
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// Bytes is what was kept.
func (l *Limit) Bytes() []byte { return l.buf }

// Tail keeps the last Max bytes written.
type Tail struct {
	Max int
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.Max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.Max:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string { return string(t.buf) }

// HeadTail keeps the first Head and the last TailMax bytes of an output of
// any size and counts what it dropped between them: for a test run's log,
// whose first lines say what ran and whose last lines say what failed. It
// never refuses, so a verbose command is never stopped for its verbosity.
type HeadTail struct {
	Head, TailMax int
	head          []byte
	tail          Tail
	total         int64
}

func (h *HeadTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.Head - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		h.tail.Max = h.TailMax
		h.tail.Write(p)
	}
	return n, nil
}

// Total is the number of bytes written.
func (h *HeadTail) Total() int64 { return h.total }

// Dropped is the number of bytes between the head and the tail that were
// not kept.
func (h *HeadTail) Dropped() int64 {
	return h.total - int64(len(h.head)) - int64(len(h.tail.buf))
}

// String is the head, a line naming what was left out when something was,
// and the tail.
//
// Where it left something out, the head ends and the tail begins at a line
// (or a space) near the cut, never inside a character or a word: half a
// character is not text the stores take, and half a secret is one no
// redaction rule recognises.
func (h *HeadTail) String() string {
	if d := h.Dropped(); d > 0 {
		head, tail := cutBack(h.head), cutForward(h.tail.buf)
		d += int64(len(h.head) - len(head) + len(h.tail.buf) - len(tail))
		return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", head, d, tail)
	}
	return string(h.head) + string(h.tail.buf)
}

// cutBack is b without what follows its last line end or space in its
// last half, or else without a character cut short at its end.
func cutBack(b []byte) []byte {
	from := len(b) - len(b)/2
	if i := bytes.LastIndexByte(b[from:], '\n'); i >= 0 {
		return b[:from+i+1]
	}
	if i := bytes.LastIndexAny(b[from:], " \t\r"); i >= 0 {
		return b[:from+i+1]
	}
	for n := 0; n < utf8.UTFMax && len(b) > 0; n++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

// cutForward is b from after its first line end or space in its first
// half, or else from its first whole character.
func cutForward(b []byte) []byte {
	to := len(b) / 2
	if i := bytes.IndexByte(b[:to], '\n'); i >= 0 {
		return b[i+1:]
	}
	if i := bytes.IndexAny(b[:to], " \t\r"); i >= 0 {
		return b[i+1:]
	}
	for n := 0; n < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); n++ {
		b = b[1:]
	}
	return b
}
