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
	taken.Add(1)
	fi, err := os.Lstat(filepath.Join(f.path, name))
	if err != nil {
		return Stamp{}, Other, err
	}
	return Info(fi), kindOf(fi.Mode()), nil
}

// Stat stamps the member name, following a link as reading it does; on
// an error the Stamp is the zero one.
func (f *Folder) Stat(name string) (Stamp, error) {
	taken.Add(1)
	fi, err := os.Stat(filepath.Join(f.path, name))
	if err != nil {
		return Stamp{}, err
	}
	return Info(fi), nil
}

// ReadFile reads the member name.
func (f *Folder) ReadFile(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(f.path, name))
}

// Close releases the folder.
func (f *Folder) Close() error { return nil }
