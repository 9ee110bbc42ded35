package evolve

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// A batch that keeps many copies (a bulk render: hundreds of new
// artifacts) keeps them in one pack file, objects/pack/<name>.pack,
// instead of one file each: one temporary file and one rename for the
// batch, not five system calls per copy (stat, folder, create, write,
// close, rename). A pack is only another place a copy is kept: every
// copy read from it is checked against its hash, a torn or corrupt pack
// is copies not kept, and what removes copies (prune, redact) first
// explodes the pack that holds them into loose copies, so that removal
// stays one logic, on loose files.
//
// Layout: the magic, the number of copies n (4 bytes, big-endian), n
// index records sorted by hash (the 20-byte blob hash, then the copy's
// offset and length in the file, 8 bytes each, big-endian), then the
// copies' bytes.

const (
	packMagic  = "DLPACK1\n"
	packHead   = len(packMagic) + 4
	packRecord = 20 + 8 + 8
	packExt    = ".pack"
)

// packMin is the number of copies from which a batch packs them. Below
// it, copies stay loose, as a session end's 5 to 20 are: a loose copy is
// found with one open, and the packs stay few. A batch of this many is a
// bulk one (a first render, a migration), which a clone sees a handful of
// times; at that size the five system calls per loose copy are
// hundreds, the pack's own cost is a dozen. (A variable: tests compare a
// packed clone with the same batches kept loose.)
var packMin = 64

// packMax bounds the packs a clone holds: past it, a batch keeps its
// copies loose, as before packs existed. A reader that misses a loose copy
// opens every pack's index, so they must stay few; prune explodes those
// whose copies it removes.
const packMax = 32

// PackDir is the folder of p's packs of kept copies.
func PackDir(p *project.Project) string { return p.StatePath("objects", "pack") }

// IsPack says whether path (below the state folder) names a pack: the
// folder objects/pack, a name ending in .pack, not a temporary file.
func IsPack(path string) bool {
	base := filepath.Base(path)
	return filepath.Base(filepath.Dir(path)) == "pack" && strings.HasSuffix(base, packExt) && !strings.HasPrefix(base, ".")
}

// Packs lists p's packs, by path; none when the folder is missing (or
// not a folder: nothing could have been packed there).
func Packs(p *project.Project) ([]string, error) {
	dir := PackDir(p)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if path := filepath.Join(dir, e.Name()); e.Type().IsRegular() && IsPack(path) {
			out = append(out, path)
		}
	}
	return out, nil
}

// packed is a copy to keep: its blob hash and content.
type packed struct {
	hash string
	data []byte
}

// encodePack lays copies out as a pack; copies must have distinct hashes
// of 40 hex digits.
func encodePack(copies []packed) []byte {
	slices.SortFunc(copies, func(a, b packed) int { return strings.Compare(a.hash, b.hash) })
	size := packHead + len(copies)*packRecord
	for _, c := range copies {
		size += len(c.data)
	}
	out := make([]byte, packHead+len(copies)*packRecord, size)
	copy(out, packMagic)
	binary.BigEndian.PutUint32(out[len(packMagic):], uint32(len(copies)))
	off := uint64(packHead + len(copies)*packRecord)
	for i, c := range copies {
		rec := out[packHead+i*packRecord:]
		hex.Decode(rec[:20], []byte(c.hash))
		binary.BigEndian.PutUint64(rec[20:], off)
		binary.BigEndian.PutUint64(rec[28:], uint64(len(c.data)))
		off += uint64(len(c.data))
	}
	for _, c := range copies {
		out = append(out, c.data...)
	}
	return out
}

// packName names a pack by the copies it holds (their hashes, sorted), so
// that two batches that pack the same copies at once write the same
// bytes under the same name, and two different packs never share one.
func packName(copies []packed) string {
	hashes := make([]string, len(copies))
	for i, c := range copies {
		hashes[i] = c.hash
	}
	slices.Sort(hashes)
	sum := sha256.Sum256([]byte(strings.Join(hashes, "\n")))
	return hex.EncodeToString(sum[:16]) + packExt
}

// pack is an open pack file with its index read.
type pack struct {
	f     *os.File
	size  int64
	index []byte // n records
}

// openPack opens the pack at path and reads its index. A pack whose head
// or index is torn or corrupt holds no copy (ok false, nothing left open);
// an error is one of reading, not of content.
func openPack(path string) (pk *pack, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	size := fi.Size()
	// The head and, in the same read, an index of up to a few hundred
	// copies.
	buf := make([]byte, min(size, 32<<10))
	if _, err := f.ReadAt(buf, 0); err != nil {
		f.Close()
		return nil, false, err
	}
	if len(buf) < packHead || string(buf[:len(packMagic)]) != packMagic {
		f.Close()
		return nil, false, nil
	}
	n := int64(binary.BigEndian.Uint32(buf[len(packMagic):]))
	end := int64(packHead) + n*packRecord
	if end > size {
		f.Close()
		return nil, false, nil
	}
	if end > int64(len(buf)) {
		buf = make([]byte, end)
		if _, err := f.ReadAt(buf, 0); err != nil {
			f.Close()
			return nil, false, err
		}
	}
	return &pack{f: f, size: size, index: buf[packHead:end]}, true, nil
}

func (pk *pack) close() { pk.f.Close() }

func (pk *pack) count() int { return len(pk.index) / packRecord }

// entry returns the hash and place of the i-th copy; ok is false when
// the place lies outside the file (a corrupt record).
func (pk *pack) entry(i int) (hash []byte, off, n int64, ok bool) {
	rec := pk.index[i*packRecord : (i+1)*packRecord]
	o, l := binary.BigEndian.Uint64(rec[20:]), binary.BigEndian.Uint64(rec[28:])
	head := uint64(packHead + len(pk.index))
	if o < head || o > uint64(pk.size) || l > uint64(pk.size)-o {
		return rec[:20], 0, 0, false
	}
	return rec[:20], int64(o), int64(l), true
}

// read returns the i-th copy's hash (hex) and content, or ok false when
// the copy is not whole: its content does not have its hash.
func (pk *pack) read(i int) (hash string, data []byte, ok bool, err error) {
	raw, off, n, ok := pk.entry(i)
	hash = hex.EncodeToString(raw)
	if !ok {
		return hash, nil, false, nil
	}
	data = make([]byte, n)
	if _, err := pk.f.ReadAt(data, off); err != nil {
		return hash, nil, false, err
	}
	if BlobHash(data) != hash {
		return hash, nil, false, nil
	}
	return hash, data, true, nil
}

// find returns the index of the copy with hash h, or -1.
func (pk *pack) find(h string) int {
	var want [20]byte
	if len(h) != 40 {
		return -1
	}
	if _, err := hex.Decode(want[:], []byte(h)); err != nil {
		return -1
	}
	n := pk.count()
	i, j := 0, n
	for i < j {
		m := int(uint(i+j) >> 1)
		if bytes.Compare(pk.index[m*packRecord:m*packRecord+20], want[:]) < 0 {
			i = m + 1
		} else {
			j = m
		}
	}
	if i < n && bytes.Equal(pk.index[i*packRecord:i*packRecord+20], want[:]) {
		return i
	}
	return -1
}

// copies reads kept copies for one command: loose first (one open), then
// in the packs, whose indexes are read on the first copy not found loose
// and kept open until close, so that `history show` of a bulk render's
// entry reads each pack's index once, not once per file.
type copies struct {
	p      *project.Project
	packs  []*pack
	listed bool
}

func newCopies(p *project.Project) *copies { return &copies{p: p} }

func (c *copies) close() {
	for _, pk := range c.packs {
		pk.close()
	}
	c.packs = nil
}

// get returns the kept copy with hash h, checked against it; ok is false
// when none is kept whole.
func (c *copies) get(h string) (data []byte, ok bool, err error) {
	data, err = os.ReadFile(ObjectPath(c.p, h))
	if err == nil && BlobHash(data) == h {
		return data, true, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	if !c.listed {
		c.listed = true
		paths, err := Packs(c.p)
		if err != nil {
			return nil, false, err
		}
		for _, path := range paths {
			pk, whole, err := openPack(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // exploded since it was listed: its copies are loose
			}
			if err != nil {
				return nil, false, err
			}
			if whole {
				c.packs = append(c.packs, pk)
			}
		}
	}
	for _, pk := range c.packs {
		if i := pk.find(h); i >= 0 {
			if _, data, ok, err := pk.read(i); err != nil || ok {
				return data, ok, err
			}
		}
	}
	if len(c.packs) == 0 {
		return nil, false, nil
	}
	// A pack exploded between the two looks has its copies loose.
	if data, err := os.ReadFile(ObjectPath(c.p, h)); err == nil && BlobHash(data) == h {
		return data, true, nil
	}
	return nil, false, nil
}

// EachPacked calls fn with every whole copy in the pack at path, in the
// order of their hashes; a torn or corrupt pack (or copy) is skipped as
// copies not kept.
func EachPacked(path string, fn func(hash string, data []byte) error) error {
	pk, whole, err := openPack(path)
	if err != nil || !whole {
		return err
	}
	defer pk.close()
	for i := range pk.count() {
		hash, data, ok, err := pk.read(i)
		if err != nil {
			return err
		}
		if ok {
			if err := fn(hash, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// packedObject is a copy listed in a pack, for prune: its hash, size and
// the pack's time (when it was kept).
type packedObject struct {
	hash string
	size int64
}

// listPack lists the copies of the pack at path from its index alone
// (their contents are checked as they are exploded, not here).
func listPack(path string) ([]packedObject, error) {
	pk, whole, err := openPack(path)
	if err != nil || !whole {
		return nil, err
	}
	defer pk.close()
	out := make([]packedObject, 0, pk.count())
	for i := range pk.count() {
		raw, _, n, ok := pk.entry(i)
		if ok {
			out = append(out, packedObject{hash: hex.EncodeToString(raw), size: n})
		}
	}
	return out, nil
}

// Explode turns the pack at path into loose copies and removes it: every
// whole copy not already kept whole loose is written loose with the pack's time
// (when it was kept, which prune reads), everything is synced, and only
// then the pack goes. A crash on the way leaves the pack and some loose
// copies, which are the same copies twice; exploding again finishes. A
// pack already gone has nothing left to do.
func Explode(p *project.Project, path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	t := safefile.NewTree(p.CommonDir)
	defer t.Close()
	var written []string
	err = EachPacked(path, func(hash string, data []byte) error {
		loose := ObjectPath(p, hash)
		// A loose copy that is not whole is replaced by the packed one.
		if have, err := t.ReadFile(loose); err == nil && BlobHash(have) == hash {
			return nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := jsonl.WriteFileRenameIn(t, loose, data, 0o644); err != nil {
			return err
		}
		written = append(written, loose)
		return t.Chtimes(loose, fi.ModTime())
	})
	if err != nil {
		return err
	}
	if err := syncBatch(p.CommonDir, func() []string { return written }); err != nil {
		return err
	}
	if err := t.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
