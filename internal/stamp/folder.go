package stamp

import "io/fs"

// Kind is what a folder's member is, as far as a cache of files cares.
type Kind int

// The kinds Folder.Lstat tells apart.
const (
	Regular Kind = iota
	Symlink
	Other
)

func kindOf(m fs.FileMode) Kind {
	switch {
	case m&fs.ModeSymlink != 0:
		return Symlink
	case m.IsRegular():
		return Regular
	}
	return Other
}
