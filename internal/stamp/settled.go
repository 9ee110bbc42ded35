package stamp

import "time"

// A stamp proves that a file did not change only if any later write would
// give it another stamp. A write sets the modification time from the
// kernel's clock, as it read it at its last tick (the coarse clock, up to
// one tick behind the time), truncated to what the file system stores:
// nanoseconds on ext4, xfs, btrfs, tmpfs and APFS, 100 ns on NTFS, 10 ms on
// exFAT, whole seconds on ext3 and HFS+, two seconds on FAT. So a write at
// time t gets an mtime no earlier than t - (tick + granularity), and a file
// whose mtime is older than start - Window(s) was not written at or after
// start: if its stamp is the same later, so is its content. A file with a
// newer mtime is racy (git's word, Documentation/technical/racy-git.txt):
// a write in the same tick, with the same size, keeps its stamp, and only
// its content can tell.
//
// The granularity is read from the stamp itself: a file system keeps only
// the digits it has, so an mtime of whole seconds is taken to come from one
// that keeps seconds (or two, FAT's), and one with a fraction from one no
// coarser than the largest power of ten that divides the fraction. A file
// system keeping nanoseconds gives a fraction ending in zeros by chance,
// which only widens the window. git compares with its index file's mtime
// instead of a clock; a file system whose times come from another machine's
// clock (NFS) more than the window apart defeats both.

// Window is how recent an mtime is racy for s, given its file system's
// granularity and the clock's tick.
func Window(s Stamp) time.Duration {
	frac := s.Mtime % int64(time.Second)
	if frac < 0 {
		frac += int64(time.Second)
	}
	if frac == 0 {
		return 2*time.Second + tickSlack()
	}
	g := int64(1)
	for g < int64(100*time.Millisecond) && frac%(g*10) == 0 {
		g *= 10
	}
	return time.Duration(g) + tickSlack()
}

// RacyAt reports whether s, stamped after start, may belong to a file
// written at or after start: its stamp alone cannot then prove that what
// was read after start is what is there now. start must be taken before
// the file was first read or stamped.
func (s Stamp) RacyAt(start time.Time) bool {
	return s.Exists && s.Mtime >= start.UnixNano()-int64(Window(s))
}
