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
