package observe

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"
)

// mappedLog is a log file mapped into memory, which foldInto folds in
// place: reading a log of a few megabytes into fresh memory costs a page
// fault for every 4 KiB and a copy of every byte, more than half of what
// a process folding it spends beside the fold itself on this kind of
// machine (a virtual one, where a fault is dear); the mapping of what
// the page cache holds costs a fault for every few pages and no copy
// (TestFreshFoldMapsTheLog; BenchmarkLoadCachedFirstRun).
type mappedLog struct {
	data    []byte
	off     int
	faulted atomic.Bool
}

// Len is how many bytes are left to fold (sizeOf).
func (m *mappedLog) Len() int { return len(m.data) - m.off }

// Read is never called (foldInto takes the mapping's parts as slices):
// it is there for foldInto's io.Reader.
func (m *mappedLog) Read(p []byte) (int, error) {
	n := copy(p, m.data[m.off:])
	m.off += n
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// maxMapped is the longest log folded from a mapping: a longer one is
// read a part at a time, so that what the process holds of it stays a
// few parts, not the whole file (BenchmarkFoldLog's 100 MB and 1 GB).
const maxMapped = 4 * partSize

// errMapFault: the mapped file was cut short while it was folded (a
// fault reading past its new end); the caller folds it again from a read.
var errMapFault = errors.New("the log was cut short while it was read")

// touch runs fn, which reads the mapping, on this goroutine; false when
// reading it faulted.
func (m *mappedLog) touch(fn func()) (ok bool) {
	defer catchFault(&ok, debug.SetPanicOnFault(true))
	fn()
	return true
}

// foldFile folds the whole log f, from its start, mapped when it can be
// (up to maxMapped) and read otherwise (another system, an empty file, a fault under the
// mapping); seen is shown every part folded, and reset is called before
// the log is read again after a fault, for seen to start over.
func foldFile(f *os.File, seen func(data []byte, final bool), reset func()) (*Log, error) {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxMapped {
		if data, unmap, ok := mapFile(f, fi.Size()); ok {
			// The fold keeps no byte of what it read (decoder.views):
			// the mapping goes when the fold is done.
			l, err := foldInto(nil, &mappedLog{data: data}, 1, seen)
			unmap()
			if !errors.Is(err, errMapFault) {
				return l, err
			}
			if reset != nil {
				reset()
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return foldFrom(f, 1, seen)
}
