//go:build unix

package observe

import (
	"os"
	"syscall"
)

// mapFile maps the first n bytes of f, read only; ok is false when it
// cannot, and the caller reads the file instead. Reading a file of a few
// megabytes into fresh memory costs a page fault per page and a copy, a
// third of what the session-end render spent on the fold cache; a
// mapping of what the page cache holds costs a fault per few pages.
func mapFile(f *os.File, n int64) (data []byte, unmap func(), ok bool) {
	if n <= 0 || int64(int(n)) != n {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { _ = syscall.Munmap(data) }, true
}
