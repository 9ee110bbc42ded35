// Package handover passes what a render wrote to the reconcile that
// follows it: for each artifact file, the hash of the bytes the render
// wrote and the file's stamp, so that reconcile's first check reads only
// what changed since, as git trusts the stat data a checkout leaves in its
// index.
//
// The stamp is the one the file had as the one writer wrote it (taken on
// the written file before it was closed; the rename into place keeps its
// size, mtime and inode), and it is handed over only when the file still
// has it at the render's end and its mtime was settled then (stamp.RacyAt
// against the time taken before that check: git's rule for its index). A
// write after the render's, of any size, gives the file another stamp
// unless it lands in the same clock tick, and a file written in the racy
// window before the end is left out, as git leaves out racy entries:
// reconcile reads it.
//
// It is a cache and nothing else: a missing, stale, torn or foreign
// hand-over changes nothing but how many files reconcile reads. Every
// entry is checked against the file's current stamp; the whole file
// against its own checksum, so that a torn or damaged one is never read
// as a claim about any file.
package handover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/stamp"
)

// version heads the file; another version is not read.
const version = "devlearn-handover 1"

// Path is the hand-over of p's working tree, beside its other caches in
// the clone's git folder.
func Path(p *project.Project) string { return p.StatePath("cache", p.WorktreeID(), "rendered") }

// Written is what a run wrote to a file: contenthash.Hash of the bytes, and
// the file's stamp as it was written (evolve.Writer.Written).
type Written struct {
	Hash  string
	Stamp stamp.Stamp
}

// Write records the files a run just wrote, by their paths (relative to
// the root, forward slashes). It is called once the run's writes are
// done; the files are stamped again after the time they are judged
// against is taken, and one whose stamp is no longer the one it was
// written with is left out: something wrote it since. Errors are ignored:
// the hand-over only ever saves time.
func Write(p *project.Project, written map[string]Written) {
	if len(written) == 0 {
		return
	}
	at := time.Now() // before any stamp: RacyAt's rule
	root, err := stamp.OpenFolder(p.Root)
	if err != nil {
		return
	}
	defer root.Close()
	var body []byte
	for _, rel := range slices.Sorted(maps.Keys(written)) {
		hash := written[rel].Hash
		if len(hash) != sha256.Size*2 || strings.ContainsAny(rel, "\n") {
			continue
		}
		s, err := root.Stat(rel)
		if err != nil || s != written[rel].Stamp || s.RacyAt(at) {
			continue
		}
		body = strconv.AppendInt(body, s.Size, 10)
		body = append(body, ' ')
		body = strconv.AppendInt(body, s.Mtime, 10)
		body = append(body, ' ')
		body = strconv.AppendUint(body, s.Ino, 10)
		body = append(body, ' ')
		body = append(body, hash...)
		body = append(body, ' ')
		body = append(body, rel...)
		body = append(body, '\n')
	}
	if len(body) == 0 {
		return // nothing settled: an older hand-over holds only what it proves
	}
	sum := sha256.Sum256(body)
	data := []byte(version + " " + strconv.FormatInt(at.UnixNano(), 10) + " " + hex.EncodeToString(sum[:16]) + "\n")
	data = append(data, body...)
	path := Path(p)
	if safefile.MkdirAll(p.CommonDir, filepath.Dir(path), 0o755) != nil {
		return
	}
	// Not synced: a crash leaves the old file, the new one, or one that
	// fails its checksum.
	_ = jsonl.WriteFileRename(p.CommonDir, path, data, 0o644)
}

type entry struct {
	hash  string
	stamp stamp.Stamp
}

// Files is a hand-over as read.
type Files struct {
	at    time.Time
	files map[string]entry
}

// Load reads p's hand-over; nil when there is none or it cannot be
// trusted as a whole.
func Load(p *project.Project) *Files {
	data, err := os.ReadFile(Path(p))
	if err != nil {
		return nil
	}
	return parse(data)
}

func parse(data []byte) *Files {
	head, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil
	}
	fields := strings.Fields(string(head))
	if len(fields) != 4 || fields[0]+" "+fields[1] != version {
		return nil
	}
	at, err := strconv.ParseInt(fields[2], 10, 64)
	sum := sha256.Sum256(body)
	if err != nil || fields[3] != hex.EncodeToString(sum[:16]) {
		return nil
	}
	// The map made its size at once and the lines cut from one string: a
	// bulk render hands over a line per artifact, and the reconcile right
	// after it is a fresh process, for which every page of memory is a
	// fault (a map grown line by line allocated twice its size).
	f := &Files{at: time.Unix(0, at), files: make(map[string]entry, bytes.Count(body, []byte("\n")))}
	rest := string(body)
	for len(rest) > 0 {
		line, more, ok := strings.Cut(rest, "\n")
		if !ok {
			return nil
		}
		rest = more
		var parts [5]string
		for i := range 4 {
			if parts[i], line, ok = strings.Cut(line, " "); !ok {
				return nil
			}
		}
		parts[4] = line
		if len(parts[3]) != sha256.Size*2 {
			return nil
		}
		size, err1 := strconv.ParseInt(parts[0], 10, 64)
		mtime, err2 := strconv.ParseInt(parts[1], 10, 64)
		ino, err3 := strconv.ParseUint(parts[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil
		}
		f.files[parts[4]] = entry{hash: parts[3], stamp: stamp.Stamp{Exists: true, Size: size, Mtime: mtime, Ino: ino}}
	}
	return f
}

// Has reports whether rel was handed over at all, before stamping it.
func (f *Files) Has(rel string) bool {
	if f == nil {
		return false
	}
	_, ok := f.files[rel]
	return ok
}

// Hash is the hash of the bytes at rel, known without reading them, when
// cur (its stamp now, taken by the caller) is the stamp handed over and
// that stamp was settled when it was taken.
func (f *Files) Hash(rel string, cur stamp.Stamp) (string, bool) {
	if f == nil {
		return "", false
	}
	e, ok := f.files[rel]
	if !ok || !cur.Exists || cur != e.stamp || cur.RacyAt(f.at) {
		return "", false
	}
	return e.hash, true
}
