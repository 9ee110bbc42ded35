//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO, a folder or a device is named and not opened: opening a FIFO
// to read blocks until a writer comes, which may be never.
func TestOpenRegularRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, p := range []string{fifo, dir, "/dev/zero"} {
		if _, err := OpenRegular(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not read") {
			t.Errorf("OpenRegular(%s): %v", p, err)
		}
		if _, err := ReadRegular(p); err == nil {
			t.Errorf("ReadRegular(%s) read it", p)
		}
	}
	file := filepath.Join(dir, "ok.jsonl")
	os.WriteFile(file, []byte("{}\n"), 0o600)
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(file, link)
	if data, err := ReadRegular(link); err != nil || string(data) != "{}\n" {
		t.Errorf("a link to a file: %q %v", data, err)
	}
}
