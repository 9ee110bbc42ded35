//go:build unix

package stamp

import "golang.org/x/sys/unix"

// Folder stamps the files of one folder by their names: the folder is
// looked up once, and each file relative to it (fstatat), which halves
// the cost of stamping a thousand entries against a stat of each path.
type Folder struct{ fd int }

// OpenFolder opens a folder to stamp its files.
func OpenFolder(path string) (*Folder, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &Folder{fd: fd}, nil
}

// Lstat stamps the member name itself (not a link's target): the same
// Stamp as OfLink of its path.
func (f *Folder) Lstat(name string) (Stamp, Kind, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(f.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Stamp{}, Other, err
		}
		break
	}
	k := Other
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		k = Regular
	case unix.S_IFLNK:
		k = Symlink
	}
	return Stamp{Exists: true, Size: st.Size, Mtime: st.Mtim.Nano(), Ino: uint64(st.Ino)}, k, nil
}

// Close releases the folder.
func (f *Folder) Close() error { return unix.Close(f.fd) }
