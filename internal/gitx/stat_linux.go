package gitx

import (
	"os"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

var syscallENOTDIR = syscall.ENOTDIR

// fillStat copies the stat data git keeps in the index, so that git sees
// the files devlearn wrote as unchanged without hashing them again.
func fillStat(e *index.Entry, fi os.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.CreatedAt = time.Unix(st.Ctim.Unix())
		e.Dev = uint32(st.Dev)
		e.Inode = uint32(st.Ino)
		e.UID = st.Uid
		e.GID = st.Gid
	}
}
