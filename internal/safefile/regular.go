package safefile

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenRegular opens a file to read only when it is a regular file, its
// links followed. A FIFO would block the read for ever (an ingest, or the
// worker while it holds its lock) and a device would read without end:
// a session file that is either is named and not read.
func OpenRegular(path string) (*os.File, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// ReadRegular reads a file, when it is a regular file (OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

func regular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := fi.Mode(); !m.IsRegular() {
		what := "not a regular file"
		switch {
		case m&fs.ModeNamedPipe != 0:
			what = "a FIFO"
		case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
			what = "a device"
		case m.IsDir():
			what = "a folder"
		case m&fs.ModeSocket != 0:
			what = "a socket"
		}
		return fmt.Errorf("%s is %s, not a file: not read", path, what)
	}
	return nil
}
