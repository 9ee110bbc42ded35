package knowledge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/words"
)

// store is a project with entries whose folder times are set an hour back,
// so that the cache trusts them (nothing is racy).
type store struct {
	t     *testing.T
	root  string
	cache string
	src   Sources
}

func newStore(t *testing.T) *store {
	s := &store{t: t, root: t.TempDir()}
	s.cache = filepath.Join(s.root, "state", "cache.bin")
	s.src = Sources{Root: s.root, GlobalDir: filepath.Join(s.root, "home", "knowledge", "entries")}
	return s
}

func (s *store) dir() string { return filepath.Join(s.root, ".memory", "knowledge", "entries") }

func (s *store) write(key, status string) {
	s.t.Helper()
	os.MkdirAll(s.dir(), 0o755)
	body := "---\nsummary: Entry " + key + "\nstatus: " + status + "\ntriggers:\n  tools: [Write]\n---\nbody of " + key + "\n"
	if err := os.WriteFile(filepath.Join(s.dir(), key+".md"), []byte(body), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// age sets every watched folder and file, and the entry files, an hour
// back, as if the last change was long ago.
func (s *store) age() {
	old := time.Now().Add(-time.Hour)
	paths := []string{s.dir(), s.src.GlobalDir, filepath.Join(s.root, ".memory/knowledge/decisions.md"), filepath.Join(s.root, ".memory/knowledge/pitfalls.md")}
	entries, _ := filepath.Glob(filepath.Join(s.dir(), "*.md"))
	for _, p := range append(paths, entries...) {
		os.Chtimes(p, old, old)
	}
}

// racy stamps the entry key a second ahead, as if written in the tick a
// cache is built in, and returns its path.
func (s *store) racy(key string) string {
	path := filepath.Join(s.dir(), key+".md")
	soon := time.Now().Add(time.Second)
	os.Chtimes(path, soon, soon)
	return path
}

func (s *store) load(mode Mode) *Set {
	s.t.Helper()
	set, err := Load(s.src, s.cache, mode)
	if err != nil {
		s.t.Fatal(err)
	}
	return set
}

func ids(set *Set) string {
	var out []string
	for _, it := range set.Items {
		out = append(out, it.ID+"="+it.Status)
	}
	return strings.Join(out, " ")
}

func TestCacheIsTrustedWhileNothingChanges(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.write("b", "active")
	s.age()
	first := s.load(Quick)
	if !first.Rebuilt || ids(first) != "a=active b=active" {
		t.Fatalf("first load: rebuilt %v, %s", first.Rebuilt, ids(first))
	}
	again := s.load(Quick)
	if again.Rebuilt || ids(again) != ids(first) {
		t.Fatalf("second load: rebuilt %v, %s", again.Rebuilt, ids(again))
	}
	if again.Items[0].Match.Tools[0] != "Write" || again.Items[0].Path != ".memory/knowledge/entries/a.md" {
		t.Fatalf("cached item %+v", again.Items[0])
	}
}

func TestCacheSeesAddedAndDeletedEntries(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.write("b", "active")
	s.age()
	s.load(Quick)

	os.Remove(filepath.Join(s.dir(), "a.md"))
	if set := s.load(Quick); !set.Rebuilt || ids(set) != "b=active" {
		t.Fatalf("after delete: rebuilt %v, %s", set.Rebuilt, ids(set))
	}
	s.age()
	s.write("c", "active")
	if set := s.load(Quick); ids(set) != "b=active c=active" {
		t.Fatalf("after add: %s", ids(set))
	}
}

// An entry archived by editing its file in place (the folder unchanged)
// may still be in a Quick load, but never in what is served: Current reads
// the file again. A Full load sees it at once.
func TestArchivedInPlaceIsNeverServed(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.age()
	s.load(Quick)
	s.write("a", "archived")
	s.age()
	quick := s.load(Quick)
	it := quick.Find("a", "")
	fresh, _, err := s.src.Current(it)
	if err != nil || fresh.Active {
		t.Fatalf("Current after archiving: %+v, %v", fresh, err)
	}
	if full := s.load(Full); ids(full) != "a=archived" {
		t.Fatalf("full load: %s", ids(full))
	}
	os.Remove(filepath.Join(s.dir(), "a.md"))
	if _, _, err := s.src.Current(it); err == nil {
		t.Fatal("Current of a deleted entry succeeded")
	}
}

// An entry whose file still has the stamp it was read with is shown from
// the cache's item: only its body is read again, its YAML is not parsed.
// Once the file's stamp moves, it is read whole, as Current reads it.
func TestShownReadsOnlyTheBodyOfAnUnchangedEntry(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.age()
	it := s.load(Quick).Find("a", "")
	if it == nil || !it.File.Exists {
		t.Fatalf("a settled entry's item has no stamp: %+v", it)
	}
	path := filepath.Join(s.dir(), "a.md")
	fi, _ := os.Stat(path)
	data, _ := os.ReadFile(path)
	// The body rewritten in place, the stamp kept: the body shown is the
	// file's, the rest the item's, with no entry parsed.
	os.WriteFile(path, []byte(strings.Replace(string(data), "body of a", "BODY OF A", 1)), 0o644)
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	fresh, shown, err := s.src.Shown(it)
	if err != nil || fresh != it || shown.Entry != nil || shown.Summary != "Entry a" || shown.Body != "BODY OF A\n" {
		t.Fatalf("unchanged stamp: %+v, %+v, %v", fresh, shown, err)
	}
	// Archived: another size, another stamp; the item held is stale, so
	// the file is read and parsed as Current reads it.
	s.write("a", "archived")
	fresh, shown, err = s.src.Shown(it)
	if err != nil || fresh.Active || shown.Entry == nil {
		t.Fatalf("archived in place: %+v, %+v, %v", fresh, shown, err)
	}
}

// An entry read in the tick its cache was built in has no stamp to trust:
// it is shown from its file, parsed.
func TestRacyEntryIsShownFromItsFile(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.age()
	s.racy("a")
	it := s.load(Full).Find("a", "")
	if it == nil || it.File.Exists {
		t.Fatalf("a racy entry's item holds a stamp: %+v", it)
	}
	if _, shown, err := s.src.Shown(it); err != nil || shown.Entry == nil {
		t.Fatalf("a racy entry was not read whole: %+v, %v", shown, err)
	}
}

func TestCacheRacyFolderIsRechecked(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	// The folder changed as the cache was being built: the cache cannot
	// tell a change within the same timestamp, so it is not trusted yet.
	soon := time.Now().Add(time.Second)
	os.Chtimes(s.dir(), soon, soon)
	s.load(Quick)
	if set := s.load(Quick); !set.Rebuilt {
		t.Fatal("a cache written right after a change was trusted")
	}
}

func TestBrokenCacheIsRebuilt(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.age()
	s.load(Quick)
	good, _ := os.ReadFile(s.cache)
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)/2],
		"flipped":   flip(good, len(good)-3),
		"garbage":   []byte("DLKC\x01garbage"),
		"old":       append([]byte("DLKC\x00"), good[5:]...),
	} {
		os.WriteFile(s.cache, data, 0o644)
		set := s.load(Quick)
		if !set.Rebuilt || ids(set) != "a=active" {
			t.Errorf("%s: rebuilt %v, %s", name, set.Rebuilt, ids(set))
		}
	}
	// A cache that cannot be written is done without.
	os.Remove(s.cache)
	os.MkdirAll(s.cache, 0o755)
	set, err := Load(s.src, s.cache, Quick)
	if err == nil || ids(set) != "a=active" {
		t.Fatalf("unwritable cache: %v, %s", err, ids(set))
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
}

func TestBrokenEntryDoesNotStopTheOthers(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	os.WriteFile(filepath.Join(s.dir(), "broken.md"), []byte("---\nsummary: s\npriority: SOON\n---\n"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(s.dir(), "link.md"))
	s.write("c", "active")
	s.age()
	for _, mode := range []Mode{Quick, Quick, Full} {
		set := s.load(mode)
		if ids(set) != "a=active c=active" || len(set.Problems) != 2 {
			t.Fatalf("items %s, problems %v", ids(set), set.Problems)
		}
		msgs := set.Problems[0].Error() + "\n" + set.Problems[1].Error()
		if !strings.Contains(msgs, `.memory/knowledge/entries/broken.md:3: priority "SOON" is not one of`) ||
			!strings.Contains(msgs, "link.md: is a symbolic link") {
			t.Fatalf("problems:\n%s", msgs)
		}
	}
}

func TestProjectEntryHidesGlobalOne(t *testing.T) {
	s := newStore(t)
	s.write("shared", "active")
	os.MkdirAll(s.src.GlobalDir, 0o755)
	os.WriteFile(filepath.Join(s.src.GlobalDir, "shared.md"), []byte("---\nsummary: global one\n---\n"), 0o644)
	os.WriteFile(filepath.Join(s.src.GlobalDir, "only-global.md"), []byte("---\nsummary: mine everywhere\n---\n"), 0o644)
	s.age()
	for _, mode := range []Mode{Quick, Quick} {
		set := s.load(mode)
		if ids(set) != "shared=active only-global=active" {
			t.Fatalf("%s", ids(set))
		}
		if it := set.Find("shared", ""); it.Scope != ScopeProject {
			t.Fatalf("shared is %s", it.Scope)
		}
		if g := set.Find("only-global", ""); g.Scope != ScopeGlobal || !filepath.IsAbs(g.Path) {
			t.Fatalf("global item %+v", g)
		}
	}
}

func TestSectionsAreItems(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(filepath.Join(s.root, ".memory/knowledge"), 0o755)
	os.WriteFile(filepath.Join(s.root, ".memory/knowledge/pitfalls.md"), []byte("# Known Pitfalls\n\n## PF-001: Hooks grow\n\n- **Area**: scripts/hooks/\n- **Status**: Active\n- **Source**: self-learning:obs_0123456789ab\n"), 0o644)
	s.age()
	s.load(Quick)
	set := s.load(Quick)
	pf := set.Find("obs_0123456789ab", "")
	if pf == nil || pf.ID != "PF-001" || pf.Priority != "HIGH" || pf.Match.Files[0].Pattern != "**/scripts/hooks/**" || pf.Ref() != "obs:obs_0123456789ab" || !strings.HasPrefix(pf.Text, "## PF-001: Hooks grow") {
		t.Fatalf("%+v", pf)
	}
	// Editing the file is seen at once: its size and time are watched.
	os.WriteFile(filepath.Join(s.root, ".memory/knowledge/pitfalls.md"), []byte("# Known Pitfalls\n\n## PF-001: Hooks grow\n\n- **Status**: Deprecated\n"), 0o644)
	if set := s.load(Quick); set.Items[0].Active {
		t.Fatal("a deprecated pitfall is still active")
	}
}

func FuzzDecodeCache(f *testing.F) {
	root := f.TempDir()
	genEntries(f, root, 3)
	src := Sources{Root: root}
	c := &cacheData{root: root, stamps: src.stamps()}
	recs, _ := scanEntryDir(src.entryDirs()[0], nil, time.Now())
	c.dirs = [][]*record{recs}
	good := encodeCache(c)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(""))
	call := &Call{Tool: "Write", Paths: []string{"src/module1/a.go"}, FileScoped: true, Words: words.NewHaystack("alpha bravo")}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := openFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if c, err := fl.decode(); err == nil {
			c.set()
		}
		fl.candidates(call)
	})
}

// The index is a superset: whatever Rank picks from all the items, it
// picks from the candidates too, for calls of every kind.
func TestCandidatesAreASuperset(t *testing.T) {
	s := newStore(t)
	genEntries(t, s.root, 300)
	os.WriteFile(filepath.Join(s.dir(), "odd.md"), []byte("---\nsummary: odd\ntriggers:\n  files: [\"**/*version*\"]\n---\n"), 0o644)
	os.WriteFile(filepath.Join(s.dir(), "ext.md"), []byte("---\nsummary: ext\ntriggers:\n  files: [\"**/*_test.go\"]\n---\n"), 0o644)
	os.WriteFile(filepath.Join(s.dir(), "ctx.md"), []byte("---\nsummary: ctx\npriority: CRITICAL\ntriggers:\n  context: [staging deploy]\n---\n"), 0o644)
	os.WriteFile(filepath.Join(s.dir(), "toolonly.md"), []byte("---\nsummary: t\ntriggers:\n  tools: [Bash]\n---\n"), 0o644)
	s.age()
	all := s.load(Full)
	o := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
	calls := []*Call{
		{Tool: "Write", Paths: []string{"src/module5/x.go"}, FileScoped: true, Words: words.NewHaystack("golf hotel")},
		{Tool: "Edit", Paths: []string{"pkg/version.txt"}, FileScoped: true, Words: words.NewHaystack("")},
		{Tool: "Edit", Paths: []string{"a/b_test.go"}, FileScoped: true, Words: words.NewHaystack("")},
		{Tool: "Bash", Paths: []string{"src/module7/y.go"}, Words: words.NewHaystack("alpha delta", "the staging deploy")},
		{Prompt: true, Words: words.NewHaystack("kilo lima mike november and a staging deploy")},
	}
	for i, c := range calls {
		want := map[string]bool{}
		for _, sc := range Rank(all.Items, c, o) {
			want[sc.Item.ID] = true
		}
		if len(want) == 0 {
			t.Fatalf("call %d: nothing to compare", i)
		}
		set, err := Candidates(s.src, s.cache, c)
		if err != nil || set.Rebuilt {
			t.Fatalf("call %d: not from the index (rebuilt %v, %v)", i, set.Rebuilt, err)
		}
		got := map[string]bool{}
		for _, sc := range Rank(set.Items, c, o) {
			got[sc.Item.ID] = true
		}
		for id := range want {
			if !got[id] {
				t.Errorf("call %d: %s ranked from all items, missing from the candidates", i, id)
			}
		}
		if len(set.Items) >= len(all.Items)/2 {
			t.Errorf("call %d: %d candidates of %d items: the index does not narrow", i, len(set.Items), len(all.Items))
		}
	}
}

// A Full check that finds every file as it was leaves the cache alone; one
// that finds a change writes it.
func TestFullCheckWritesOnlyChanges(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.age()
	s.load(Full)
	old := time.Now().Add(-30 * time.Minute) // after the folders' times, so nothing is racy
	os.Chtimes(s.cache, old, old)
	s.load(Full)
	if fi, _ := os.Stat(s.cache); !fi.ModTime().Equal(old) {
		t.Fatal("an unchanged store rewrote the cache")
	}
	s.write("a", "archived")
	s.age()
	s.load(Full)
	if fi, _ := os.Stat(s.cache); fi.ModTime().Equal(old) {
		t.Fatal("an entry edited in place did not rewrite the cache")
	}
	if set := s.load(Quick); set.Rebuilt || ids(set) != "a=archived" {
		t.Fatalf("after the Full check: rebuilt %v, %s", set.Rebuilt, ids(set))
	}
}

// A new DEVLEARN_HOME (another global folder) reads that folder only: the
// project's entries are taken from the cache, not opened again. An entry
// rewritten behind the cache's back (same size, same time, same inode)
// shows which: read again, it would say "edited".
func TestNewHomeReadsOnlyTheNewFolder(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	s.write("b", "active")
	s.age()
	call := &Call{Tool: "Write"}
	if set, err := Candidates(s.src, s.cache, call); err != nil || ids(set) != "a=active b=active" {
		t.Fatalf("%s %v", ids(set), err)
	}
	path := filepath.Join(s.dir(), "a.md")
	fi, _ := os.Stat(path)
	data, _ := os.ReadFile(path)
	f, _ := os.OpenFile(path, os.O_WRONLY, 0)
	f.Write(bytes.Replace(data, []byte("status: active"), []byte("status: edited"), 1))
	f.Close()
	os.Chtimes(path, fi.ModTime(), fi.ModTime())

	other := filepath.Join(t.TempDir(), "knowledge", "entries")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "g.md"), []byte("---\nsummary: Global g\ntriggers:\n  tools: [Write]\n---\ng\n"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(other, old, old)
	s.src.GlobalDir = other
	set, err := Candidates(s.src, s.cache, call)
	if err != nil || !set.Rebuilt || ids(set) != "a=active b=active g=active" {
		t.Fatalf("%s rebuilt=%v %v", ids(set), set.Rebuilt, err)
	}
	// The cache now names the new folder: the next call answers from it.
	if set, err := Candidates(s.src, s.cache, call); err != nil || set.Rebuilt || ids(set) != "a=active b=active g=active" {
		t.Fatalf("%s rebuilt=%v %v", ids(set), set.Rebuilt, err)
	}
	// A Full load, as session start does, still sees the file as it was
	// stamped: an edit that keeps size, time and inode is git's racy case,
	// which the stamps cannot see either.
	if set := s.load(Full); ids(set) != "a=active b=active g=active" {
		t.Fatalf("%s", ids(set))
	}
}

// In the seconds after a change the folder's stamp is racy: each hook
// checks the files again, but writes the cache only when something
// changed or once a write would make the stamp trusted.
func TestRacyFolderIsNotRewrittenEachCall(t *testing.T) {
	s := newStore(t)
	s.write("a", "active")
	// Stamped ahead of the clock, the folder stays racy for the whole
	// test however slow the machine: its racy window is not a race.
	ahead := time.Now().Add(time.Hour)
	for _, p := range []string{s.dir(), filepath.Join(s.dir(), "a.md")} {
		os.Chtimes(p, ahead, ahead)
	}
	call := &Call{Tool: "Write"}
	if set, err := Candidates(s.src, s.cache, call); err != nil || !set.Rebuilt {
		t.Fatalf("rebuilt=%v %v", set.Rebuilt, err)
	}
	before, _ := os.Stat(s.cache)
	for i := 0; i < 3; i++ {
		if set, err := Candidates(s.src, s.cache, call); err != nil || ids(set) != "a=active" {
			t.Fatalf("%s %v", ids(set), err)
		}
	}
	if after, _ := os.Stat(s.cache); !os.SameFile(before, after) {
		t.Fatal("the cache was rewritten with nothing changed while the folder is racy")
	}
	s.write("b", "active") // a change is written at once
	if set, _ := Candidates(s.src, s.cache, call); ids(set) != "a=active b=active" {
		t.Fatalf("%s", ids(set))
	}
	if after, _ := os.Stat(s.cache); os.SameFile(before, after) {
		t.Fatal("a new entry did not rewrite the cache")
	}
	s.age() // the change is old now: one write makes the cache trusted
	Candidates(s.src, s.cache, call)
	if set, _ := Candidates(s.src, s.cache, call); set.Rebuilt {
		t.Fatal("the cache is still not trusted once the folder is old")
	}
}
