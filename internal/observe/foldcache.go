package observe

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/devlearn/devlearn/internal/binfield"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
)

// The fold cache keeps the folded state of the log's first N bytes between
// runs, so that a run folds only what was appended since: the fold is a
// join, so the state of a prefix joined with the fold of the rest is the
// state of the whole (TestFoldCacheEqualsFreshFold checks it over random
// histories of appends, compactions, merges, truncations and rewrites).
//
// It is a cache and nothing else: deleting it changes nothing but speed,
// and it is used only when it provably describes the log as it is now:
//
//   - its format and the program that wrote it are this one (the
//     executable's size and modification time: an upgraded devlearn, whose
//     fold may read the same lines differently, refolds);
//   - its own bytes are whole (a CRC-32 of the header and the directory,
//     and one of each state's record, checked when the state is decoded:
//     a crash mid-write or a torn rename reads as no cache, or, where
//     only a record is damaged, as a log folded afresh the moment the
//     record is reached; lazy.go);
//   - the log still begins with the very bytes it folded: the log is at
//     least N bytes long, the CRC-32 of its first N bytes matches, and so
//     does the SHA-256 of the last 64 KiB of them.
//
// Why a hash of the prefix and not the file's identity or size: a
// compaction and a merge driver write a new file (a new inode, which the
// system may give the number of the old one back), a checkout of an older
// log can be longer or shorter, and a truncation followed by appends keeps
// the inode; only the bytes say whether the log only grew. The whole prefix
// goes through CRC-32 (hardware, about 30 GB/s: 0.13 ms for a 4 MB log)
// rather than SHA-256 (2.5 ms here, a third of the whole budget of the
// session-end render): any rewrite is caught unless its CRC collides by
// chance (2^-32), and the region a rewrite most often touches, the end of
// what was folded, is covered by SHA-256 as well. Someone able to craft a
// collision can write the log itself, which says whatever they want anyway.
//
// Time-dependent parts (decay, expiry) are never stored: the cache holds
// the join of the lines, and every view is computed at read time.
//
// Beside each state it holds the state's status facts (statusFacts: what
// the status is worked out from, neither the time nor the configuration
// among them) and an index of the ids. A read decodes no state at once:
// the states the appended lines touch are decoded to join them, WithStatus
// decides every other status from the facts and decodes the few it
// returns, and a caller that wants every state decodes the rest (lazy.go).
// render-ready at a session end reads the cache's directory (the facts,
// the index) and a handful of its states' records, not the other 3 MB.
//
// Two writers at once each rename a whole file of their own over the cache
// (safefile, below the clone's git folder): whichever lands last is a valid
// cache for the prefix it names, and a reader checks that prefix anyway.

// FoldCache names the cache file and the folder it is written below.
type FoldCache struct {
	Root string // the trusted folder (the clone's git folder)
	Path string
}

const (
	cacheMagic   = "devlearn fold cache\x00"
	cacheFormat  = 5        // bump when stateenc.go's layout changes (4: CRC-32 IEEE, not CRC-32C; 5: line ids by xxHash)
	cacheTailLen = 64 << 10 // the end of the prefix hashed with SHA-256
)

// cacheMinTail: a tail shorter than this (and than 1/8 of the prefix) is
// folded on every run rather than written back, so that a session's few
// lines do not rewrite the whole cache each time. A variable for tests.
var cacheMinTail int64 = 256 << 10

// cacheCRC is the CRC the cache's checks use: IEEE's, as the knowledge
// cache's. Castagnoli's (CRC-32C) was used first; building its tables for
// the hardware path costs 0.5 ms of CPU on every run that reads the
// cache, a twentieth of a session end's render, and on these machines it
// hashed 4 MB slower (26 GB/s, against 33 GB/s for IEEE's with
// carry-less multiplication): one CRC, the cheaper.
var cacheCRC = crc32.IEEETable

// prefixHash follows the bytes of the log as they are folded: their CRC,
// their newlines and their last cacheTailLen bytes.
type prefixHash struct {
	n     int64
	lines int
	crc   uint32
	tail  []byte
	open  bool // the log ended in a line without its newline: not cacheable as read
}

func (h *prefixHash) add(data []byte, final bool) {
	if final {
		if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
			h.open = true
			data = data[:i+1]
		}
	}
	h.lines += bytes.Count(data, []byte{'\n'})
	h.hash(data)
}

// hash is add without the count of newlines: the bytes of a prefix
// checked against the cache, whose count the cache says once their CRC
// matched.
func (h *prefixHash) hash(data []byte) {
	h.crc = crc32.Update(h.crc, cacheCRC, data)
	h.n += int64(len(data))
	if h.tail == nil {
		// Never grown: the lines after the prefix (a session's) are
		// made room for before they are added, not after a copy of
		// the whole tail into a slice twice its size.
		h.tail = make([]byte, 0, cacheTailLen)
	}
	if len(data) >= cacheTailLen {
		h.tail = append(h.tail[:0], data[len(data)-cacheTailLen:]...)
		return
	}
	if over := len(h.tail) + len(data) - cacheTailLen; over > 0 {
		h.tail = h.tail[:copy(h.tail, h.tail[over:])]
	}
	h.tail = append(h.tail, data...)
}

// cacheHeader is what a cache says of the prefix it folded.
type cacheHeader struct {
	program string // identity of the program that wrote it
	size    int64
	lines   int // newlines in the prefix: the tail's first line is lines+1
	crc     uint32
	tail    [sha256.Size]byte
}

func (h *prefixHash) header(program string) cacheHeader {
	return cacheHeader{program: program, size: h.n, lines: h.lines, crc: h.crc, tail: sha256.Sum256(h.tail)}
}

// matches says whether the bytes h followed are those the cache folded:
// their size, CRC and the SHA-256 of their end. Their newlines are not
// counted again: bytes whose CRC matches hold the newlines the cache
// counted, as sure as they are the bytes it folded.
func (h *prefixHash) matches(c cacheHeader) bool {
	return h.n == c.size && h.crc == c.crc && sha256.Sum256(h.tail) == c.tail
}

// programID names the build of this program: a cache written by another
// build (an upgrade, a rebuild) is not read, since its fold may differ. A
// release or a build of a clean checkout is named by its version or
// commit, which devlearn and devlearn-hook of the same build share; any
// other build (a modified checkout, a test binary) by its executable's
// size and modification time.
var programID = sync.OnceValue(func() string {
	prefix := strconv.Itoa(cacheFormat) + ":"
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" && modified == "false" {
			return prefix + bi.Main.Path + "@" + rev
		}
		if v := bi.Main.Version; rev == "" && v != "" && v != "(devel)" && !strings.Contains(v, "+dirty") {
			return prefix + bi.Main.Path + "@" + v
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return prefix + strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
})

// writeCache encodes the cache to out: magic, header, the log (its
// states, then its directory: encoder.log), and the CRC-32 of all but
// the states' records, which carry their own.
func writeCache(out io.Writer, h cacheHeader, l *Log) error {
	w := &encoder{Encoder: binfield.Encoder{B: make([]byte, 0, 64<<10)}, out: out}
	w.B = append(w.B, cacheMagic...)
	w.Str(h.program)
	w.Uint(uint64(h.size))
	w.Uint(uint64(h.lines))
	w.Fixed32(h.crc)
	w.B = append(w.B, h.tail[:]...)
	w.log(l)
	w.spill(true)
	w.Fixed32(w.crc)
	w.spill(true)
	return w.err
}

// decodeHeader checks a cache's integrity and reads its header; the rest
// of r is the folded state. The file's CRC covers the header and the
// log's directory; each state's record is checked when it is decoded
// (lazyStates), so that a read that decodes five states of 10,000 does
// not read the other records' 3 MB to check them.
func decodeHeader(data string) (cacheHeader, *decoderBin, error) {
	h, r, err := parseHeader(data)
	if err == nil && !checkCache(data, r) {
		err = errCacheCorrupt
	}
	return h, r, err
}

// parseHeader reads a cache's header, unchecked; the rest of r is the
// folded state.
func parseHeader(data string) (cacheHeader, *decoderBin, error) {
	var h cacheHeader
	if len(data) < len(cacheMagic)+4 || data[:len(cacheMagic)] != cacheMagic {
		return h, nil, errCacheCorrupt
	}
	body := data[:len(data)-4]
	r := &decoderBin{Decoder: binfield.Decoder{S: body[len(cacheMagic):]}}
	h.program = r.Str()
	h.size = int64(r.Uint())
	h.lines = int(r.Uint())
	h.crc = r.Fixed32()
	if r.Err != nil || len(r.S) < sha256.Size+trailerLen {
		return h, nil, errCacheCorrupt
	}
	copy(h.tail[:], r.S[:sha256.Size])
	r.S = r.S[sha256.Size:]
	return h, r, nil
}

// checkCache checks the CRC of the cache data whose header parseHeader
// read, leaving r at the log.
func checkCache(data string, r *decoderBin) bool {
	body, sum := data[:len(data)-4], data[len(data)-4:]
	head := len(body) - len(r.S) // the log begins here
	statesEnd, _, _, _ := logTrailer(r.S)
	if statesEnd > len(r.S)-trailerLen {
		return false
	}
	crc := crc32.Update(0, cacheCRC, unsafe.Slice(unsafe.StringData(body), head))
	dir := r.S[statesEnd:]
	crc = crc32.Update(crc, cacheCRC, unsafe.Slice(unsafe.StringData(dir), len(dir)))
	return crc == binary.LittleEndian.Uint32([]byte(sum))
}

// LoadCached folds the log at path as LoadFile does, reading the folded
// state of what it had folded before from the cache when the log only
// grew since, and refreshing the cache when it is missing, stale or far
// behind. Any trouble with the cache (unreadable, another version, another
// log) means a fresh fold: it never makes the fold fail.
func LoadCached(path string, c FoldCache) (*Log, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewLog(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	program := programID()
	if l, ok, err := loadThrough(path, f, c, program); ok || err != nil {
		return l, err
	}
	h := &prefixHash{}
	l, err := foldFile(f, h.add, func() { *h = prefixHash{} })
	if err != nil {
		return nil, err
	}
	if h.n > 0 && !h.open {
		save(c, h.header(program), l)
	}
	return l, nil
}

// loadThrough is LoadCached through a cache that describes the log's
// first bytes: ok is false when there is none (or it does not).
func loadThrough(path string, f *os.File, c FoldCache, program string) (l *Log, ok bool, err error) {
	h := &prefixHash{}
	l, hdr, prefixOK, ok := readCached(f, c, program, h)
	if !ok {
		return nil, false, nil
	}
	cached := hdr.size
	fi, err := f.Stat()
	if err != nil {
		prefixOK()
		return nil, false, err
	}
	// The tail is folded while the prefix is still being checked (on
	// another core, when there is one); its bytes are added to the
	// prefix's hash once the check is done. A long tail waits for it.
	var parts []tailPart
	seen := func(data []byte, final bool) { parts = append(parts, tailPart{data, final}) }
	if fi.Size()-cached > maxTailBeside {
		if !prefixOK() {
			return nil, false, nil
		}
		seen = h.add
	}
	// A tail of one part (a session's lines, a render's) is folded
	// straight into the states read from the cache; a longer one on
	// every core, then joined.
	z := l.lazy
	into := l
	if fi.Size()-cached > partSize {
		into = nil
	}
	// A long tail (a bulk render's lines, read by the reconcile after it)
	// is folded from a mapping, as a whole log is (foldFile).
	var src io.Reader = io.NewSectionReader(f, cached, max(fi.Size()-cached, 0))
	var m *mappedLog
	if n := fi.Size() - cached; n >= minMappedTail && fi.Size() <= maxMapped {
		if data, unmap, ok := mapFile(f, fi.Size()); ok {
			defer unmap()
			m = &mappedLog{data: data, off: int(cached)}
			src = m
		}
	}
	tail, err := foldInto(into, src, hdr.lines+1, seen)
	if !prefixOK() || errors.Is(err, errMapFault) {
		// A fault under the mapping may have left the cached states
		// half joined: the log is folded afresh.
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	hashParts := func() {
		for _, p := range parts {
			h.add(p.data, p.final)
		}
	}
	if m == nil {
		hashParts()
	} else if !m.touch(hashParts) {
		return nil, false, nil
	}
	if tail != l {
		for _, s := range tail.states {
			l.join(s)
		}
	}
	if z == nil || !z.bad {
		if tail != l {
			l.Kept = append(l.Kept, tail.Kept...)
			l.Problems = append(l.Problems, tail.Problems...)
			l.Lines += tail.Lines
		}
		if l.lazy != nil {
			// Set before the cache is written back: writing it decodes
			// every state, and a damaged one met there folds the log
			// afresh too, rather than leaving it out.
			read, size := *h, fi.Size()
			l.lazy.refold = func() *Log { return refold(path, c, program, read, size) }
		}
		if grown := h.n - cached; grown >= cacheMinTail && grown >= cached/8 && !h.open {
			save(c, h.header(program), l)
		}
		return l, true, nil
	}
	// A state the tail joined failed its CRC: the cache is damaged
	// where its file's CRC does not reach; fold afresh.
	return nil, false, nil
}

// refold folds the log at path afresh for a log read through a cache
// found damaged after it was read (a state's record failing its CRC): the
// first size bytes, the log as it was read, when they still hash as they
// did (read); the log as it is now otherwise, as a later read would see
// it. It writes the cache again, as a read without one does. nil when the
// log cannot be read.
func refold(path string, c FoldCache, program string, read prefixHash, size int64) *Log {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := &prefixHash{}
	l, err := foldFrom(io.NewSectionReader(f, 0, size), 1, h.add)
	if err != nil {
		return nil
	}
	if h.n != read.n || h.lines != read.lines || h.crc != read.crc || !bytes.Equal(h.tail, read.tail) {
		h = &prefixHash{}
		if l, err = foldFrom(io.NewSectionReader(f, 0, 1<<62), 1, h.add); err != nil {
			return nil
		}
	}
	if h.n > 0 && !h.open {
		save(c, h.header(program), l)
	}
	return l
}

// tailPart is a part of the log's tail as foldFrom read it: a buffer of
// its own, never reused.
type tailPart struct {
	data  []byte
	final bool
}

// minMappedTail is the shortest tail folded from a mapping: a session's
// few lines cost less read than a mapping costs to make and undo.
const minMappedTail = 64 << 10

// maxTailBeside is the longest tail folded beside the prefix's check,
// its parts kept until the check is done.
const maxTailBeside = 8 << 20

// readCached reads the cache and checks its own bytes; it checks the
// log's first bytes (read from f into h) against it on another goroutine,
// and prefixOK waits for that check and reports whether they match (h
// then holds them). l is not to be trusted, nor f closed, until prefixOK
// said yes; prefixOK is to be called before returning, whatever happens.
func readCached(f *os.File, c FoldCache, program string, h *prefixHash) (l *Log, hdr cacheHeader, prefixOK func() bool, ok bool) {
	if program == "" {
		return nil, hdr, func() bool { return false }, false
	}
	var prefix chan bool
	var matched, waited bool
	prefixOK = func() bool {
		if prefix != nil && !waited {
			matched, waited = <-prefix, true
		}
		return matched
	}
	defer func() {
		if !ok {
			prefixOK()
		}
	}()
	// Both files are mapped rather than read when they can be: a fault
	// reading them (a file cut short in place under the mapping, which
	// devlearn never does) reads as no cache.
	defer catchFault(&ok, debug.SetPanicOnFault(true))
	cf, err := os.Open(c.Path)
	if err != nil {
		return nil, hdr, prefixOK, false
	}
	defer cf.Close()
	fi, err := cf.Stat()
	if err != nil {
		return nil, hdr, prefixOK, false
	}
	data, unmap, mapped := mapFile(cf, fi.Size())
	if !mapped {
		data = make([]byte, fi.Size())
		if _, err := io.ReadFull(cf, data); err != nil {
			return nil, hdr, prefixOK, false
		}
	}
	keep := false
	defer func() {
		if mapped && !keep {
			unmap()
		}
	}()
	// The states read back keep views of data as their strings when it
	// was read (data is never written to again, so it can be one string
	// without a copy), copies when it is mapped.
	str := unsafe.String(unsafe.SliceData(data), len(data))
	hdr, r, err := parseHeader(str)
	if err != nil || hdr.program != program || hdr.size <= 0 {
		return nil, hdr, prefixOK, false
	}
	if fi, err := f.Stat(); err != nil || fi.Size() < hdr.size {
		return nil, hdr, prefixOK, false
	}
	prefix = make(chan bool, 1)
	go func(want cacheHeader) {
		ok := false
		defer func() { prefix <- ok }()
		defer catchFault(&ok, debug.SetPanicOnFault(true))
		ok = hashPrefix(f, want.size, h) && h.matches(want)
		h.lines = want.lines // as many as in the bytes it hashed, when their CRC matched
	}(hdr)
	if !checkCache(str, r) {
		return nil, hdr, prefixOK, false
	}
	r.clone = mapped
	if l, err = r.log(); err != nil {
		return nil, hdr, prefixOK, false
	}
	if mapped && l.lazy != nil {
		// Unmapped once no state is left to decode from it.
		keep = true
		runtime.AddCleanup(l.lazy, func(unmap func()) { unmap() }, unmap)
	}
	return l, hdr, prefixOK, true
}

// hashPrefix adds the first n bytes of f to h.
func hashPrefix(f *os.File, n int64, h *prefixHash) bool {
	if data, unmap, ok := mapFile(f, n); ok {
		defer unmap()
		h.hash(data)
		return true
	}
	buf := make([]byte, min(n, 1<<20))
	for left := n; left > 0; {
		m, err := f.ReadAt(buf[:min(left, int64(len(buf)))], n-left)
		if m == 0 && err != nil {
			return false
		}
		h.hash(buf[:m])
		left -= int64(m)
	}
	return true
}

// catchFault, deferred with the goroutine's previous SetPanicOnFault,
// turns a fault reading a mapped file into ok = false; any other panic
// goes on.
func catchFault(ok *bool, old bool) {
	debug.SetPanicOnFault(old)
	if e := recover(); e != nil {
		if _, fault := e.(interface{ Addr() uintptr }); !fault {
			panic(e)
		}
		*ok = false
	}
}

// save writes the cache through the one writer, as a whole new file
// renamed over the old; failing to is only slower next time.
func save(c FoldCache, h cacheHeader, l *Log) {
	if h.program == "" {
		return
	}
	if err := safefile.MkdirAll(c.Root, filepath.Dir(c.Path), 0o755); err != nil {
		return
	}
	_ = jsonl.WriteRename(c.Root, c.Path, 0o644, func(w *bufio.Writer) error { return writeCache(w, h, l) })
}
