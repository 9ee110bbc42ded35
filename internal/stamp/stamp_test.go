package stamp

import (
	"errors"
	"io/fs"
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

// The racy window follows the file system's granularity, read from the
// mtime: seconds for whole seconds, the clock's tick for nanoseconds.
func TestWindowFollowsGranularity(t *testing.T) {
	sec := time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC)
	whole := Stamp{Exists: true, Mtime: sec.UnixNano()}
	if w := Window(whole); w < 2*time.Second {
		t.Errorf("whole seconds (FAT, ext3): window %v", w)
	}
	fine := Stamp{Exists: true, Mtime: sec.UnixNano() + 123456789}
	if w := Window(fine); w < tickSlack() || w > tickSlack()+time.Microsecond {
		t.Errorf("nanoseconds: window %v, tick slack %v", w, tickSlack())
	}
	exfat := Stamp{Exists: true, Mtime: sec.UnixNano() + 120*int64(time.Millisecond)}
	if w := Window(exfat); w < 10*time.Millisecond+tickSlack() {
		t.Errorf("10 ms granularity (exFAT): window %v", w)
	}
	if !fine.RacyAt(time.Unix(0, fine.Mtime)) || !fine.RacyAt(time.Unix(0, fine.Mtime).Add(tickSlack()-time.Nanosecond)) {
		t.Error("a file written in the tick a run started is trusted")
	}
	if fine.RacyAt(time.Unix(0, fine.Mtime).Add(tickSlack() + time.Millisecond)) {
		t.Error("a file written ticks before the run started is racy")
	}
	if !whole.RacyAt(sec.Add(time.Second)) {
		t.Error("a whole-second mtime a second before the start is trusted")
	}
	if (Stamp{}).RacyAt(sec) {
		t.Error("a missing file is racy")
	}
	pre := Stamp{Exists: true, Mtime: -1} // before 1970, a fraction all the same
	if Window(pre) > time.Second {
		t.Errorf("negative mtime: window %v", Window(pre))
	}
}

// On this machine, a file just written is racy for a run that started
// before, and settled for one that starts a window later.
func TestRacyAtOnThisFileSystem(t *testing.T) {
	start := time.Now()
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("abc"), 0o644)
	s := Of(path)
	if !s.RacyAt(start) {
		t.Fatalf("written after the start, not racy: mtime %v start %v", time.Unix(0, s.Mtime), start)
	}
	if s.RacyAt(time.Now().Add(Window(s))) {
		t.Fatal("racy a window later")
	}
}

// Folder.Stat and ReadFile give what Of and os.ReadFile give, through
// links and subfolders, errors included.
func TestFolderStatAndRead(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	big := make([]byte, 100_000)
	for i := range big {
		big[i] = byte(i)
	}
	os.WriteFile(filepath.Join(dir, "sub", "big"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
	os.Symlink("sub/big", filepath.Join(dir, "link"))
	os.Symlink("missing", filepath.Join(dir, "dangling"))
	f, err := OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"sub/big", "empty", "link", "dangling", "missing", "sub", "empty/x"} {
		abs := filepath.Join(dir, name)
		_, wantStatErr := os.Stat(abs)
		if got, err := f.Stat(name); got != Of(abs) || (err == nil) != (wantStatErr == nil) ||
			errors.Is(err, fs.ErrNotExist) != errors.Is(wantStatErr, fs.ErrNotExist) {
			t.Errorf("Stat %s: %+v %v, want %+v %v", name, got, err, Of(abs), wantStatErr)
		}
		got, err := f.ReadFile(name)
		want, wantErr := os.ReadFile(abs)
		if string(got) != string(want) || (err == nil) != (wantErr == nil) ||
			errors.Is(err, fs.ErrNotExist) != errors.Is(wantErr, fs.ErrNotExist) {
			t.Errorf("ReadFile %s: %d bytes, %v; want %d bytes, %v", name, len(got), err, len(want), wantErr)
		}
	}
}
