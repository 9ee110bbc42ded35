package observe

import (
	"os"
	"testing"
)

// A tail long enough to be written back, over a cache one of whose records
// (a state the tail does not touch) is damaged: writing the cache decodes
// every state, meets the damaged record, and must then write nothing
// rather than a cache that names the whole log without that state.
func TestWriteBackOverADamagedRecordWritesNothingWrong(t *testing.T) {
	defer func(v int64) { cacheMinTail = v }(cacheMinTail)
	cacheMinTail = 0
	dir := t.TempDir()
	path, cache := sessionEnd(t, dir, 4_000)
	earlier, _ := sessionEndLog(1_000) // the first thousand states sighted again: over 1/8 of the prefix
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(earlier)
	f.Close()
	data, err := os.ReadFile(cache.Path)
	if err != nil {
		t.Fatal(err)
	}
	start, end, _ := cacheRecord(t, data, "obs_00000f00") // not in the tail
	data[(start+end)/2] ^= 0x5a
	if err := os.WriteFile(cache.Path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCached(path, cache); err != nil { // writes the cache back
		t.Fatal(err)
	}
	l, err := LoadCached(path, cache)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(l) != canonical(fresh) {
		t.Fatal("the cache written back over a damaged record is not the log's fold")
	}
}
