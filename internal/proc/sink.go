package proc

import (
	"errors"
	"fmt"
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
func (h *HeadTail) String() string {
	if d := h.Dropped(); d > 0 {
		return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", h.head, d, h.tail.buf)
	}
	return string(h.head) + string(h.tail.buf)
}
