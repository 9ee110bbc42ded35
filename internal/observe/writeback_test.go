package observe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/jsonl"
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

// cacheHeaderOf reads the header of the fold cache c (its CRC checked).
func cacheHeaderOf(t *testing.T, c FoldCache) cacheHeader {
	t.Helper()
	data, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := decodeHeader(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A run that appends to the log it read (render-ready) writes the cache
// once at its end, through its own lines; but a line another writer
// appended between the read and the append, or among the appends, or
// after them, is never named by the cache as folded: the cache covers
// what was folded and stops where the chain breaks. Whatever happened,
// the log read through the cache afterwards is the log's fresh fold.
func TestAppendToClaimsOnlyWhatItFolded(t *testing.T) {
	defer func(v int64) { cacheMinTail = v }(cacheMinTail)
	ctx := context.Background()
	foreign := func(t *testing.T, st Store) {
		t.Helper()
		if err := jsonl.Append(ctx, st.Root, st.Path, st.LockPath, []byte(`{"op":"observe","eid":"e_foreign","at":"2026-04-09T06:00:00Z","src":"codex","id":"obs_00000003","type":"pitfall","pattern":"a sighting from another process"}`)); err != nil {
			t.Fatal(err)
		}
	}
	size := func(t *testing.T, st Store) int64 {
		fi, err := os.Stat(st.Path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	events := func(i int) (evs []*Event) { // a render's lines: over an eighth of the log
		for k := 0; k < 100; k++ {
			id := fmt.Sprintf("obs_%08x", 100*i+k)
			evs = append(evs,
				NewEvent(OpIntent, id, day(9), "render", func(e *Event) { e.Seq, e.Path = 1, "lesson.md" }),
				NewEvent(OpCreated, id, day(9), "render", func(e *Event) { e.Seq, e.Path = 2, "lesson.md" }))
		}
		return evs
	}
	for _, c := range []struct {
		name   string
		cached bool // the log was read through a cache (else folded afresh)
		// when the foreign line lands: before the first append, between
		// the two, after both, or never
		foreignAt int
		// wantAll: the cache covers the whole log; else it ends where
		// the foreign line begins, or is not written again
		wantAll bool
	}{
		{"fresh, nothing else", false, -1, true},
		{"fresh, a line before", false, 0, false},
		{"fresh, a line between", false, 1, false},
		{"fresh, a line after", false, 2, false},
		{"cached, nothing else", true, -1, true},
		{"cached, a line before", true, 0, false},
		{"cached, a line between", true, 1, false},
		{"cached, a line after", true, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cacheMinTail = 0
			dir := t.TempDir()
			st := Store{Root: dir, Path: filepath.Join(dir, "log.jsonl"), LockPath: filepath.Join(dir, "log.lock"),
				Cache: FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}}
			earlier, appended := sessionEndLog(400)
			if c.cached {
				cachedThenAppended(t, st.Path, st.Cache, earlier, appended)
			} else if err := os.WriteFile(st.Path, append(earlier, appended...), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := st.LoadToAppend()
			if err != nil {
				t.Fatal(err)
			}
			end := int64(-1) // where the chain of what was folded breaks
			for i := 0; i < 2; i++ {
				if c.foreignAt == i {
					end = size(t, st)
					foreign(t, st)
				}
				if err := st.AppendTo(ctx, l, events(100+i)...); err != nil {
					t.Fatal(err)
				}
			}
			if c.foreignAt == 2 {
				end = size(t, st)
				foreign(t, st)
			}
			if c.wantAll {
				end = size(t, st)
			}
			if c.cached && c.foreignAt == 0 {
				end = -1 // only the session's few lines folded beyond the cache: not due
			}
			st.WriteBack(l)
			h := cacheHeaderOf(t, st.Cache)
			if end >= 0 && h.size != end {
				t.Fatalf("the cache covers %d bytes, want %d (the log is %d)", h.size, end, size(t, st))
			}
			if end < 0 && h.size != int64(len(earlier)) {
				t.Fatalf("the cache covers %d bytes, want the %d it did", h.size, len(earlier))
			}
			fresh, err := LoadFile(st.Path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.Load()
			if err != nil {
				t.Fatal(err)
			}
			if canonical(got) != canonical(fresh) {
				t.Fatal("the log read through the cache differs from a fresh fold")
			}
			if c.wantAll && got.src.cached != got.src.h.n {
				t.Fatalf("the next read folded %d bytes beyond the cache", got.src.h.n-got.src.cached)
			}
		})
	}
}

// A damaged record of a state the appended lines touch, met while they
// are joined into the log read through the cache: the log is folded
// afresh through those lines, what it holds is the log's fold, and the
// cache written back is whole.
func TestAppendToOverADamagedRecord(t *testing.T) {
	defer func(v int64) { cacheMinTail = v }(cacheMinTail)
	cacheMinTail = 0
	dir := t.TempDir()
	st := Store{Root: dir, Path: filepath.Join(dir, "log.jsonl"), LockPath: filepath.Join(dir, "log.lock"),
		Cache: FoldCache{Root: dir, Path: filepath.Join(dir, "state", "fold")}}
	earlier, appended := sessionEndLog(4_000)
	cachedThenAppended(t, st.Path, st.Cache, earlier, appended)
	data, err := os.ReadFile(st.Cache.Path)
	if err != nil {
		t.Fatal(err)
	}
	start, end, _ := cacheRecord(t, data, "obs_00000010")
	data[(start+end)/2] ^= 0x5a
	if err := os.WriteFile(st.Cache.Path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := st.LoadToAppend()
	if err != nil {
		t.Fatal(err)
	}
	var evs []*Event
	for i := 0; i < 600; i++ { // over an eighth of the log: due
		id := fmt.Sprintf("obs_%08x", i)
		evs = append(evs, NewEvent(OpCreated, id, day(9), "render", func(e *Event) { e.Seq, e.Path = 2, "lesson.md" }))
	}
	if err := st.AppendTo(context.Background(), l, evs...); err != nil {
		t.Fatal(err)
	}
	fresh, err := LoadFile(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(l) != canonical(fresh) {
		t.Fatal("the log appended to over a damaged record differs from a fresh fold")
	}
	st.WriteBack(l)
	again, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if canonical(again) != canonical(fresh) {
		t.Fatal("the cache written back differs from a fresh fold")
	}
}
