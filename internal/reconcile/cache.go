package reconcile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/stamp"
)

// The quiet-run cache. Reconcile runs at every session start, and most of
// the time nobody touched anything. When a full run finds nothing to
// record, it keeps a proof for every file its answer depends on: the log,
// the manifest, the knowledge files, each artifact, the artifact folders'
// listings, every file it looked at for an orphan, every code reference it
// checked and the git index and config. If each proof still holds, the
// next run's answer is the same, and it is given without judging anything:
// what git does with its index.
//
// A proof is the file's stamp (size, mtime, inode, existence; a link's
// target's, as reading follows links) when the stamp is settled: older than the run's start by the racy window
// (stamp.RacyAt), so that nothing wrote the file after the run began and
// any later write changes the stamp. A file written just before the run
// (a render's artifacts, the second before) is racy: its stamp cannot tell
// a same-size write in the same tick. For the files the run read itself it
// keeps the hash of the bytes it judged, and the next run compares the
// file's content with it, then records the file as settled (git's racily
// clean entries). A racy file whose bytes the run did not judge itself (the
// log, the git index) means no cache: the next run checks in full.
const cacheVersion = "devlearn-reconcile-cache 4"

// cacheMaxAge bounds what time alone could change (a ready observation
// fading below its threshold): past it, a full run happens anyway.
const cacheMaxAge = 6 * time.Hour

func cachePath(p *project.Project) string {
	return p.StatePath("cache", p.WorktreeID(), "reconcile")
}

// Kinds of proof, one letter in the cache.
const (
	byStamp   = 's' // the stamp taken before the run read the file
	byContent = 'c' // the bytes the run judged (data), a file or missing
	byListing = 'l' // the names the run listed in a folder (data)
	byPresent = 'e' // whether a code reference is there, following links
)

// proof is what a run knows of one file it judged.
type proof struct {
	kind   byte
	exists bool        // byContent, byListing, byPresent: as judged
	data   []byte      // byContent, byListing: what was judged
	pre    stamp.Stamp // byStamp: before the run read it
	// judged: pre is the stamp the run judged the file by, taken after its
	// start (a render's hand-over): a write since would have changed it, so
	// the cache keeps it without stamping the file again.
	judged bool
}

// judged records what the run read of rel (a project path, or "!" and an
// absolute path outside the working tree).
func (u *run) judged(rel string, pf proof) { u.proofs[rel] = pf }

// stampOf stamps a cache's name: a path relative to the working tree, or
// "!" and an absolute path.
func stampOf(root *stamp.Folder, name string) stamp.Stamp {
	if abs, ok := strings.CutPrefix(name, "!"); ok {
		return stamp.Of(abs)
	}
	s, _ := root.Stat(name)
	return s
}

// preStamp proves the files the run reads through other packages by their
// stamps before reading: the log, and git's index and config.
func (u *run) preStamp() {
	for _, name := range append([]string{project.LogFile}, gitFiles(u.r.Proj)...) {
		u.judged(name, proof{kind: byStamp, pre: stampOf(u.root, name)})
	}
}

// gitFiles are outside the working tree but change the answer: the index
// (tracked names, skip-worktree bits) and the config (sparse checkout).
func gitFiles(p *project.Project) []string {
	return []string{"!" + filepath.Join(p.GitDir, "index"), "!" + filepath.Join(p.CommonDir, "config"), "!" + filepath.Join(p.GitDir, "config.worktree")}
}

// present is what gone asks of a code reference: there, or not known to be
// missing.
func present(root *stamp.Folder, rel string) bool {
	_, err := root.Stat(rel)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// listing is what a run judged of a folder: its names, a slash after each
// folder's.
func listing(entries []os.DirEntry) []byte {
	var b []byte
	for _, e := range entries {
		b = append(b, e.Name()...)
		if e.IsDir() {
			b = append(b, '/')
		}
		b = append(b, '\n')
	}
	return b
}

func hashOfBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// current is what the file name is now, in the terms of a proof of kind:
// its stamp, and for a racy byContent or byListing proof the hash of its
// bytes or listing.
func currentHash(p *project.Project, root *stamp.Folder, kind byte, rel string) (string, bool) {
	if kind == byListing {
		entries, err := os.ReadDir(p.Path(rel))
		if err != nil {
			return "", false
		}
		return hashOfBytes(listing(entries)), true
	}
	data, err := root.ReadFile(rel)
	if err != nil {
		return "", false
	}
	return hashOfBytes(data), true
}

// saveCache records a quiet run, unless some file changed while it ran or
// cannot be proved. Errors are ignored: the cache only ever saves time.
func (u *run) saveCache() {
	p := u.r.Proj
	res, _ := json.Marshal(u.res)
	// Sized for the proofs' lines (about 100 bytes each): grown from the
	// result's, it allocated four times the 60 KB of a run right after a
	// bulk render, every fresh page a fault.
	b := make([]byte, 0, len(res)+1+len(u.proofs)*128)
	b = append(append(b, res...), '\n')
	for name, pf := range u.proofs {
		if pf.kind == byPresent {
			if present(u.root, name) != pf.exists {
				return
			}
			b = append(b, pf.kind, ' ', '0', ' ', '0', ' ', '0', ' ', byte('0'+b2i(pf.exists)), ' ', '-', ' ')
			b = append(append(b, name...), '\n')
			continue
		}
		var cur stamp.Stamp
		if pf.judged {
			cur = pf.pre
		} else {
			cur = stampOf(u.root, name)
		}
		hash := "-"
		switch {
		case pf.kind == byStamp:
			if cur != pf.pre || cur.RacyAt(u.start) {
				return // changed, or may have, since the run read it
			}
		case cur.Exists != pf.exists:
			return
		case cur.RacyAt(u.start):
			hash = hashOfBytes(pf.data)
		}
		b = append(b, pf.kind, ' ')
		b = strconv.AppendInt(b, cur.Size, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, cur.Mtime, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, cur.Ino, 10)
		b = append(b, ' ', byte('0'+b2i(cur.Exists)), ' ')
		b = append(append(b, hash...), ' ')
		b = append(append(b, name...), '\n')
	}
	writeCache(p, withHead(u.r.Opts.Now.Unix(), configKey(u.r.Opts.Config), b))
}

// withHead puts the cache's first line before body: the version, when the
// run was, the config's key and a checksum of body, so that a cache torn
// by a crash (it is written without a sync) or damaged is never read as
// a shorter list of proofs.
func withHead(at int64, key string, body []byte) []byte {
	sum := sha256.Sum256(body)
	head := fmt.Sprintf("%s %d %s %s\n", cacheVersion, at, key, hex.EncodeToString(sum[:16]))
	return append([]byte(head), body...)
}

// writeCache replaces the cache without a sync: a crash leaves the old
// cache, the new one, or one that fails its checksum.
func writeCache(p *project.Project, data []byte) {
	_ = safefile.MkdirAll(p.CommonDir, filepath.Dir(cachePath(p)), 0o755)
	_ = jsonl.WriteFileRename(p.CommonDir, cachePath(p), data, 0o644)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// configKey names the config in force, project and global files alike:
// its thresholds decide orphan adoption and staleness, so an answer given
// under other thresholds is not this config's. It hashes every exported
// field's value, walked by reflection: encoding/json built an encoder for
// each of the config's twenty-odd types first, 0.5 ms of every run, the
// quiet ones too.
func configKey(cfg *config.Config) string {
	sum := sha256.Sum256(appendValue(nil, reflect.ValueOf(cfg).Elem()))
	return hex.EncodeToString(sum[:8])
}

// appendValue writes v so that two values write the same bytes only when
// they are equal: names before fields, strings quoted, lists and maps
// delimited, maps by their keys' order.
func appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		b = append(b, '{')
		for i := range v.NumField() {
			if f := t.Field(i); f.IsExported() {
				b = appendValue(append(append(b, f.Name...), ':'), v.Field(i))
				b = append(b, ';')
			}
		}
		return append(b, '}')
	case reflect.String:
		return strconv.AppendQuote(b, v.String())
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.AppendFloat(b, v.Float(), 'g', -1, 64)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, "nil"...)
		}
		b = append(b, '[')
		for i := range v.Len() {
			b = append(appendValue(b, v.Index(i)), ',')
		}
		return append(b, ']')
	case reflect.Map:
		if v.IsNil() {
			return append(b, "nil"...)
		}
		entries := make([][]byte, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			e := appendValue(nil, it.Key())
			entries = append(entries, appendValue(append(e, ':'), it.Value()))
		}
		slices.SortFunc(entries, bytes.Compare)
		b = append(b, '(')
		for _, e := range entries {
			b = append(append(b, e...), ',')
		}
		return append(b, ')')
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "nil"...)
		}
		return appendValue(append(b, '&'), v.Elem())
	}
	// A kind no config holds (a func, a channel): named, so that the key
	// still changes with everything else.
	return append(b, v.Type().String()...)
}

// cached returns the answer of the last quiet run if every proof it kept
// still holds. start is when this run began, before it looked at any file:
// the racy files whose content it found unchanged and that are settled by
// now are written back as settled, so that later runs only stamp them.
func cached(p *project.Project, now time.Time, cfg *config.Config, start time.Time) *Result {
	data, err := os.ReadFile(cachePath(p))
	if err != nil {
		return nil
	}
	root, err := stamp.OpenFolder(p.Root)
	if err != nil {
		return nil
	}
	defer root.Close()
	rest := data
	next := func() ([]byte, int) {
		at := len(data) - len(rest)
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, -1
		}
		rest = after
		return line, at
	}
	first, _ := next()
	head := strings.Fields(string(first))
	if len(head) != 5 || head[0]+" "+head[1] != cacheVersion || head[3] != configKey(cfg) {
		return nil
	}
	if sum := sha256.Sum256(rest); head[4] != hex.EncodeToString(sum[:16]) {
		return nil
	}
	at, err := strconv.ParseInt(head[2], 10, 64)
	if err != nil || now.Sub(time.Unix(at, 0)) > cacheMaxAge || now.Before(time.Unix(at, 0)) {
		return nil
	}
	second, _ := next()
	res := &Result{}
	if err := json.Unmarshal(second, res); err != nil {
		return nil
	}
	var settled [][2]int // where the hashes proved and settled since are
	for len(rest) > 0 {
		line, off := next()
		fields := bytes.SplitN(line, []byte(" "), 7)
		if off < 0 || len(fields) != 7 || len(fields[0]) != 1 {
			return nil
		}
		kind, hash, name := fields[0][0], string(fields[5]), string(fields[6])
		if kind == byPresent {
			if present(root, name) != (string(fields[4]) == "1") {
				return nil
			}
			continue
		}
		cur := stampOf(root, name)
		if strconv.FormatInt(cur.Size, 10) != string(fields[1]) || strconv.FormatInt(cur.Mtime, 10) != string(fields[2]) ||
			strconv.FormatUint(cur.Ino, 10) != string(fields[3]) || (cur.Exists != (string(fields[4]) == "1")) {
			return nil
		}
		if hash == "-" {
			continue
		}
		if strings.HasPrefix(name, "!") || kind == byStamp || kind == byPresent {
			return nil // only what the run read itself is proved by content
		}
		if got, ok := currentHash(p, root, kind, name); !ok || got != hash {
			return nil
		}
		if !cur.RacyAt(start) {
			h := off + len(line) - len(name) - 1 - len(hash)
			settled = append(settled, [2]int{h, h + len(hash)})
		}
	}
	if len(settled) > 0 {
		body := len(first) + 1
		writeCache(p, withHead(at, head[3], settle(data, body, settled)))
	}
	return res
}

// settle replaces the hashes at the given ranges of a cache with "-", and
// returns what follows its first line (from body on).
func settle(data []byte, body int, ranges [][2]int) []byte {
	out := make([]byte, 0, len(data)-body)
	last := body
	for _, r := range ranges {
		out = append(append(out, data[last:r[0]]...), '-')
		last = r[1]
	}
	return append(out, data[last:]...)
}
