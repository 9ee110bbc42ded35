package stamp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStampAndRacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if s := Of(path); s != (Stamp{}) || s.Racy(time.Now()) {
		t.Fatalf("a missing file: %+v", s)
	}
	os.WriteFile(path, []byte("abc"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	s := Of(path)
	if !s.Exists || s.Size != 3 || time.Unix(0, s.Mtime).Sub(old).Abs() > time.Second {
		t.Fatalf("stamp %+v", s)
	}
	if s.Racy(time.Now()) {
		t.Fatal("an hour-old file is racy")
	}
	if !s.Racy(old.Add(time.Second)) {
		t.Fatal("a file changed a second before the cache was written is trusted")
	}
	link := path + ".link"
	if os.Symlink(path, link) == nil {
		if OfLink(link) == s || Of(link) != s {
			t.Fatalf("Of follows a link, OfLink does not: %+v %+v", OfLink(link), Of(link))
		}
	}
}

// Folder.Lstat gives what OfLink gives, file by file.
func TestFolderLstat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("abc"), 0o644)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.Symlink("f", filepath.Join(dir, "l"))
	f, err := OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, kind := range map[string]Kind{"f": Regular, "d": Other, "l": Symlink} {
		s, k, err := f.Lstat(name)
		if err != nil || k != kind || s != OfLink(filepath.Join(dir, name)) {
			t.Errorf("%s: %+v %v %v, want %+v %v", name, s, k, err, OfLink(filepath.Join(dir, name)), kind)
		}
	}
	if _, _, err := f.Lstat("missing"); err == nil {
		t.Error("a missing file stamped")
	}
}
