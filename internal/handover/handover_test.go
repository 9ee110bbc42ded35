package handover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/stamp"
)

func testProject(t *testing.T, files map[string]string, mtime map[string]time.Time) (*project.Project, map[string]Written) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]Written{}
	for rel, data := range files {
		os.MkdirAll(filepath.Dir(p.Path(rel)), 0o755)
		os.WriteFile(p.Path(rel), []byte(data), 0o644)
		if m, ok := mtime[rel]; ok {
			os.Chtimes(p.Path(rel), m, m)
		}
		hashes[rel] = Written{Hash: contenthash.Hash([]byte(data)), Stamp: stamp.Of(p.Path(rel))}
	}
	return p, hashes
}

func now(t *testing.T, p *project.Project, rel string) stamp.Stamp {
	t.Helper()
	return stamp.Of(p.Path(rel))
}

// A file settled when the stamps were taken is handed over; one written in
// the racy window before (here: stamped in the future of the hand-over, as
// a file written in its last tick can be) is not; a file changed since no
// longer matches its stamp.
func TestOnlySettledFilesAreHandedOver(t *testing.T) {
	old, fresh := time.Now().Add(-time.Hour), time.Now().Add(time.Second)
	p, hashes := testProject(t, map[string]string{"a.md": "settled\n", "b.md": "racy\n", "c.md": "edited later\n"},
		map[string]time.Time{"a.md": old, "b.md": fresh, "c.md": old})
	Write(p, hashes)
	f := Load(p)
	if f == nil {
		t.Fatal("no hand-over")
	}
	if h, ok := f.Hash("a.md", now(t, p, "a.md")); !ok || h != hashes["a.md"].Hash {
		t.Errorf("a settled file: %q %v", h, ok)
	}
	if f.Has("b.md") {
		t.Error("a racy file was handed over")
	}
	os.WriteFile(p.Path("c.md"), []byte("edited later, by a person\n"), 0o644)
	if _, ok := f.Hash("c.md", now(t, p, "c.md")); ok {
		t.Error("a file changed since is known by the render's hash")
	}
	if _, ok := f.Hash("missing.md", stamp.Stamp{}); ok {
		t.Error("a file never handed over is known")
	}
}

// A file of another size than the run wrote was written since, before the
// stamps were taken: its stamp is not the run's bytes'.
func TestAFileOfAnotherSizeIsNotHandedOver(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	p, hashes := testProject(t, map[string]string{"a.md": "as written\n"}, map[string]time.Time{"a.md": old})
	os.WriteFile(p.Path("a.md"), []byte("a person's edit, before the render ended\n"), 0o644)
	os.Chtimes(p.Path("a.md"), old, old)
	Write(p, hashes)
	if Load(p).Has("a.md") {
		t.Fatal("a file of another size was handed over")
	}
}

// A same-size write after the run's, in a later tick, leaves the file
// settled at the end but with another stamp than it was written with:
// left out, as is a file another one was renamed over (its inode).
func TestAFileWrittenSinceIsNotHandedOver(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	p, hashes := testProject(t, map[string]string{"a.md": "as written\n", "b.md": "as written\n", "c.md": "as written\n"},
		map[string]time.Time{"a.md": old, "b.md": old, "c.md": old})
	os.WriteFile(p.Path("a.md"), []byte("as WRITTEN\n"), 0o644)
	later := old.Add(10 * time.Millisecond)
	os.Chtimes(p.Path("a.md"), later, later)
	os.WriteFile(p.Path("b.tmp"), []byte("AS written\n"), 0o644)
	os.Chtimes(p.Path("b.tmp"), old, old)
	os.Rename(p.Path("b.tmp"), p.Path("b.md"))
	Write(p, hashes)
	f := Load(p)
	if !f.Has("c.md") {
		t.Fatal("the file nobody touched was not handed over")
	}
	for _, rel := range []string{"a.md", "b.md"} {
		if f.Has(rel) {
			t.Errorf("%s, written since, was handed over", rel)
		}
	}
}

// Torn, damaged, foreign or missing: no hand-over at all, never a claim
// about any file.
func TestADamagedHandOverIsNone(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	p, hashes := testProject(t, map[string]string{"a.md": "one\n", "b.md": "two\n"}, map[string]time.Time{"a.md": old, "b.md": old})
	Write(p, hashes)
	data, err := os.ReadFile(Path(p))
	if err != nil || Load(p) == nil {
		t.Fatalf("no hand-over: %v", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for name, bad := range map[string]string{
		"cut at a line's end": strings.Join(lines[:len(lines)-2], ""),
		"cut mid-line":        string(data[:len(data)-5]),
		"a hash changed":      strings.Replace(string(data), hashes["a.md"].Hash, hashes["b.md"].Hash, 1),
		"another version":     strings.Replace(string(data), version, "devlearn-handover 0", 1),
		"empty":               "",
	} {
		if bad == string(data) {
			t.Fatalf("%s: nothing changed", name)
		}
		os.WriteFile(Path(p), []byte(bad), 0o644)
		if f := Load(p); f != nil {
			t.Errorf("%s: read as %+v", name, f.files)
		}
	}
	os.Remove(Path(p))
	if f := Load(p); f != nil || f.Has("a.md") {
		t.Error("a missing hand-over read")
	}
	if _, ok := (*Files)(nil).Hash("a.md", now(t, p, "a.md")); ok {
		t.Error("no hand-over knows a hash")
	}
}

// A run whose files are all racy leaves the last hand-over as it was: it
// proves only what has not changed since, whatever ran after it.
func TestNothingSettledWritesNothing(t *testing.T) {
	p, hashes := testProject(t, map[string]string{"a.md": "x\n"}, map[string]time.Time{"a.md": time.Now().Add(time.Second)})
	Write(p, hashes)
	if _, err := os.Stat(Path(p)); err == nil {
		t.Fatal("a hand-over of nothing was written")
	}
}
