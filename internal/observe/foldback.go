package observe

import (
	"context"
	"os"

	"github.com/devlearn/devlearn/internal/jsonl"
)

// A run that appends to the log it folded (render-ready: its intent,
// created and flag events) can fold its own lines into what it read and
// write the fold cache once, at its end, covering them: the run after it
// (the reconcile after a bulk render, the next session's hooks) then
// folds nothing of them, where it used to fold the render's 1,600 lines
// again on every run until the tail grew to an eighth of the log.
//
// The cache only ever names bytes that were folded: the bytes read (and
// checked against the cache they were read through), then the lines the
// run wrote itself, and only when the append landed right after the
// bytes read, in the same file, with nothing else in between or among
// them (jsonl.Span). Lines another process appended first break the
// chain: the cache then names what was read, as it would have. Whether
// the log still begins with what a cache names is checked by every
// reader anyway (foldcache.go); this is what keeps the claim true.

// foldSource is what a log read from its file folded: the bytes [0, h.n)
// of the file at path (file; size, when the fold read a last line without
// its newline beyond them), and how much of them the cache on disk
// already holds (cached, 0 for none). Anything that changes the log in
// memory other than folding its own file's bytes (Apply, a compaction's
// forgetting, a refold after a damaged record) drops it: the log is then
// no longer the fold of those bytes, and is never written as their cache.
type foldSource struct {
	path    string
	cache   FoldCache
	program string
	h       prefixHash
	size    int64
	file    os.FileInfo
	cached  int64
}

// refold folds the log afresh as it was read (and appended to through
// it), for a log whose cached record was found damaged (lazyStates).
func (s *foldSource) refold() *Log { return refold(s.path, s.cache, s.program, s.h, s.size) }

func stat(f *os.File) os.FileInfo {
	fi, _ := f.Stat()
	return fi
}

// due says whether the cache is to be written: there is none for these
// bytes, or what was folded beyond it is long enough to be worth a new
// file (a tail shorter than cacheMinTail and than an eighth of the prefix
// is folded on every run instead, so that a session's few lines do not
// rewrite the whole cache each time).
func (s *foldSource) due() bool {
	if s.h.n == 0 || s.h.open {
		return false
	}
	grown := s.h.n - s.cached
	return s.cached == 0 || grown >= cacheMinTail && grown >= s.cached/8
}

// writeBack writes the cache of l when it is due, once.
func writeBack(l *Log) {
	s := l.src
	if s == nil || !s.due() {
		return
	}
	save(s.cache, s.h.header(s.program), l)
	if l.src == s {
		s.cached = s.h.n
	}
}

// LoadToAppend is Load for a run that appends to the log (AppendTo) and
// calls WriteBack when it is done: the cache is written then, once,
// covering the lines it appended, rather than now and again.
func (st Store) LoadToAppend() (*Log, error) {
	if st.Cache.Path == "" {
		return LoadFile(st.Path)
	}
	return loadCached(st.Path, st.Cache)
}

// WriteBack writes the fold cache of a log LoadToAppend read, when it is
// due (as a Load would have); failing to is only slower next time.
func (st Store) WriteBack(l *Log) {
	if l != nil {
		writeBack(l)
	}
}

// AppendTo is Append for the log l LoadToAppend read from st: when the
// lines land right after the bytes l folded, they are folded into l too,
// so that WriteBack's cache covers them.
func (st Store) AppendTo(ctx context.Context, l *Log, events ...*Event) error {
	lines, err := encodeAll(events)
	if err != nil {
		return err
	}
	span, err := jsonl.AppendSpan(ctx, st.Root, st.Path, st.LockPath, lines...)
	if err != nil || len(lines) == 0 {
		return err
	}
	s := l.src
	if s == nil || s.h.open || span.Start != s.h.n || s.file == nil || !os.SameFile(s.file, span.File) {
		return nil
	}
	data := make([]byte, 0, span.End-span.Start)
	for _, line := range lines {
		data = append(append(data, line...), '\n')
	}
	if int64(len(data)) != span.End-span.Start {
		return nil
	}
	s.extend(l, data)
	return nil
}

// extend folds data, the bytes of the log right after those l folded,
// into l, and adds them to what l folded.
func (s *foldSource) extend(l *Log, data []byte) {
	tail := NewLog()
	tail.foldPart(data, s.h.lines+1, true)
	// From here a damaged record met while the states are joined folds
	// the file afresh through these lines (s.refold), when it still
	// begins with the bytes hashed.
	s.h.add(data, true)
	s.size = s.h.n
	for _, st := range tail.states {
		l.join(st)
		if l.src != s {
			return // folded afresh (damaged): the fold holds these lines already
		}
	}
	l.Kept = append(l.Kept, tail.Kept...)
	l.Problems = append(l.Problems, tail.Problems...)
	l.Lines += tail.Lines
}
