package observe

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// The fold of a whole log file maps it rather than reading it into fresh
// memory: it allocates less than the fold of the same bytes read from a
// reader by about the log's size, and folds to the same state. A guard of
// the first-run render's speed that does not time anything.
func TestFreshFoldMapsTheLog(t *testing.T) {
	data := devflowLog(4_000)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	allocated := func(fold func() *Log) (*Log, uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := fold()
		runtime.ReadMemStats(&after)
		return l, after.TotalAlloc - before.TotalAlloc
	}
	read, readBytes := allocated(func() *Log {
		l, err := Fold(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
	mapped, mappedBytes := allocated(func() *Log {
		l, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
	if _, _, ok := mapFile(mustOpen(t, path), int64(len(data))); !ok {
		t.Skip("no mapping of files here")
	}
	if int64(readBytes)-int64(mappedBytes) < int64(len(data))*3/4 {
		t.Fatalf("the fold of a %d-byte file allocated %d bytes, the fold of the same bytes read %d: the file was copied", len(data), mappedBytes, readBytes)
	}
	if read.Lines != mapped.Lines || !reflect.DeepEqual(read.IDs(), mapped.IDs()) {
		t.Fatalf("mapped fold: %d lines, %d ids; read: %d lines, %d ids", mapped.Lines, len(mapped.IDs()), read.Lines, len(read.IDs()))
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A log cut short in place while it is mapped faults where it is read past
// its new end: the fold says so (the caller reads the log again) rather
// than the process dying of SIGBUS.
func TestFoldOfALogCutShortUnderItsMapping(t *testing.T) {
	data := devflowLog(4_000)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f := mustOpen(t, path)
	m, unmap, ok := mapFile(f, int64(len(data)))
	if !ok {
		t.Skip("no mapping of files here")
	}
	defer unmap()
	if err := mustOpenRW(t, path).Truncate(0); err != nil {
		t.Fatal(err)
	}
	// Folded apart, and joined into a log where it is cut (a tail after
	// the fold cache).
	for _, into := range []*Log{nil, NewLog()} {
		h := &prefixHash{}
		if _, err := foldInto(into, &mappedLog{data: m}, 1, h.add); err != errMapFault {
			t.Fatalf("fold of a mapping cut short (into a log: %v): %v, want errMapFault", into != nil, err)
		}
	}
}

func mustOpenRW(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A log cut short while foldFile folds it from its mapping is folded
// again from a read: what seen was shown is started over (reset), and the
// log is the log as it now is, not a crash or the half folded before.
func TestFoldFileReadsALogCutShortUnderItsMapping(t *testing.T) {
	data := devflowLog(4_000)
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f := mustOpen(t, path)
	if _, unmap, ok := mapFile(f, int64(len(data))); !ok {
		t.Skip("no mapping of files here")
	} else {
		unmap()
	}
	rw := mustOpenRW(t, path)
	cut, resets, shown := false, 0, 0
	seen := func(part []byte, final bool) {
		if !cut {
			cut = true
			// What is left is one whole line: the pages the mapping
			// held past it are gone.
			first := bytes.IndexByte(data, '\n') + 1
			if err := rw.Truncate(int64(first)); err != nil {
				t.Fatal(err)
			}
			return
		}
		shown += len(part)
	}
	l, err := foldFile(f, seen, func() { resets++ })
	if err != nil {
		t.Fatal(err)
	}
	if resets != 1 || l.Lines != 1 || shown != bytes.IndexByte(data, '\n')+1 {
		t.Fatalf("after the log was cut to one line: %d resets, %d lines folded, %d bytes shown; want 1, 1, %d", resets, l.Lines, shown, bytes.IndexByte(data, '\n')+1)
	}
}
