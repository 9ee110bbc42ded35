package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/stamp"
)

// manyEntries writes n entries, each applying to Writes of its own
// folder, into the store's entry folder.
func (s *store) manyEntries(n int) {
	s.t.Helper()
	os.MkdirAll(s.dir(), 0o755)
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("---\nsummary: Lesson %d\ntriggers:\n  tools: [Write]\n  files: [\"src/m%d/**\"]\n---\nbody %d\n", i, i, i)
		if err := os.WriteFile(filepath.Join(s.dir(), fmt.Sprintf("e%05d.md", i)), []byte(body), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
}

// stampsOf counts the stat calls a hook's read of the cache makes.
func (s *store) stampsOf(call *Call) (int64, *Set) {
	s.t.Helper()
	before := stamp.Taken()
	set, err := Candidates(s.src, s.cache, call)
	if err != nil {
		s.t.Fatal(err)
	}
	return stamp.Taken() - before, set
}

// A hook's check of the cache stamps the entry folders and the two
// knowledge files, never each entry: the same count at 100 entries as at
// 3,000.
func TestHookCheckDoesNotGrowWithEntries(t *testing.T) {
	call := &Call{Tool: "Write", Paths: []string{"src/m7/x.go"}, FileScoped: true}
	var counts []int64
	for _, n := range []int{100, 3000} {
		s := newStore(t)
		s.manyEntries(n)
		s.age()
		s.load(Full)
		got, set := s.stampsOf(call)
		if set.Rebuilt || set.Find("e00007", "") == nil {
			t.Fatalf("%d entries: rebuilt %v, %d candidates without e00007", n, set.Rebuilt, len(set.Items))
		}
		counts = append(counts, got)
	}
	if want := int64(len(newStore(t).src.entryDirs()) + 2); counts[0] != want || counts[1] != want {
		t.Fatalf("stat calls per hook at 100 and 3,000 entries: %v, want %d each (the folders and the two knowledge files)", counts, want)
	}
}

// Right after an entry is written, its folder's stamp cannot prove the
// folder unchanged, so the next hook reads the folder again and writes the
// cache. Once the stamp is older than its file system's granularity and
// the clock's tick (milliseconds on ext4 or tmpfs, two seconds on a file
// system that keeps seconds), that cache is trusted: the hooks after it do
// not stat every entry for seconds.
func TestCacheTrustedOnceTheChangeIsSettled(t *testing.T) {
	s := newStore(t)
	s.manyEntries(1000)
	s.load(Quick) // the folder was written just now: racy
	time.Sleep(stamp.Window(stamp.Of(s.dir())) + 20*time.Millisecond)
	call := &Call{Tool: "Write", Paths: []string{"src/m7/x.go"}, FileScoped: true}
	s.stampsOf(call) // reads the folder again, settled now, and keeps it
	if got, set := s.stampsOf(call); got > 5 || set.Rebuilt {
		t.Fatalf("the hook after a settled change made %d stat calls (rebuilt %v), want at most 5", got, set.Rebuilt)
	}
}

// An entry written while the cache was built can be edited again in the
// same clock tick with the same size, keeping its stamp: its record is
// smudged, so the next check reads it again rather than trust the stamp
// (git's racy entries). Session start (Full) sees the edit.
func TestRacyEntryIsReadAgain(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.age()
	path := s.racy("a")
	s.load(Full)
	fi, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f.WriteAt([]byte(strings.Replace(string(data), "summary: Entry a", "summary: Entry z", 1)), 0)
	f.Close()
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	if after, _ := os.Stat(path); after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the edit changed the stamp; the test needs one that keeps it")
	}
	set := s.load(Full)
	it := set.Find("a", "")
	if it == nil || it.Detail == nil || it.Detail.Title != "Entry z" {
		t.Fatalf("an edit in the tick the cache was built in is not seen: %+v", it)
	}
}
