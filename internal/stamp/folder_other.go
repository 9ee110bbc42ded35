//go:build !unix

package stamp

import (
	"os"
	"path/filepath"
)

// Folder stamps the files of one folder by their names.
type Folder struct{ path string }

// OpenFolder opens a folder to stamp its files.
func OpenFolder(path string) (*Folder, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return &Folder{path: path}, nil
}

// Lstat stamps the member name itself (not a link's target): the same
// Stamp as OfLink of its path.
func (f *Folder) Lstat(name string) (Stamp, Kind, error) {
	fi, err := os.Lstat(filepath.Join(f.path, name))
	if err != nil {
		return Stamp{}, Other, err
	}
	return Info(fi), kindOf(fi.Mode()), nil
}

// Close releases the folder.
func (f *Folder) Close() error { return nil }
