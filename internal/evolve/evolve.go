// Package evolve is the one writer: every file devlearn writes in a
// project goes through it. It locks, keeps a copy of what it replaces in
// the per-clone state, writes atomically, and
// appends an entry to .memory/evolution/log.jsonl, so any change devlearn
// made can be listed, explained and reverted.
//
// A batch is crash-safe as a whole: the audit entry is the commit point.
// Before it, nothing in the project has changed; after it, a crash is
// rolled forward by the next writer from the synced temporary files.
// Durability costs one filesystem sync per batch, whatever the number of
// files: the sync before the commit point, which also makes the previous
// batch's last steps durable (see Apply).
package evolve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/devlearn/devlearn/internal/crashpoint"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/stamp"
)

// Trigger says what asked for a change.
type Trigger struct {
	Command string `json:"command"`
	Session string `json:"session,omitempty"`
	Task    string `json:"task,omitempty"`
}

// Reason says why, and on the strength of which observations.
type Reason struct {
	Text         string   `json:"text"`
	Observations []string `json:"observations,omitempty"`
	// Reverts names the entry a revert undid.
	Reverts string `json:"reverts,omitempty"`
}

// FileChange records one file of a batch by git blob hashes ("" = absent).
type FileChange struct {
	Path   string `json:"path"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Entry is one line of the audit log.
type Entry struct {
	ID      string       `json:"id"`
	Time    string       `json:"time"`
	Trigger Trigger      `json:"trigger"`
	Files   []FileChange `json:"files"`
	Reason  Reason       `json:"reason"`
}

// Change is a file to write (or remove) in the project.
type Change struct {
	Path   string // relative to the project root, forward slashes
	Data   []byte
	Remove bool
	// Forget leaves the replaced content out of the kept copies: it holds
	// what must not survive (devlearn redact), so this change can never be
	// reverted to it.
	Forget bool
	// Guard makes the change conditional: Apply refuses the whole batch
	// unless the file's content, read under the lock, has the blob hash
	// Expect ("" = absent). A revert decides on what it read before the
	// lock; the guard keeps a write that came in between from being lost.
	Guard  bool
	Expect string
}

// Writer writes a project's files. Create one per command run.
type Writer struct {
	proj    *project.Project
	now     time.Time
	trigger Trigger
	// written are the stamps of the files the last Apply wrote, taken
	// as each was written (its temporary file: the rename keeps size,
	// mtime and inode). See Written.
	written map[string]stamp.Stamp
	// touched are the files every Apply of this writer changed (Touched).
	touched map[string]bool
}

// Written is the stamp the file at path (relative to the root, forward
// slashes) had as the last Apply wrote it, before anyone else could write
// it: a reader that finds the same stamp later, settled, finds the bytes
// written (git's index after a checkout; internal/handover).
func (w *Writer) Written(path string) (stamp.Stamp, bool) {
	s, ok := w.written[path]
	return s, ok
}

// New returns the writer of p for one command run.
func New(p *project.Project, now time.Time, trigger Trigger) *Writer {
	return &Writer{proj: p, now: now.UTC(), trigger: trigger}
}

// Now is the time this writer stamps its changes with.
func (w *Writer) Now() time.Time { return w.now }

// LogPath is the audit log, relative to the root.
const LogPath = project.EvolutionLog

func (w *Writer) lockPath() string { return w.proj.LockPath(".memory/evolution") }
func (w *Writer) pendingPath() string {
	return w.proj.StatePath("pending", w.proj.WorktreeID()+".json")
}

// donePath is the batch in flight renamed once its files are in place:
// finished, but its last steps (the audit entry, the renames) not yet
// known to be durable; the next batch's sync makes them so, and its own
// marker replaces this one.
func (w *Writer) donePath() string {
	return w.proj.StatePath("pending", w.proj.WorktreeID()+".done.json")
}

// ObjectPath is where the copy of a content with git blob hash h is kept.
func (w *Writer) ObjectPath(h string) string { return ObjectPath(w.proj, h) }

// ObjectPath is where the copy of a content with git blob hash h is kept
// in p's per-clone state.
func ObjectPath(p *project.Project, h string) string { return p.StatePath("objects", h[:2], h[2:]) }

// BlobHash is the git blob hash of data, the name of a content in the audit
// log and in git alike.
func BlobHash(data []byte) string { return plumbing.ComputeHash(plumbing.BlobObject, data).String() }

// pending is the batch in flight, written before any project file is
// touched, so the next writer knows what to finish or undo.
type pending struct {
	Entry Entry    `json:"entry"`
	Temps []string `json:"temps"`
	Gone  []bool   `json:"remove"`
	// Pack is the pack the batch kept its copies in, if it packed them:
	// the sync's fallback list names it.
	Pack string `json:"pack,omitempty"`
	// Boot names the system's boot the batch was written in (bootID):
	// while it is the same, everything the batch did is in the system's
	// memory, seen by every reader, whatever a disk holds. It stays the
	// last field: Unsettled reads it from the marker's last bytes
	// (TestAFinishedBatchIsSettled).
	Boot string `json:"boot,omitempty"`
}

// bootID names the running boot of the system ("" where it cannot be
// told): a batch finished in this boot needs no look at the disk to know
// its steps all happened; only a crash of the system, which ends the
// boot, can lose them.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// trees are the two folders a batch writes below, each opened once for
// the batch under the writer's lock (safefile.Tree): the project's working
// tree, and the clone's git folder that holds the kept copies and the
// batch in flight. A batch of hundreds of files walks each folder once,
// not once per operation of each file.
type trees struct{ proj, state *safefile.Tree }

func (w *Writer) open() trees {
	return trees{proj: safefile.NewTree(w.proj.Root), state: safefile.NewTree(w.proj.CommonDir)}
}

func (t trees) close() {
	t.proj.Close()
	t.state.Close()
}

// Apply writes a batch of changes and records it. Unchanged files are left
// out; a batch that changes nothing writes nothing and returns nil.
func (w *Writer) Apply(ctx context.Context, reason Reason, changes ...Change) (*Entry, error) {
	unlock, err := jsonl.Lock(ctx, w.lockPath())
	if err != nil {
		return nil, err
	}
	defer unlock()
	t := w.open()
	defer t.close()
	done, err := w.recover(t)
	if err != nil {
		return nil, fmt.Errorf("finishing an interrupted write: %w", err)
	}

	p := pending{Entry: Entry{Time: w.now.Format(time.RFC3339), Trigger: w.trigger, Reason: reason}}
	var writes []Change
	var keeps []packed
	// Folders the reads below found missing: a file below one is absent
	// too, with no look (a first bulk render creates hundreds of files in
	// folders that do not exist yet; each look was a failed openat).
	var missing safefile.Absent
	for _, c := range changes {
		if c.Path == LogPath {
			// Apply appends its entry to the audit log and then moves its
			// files into place: a new log content would lose that entry.
			return nil, fmt.Errorf("refusing to write %s through Apply: use RewriteLog", LogPath)
		}
		abs, err := w.safePath(c.Path)
		if err != nil {
			return nil, err
		}
		// The one look at the file before it is replaced, through the
		// batch's open folders: a symbolic link at it or at a folder on
		// the way is refused here, before anything of the batch is
		// written, and a batch with one refused file writes none.
		before, err := readBefore(t.proj, abs, &missing)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		fc := FileChange{Path: c.Path}
		if exists {
			fc.Before = BlobHash(before)
		}
		if !c.Remove {
			fc.After = BlobHash(c.Data)
		}
		if c.Guard && fc.Before != c.Expect {
			return nil, &ChangedError{Path: c.Path, Expected: c.Expect, Current: fc.Before}
		}
		if fc.Before == fc.After {
			continue
		}
		// What is replaced is kept, for revert; what is written too, so
		// that `history show` and a refused revert can show what a person
		// changed since. Both are found by their hash; an unchanged file
		// is not replaced, and a copy of it would be kept by no entry.
		if exists && !c.Forget {
			keeps = append(keeps, packed{fc.Before, before})
		}
		if !c.Remove {
			keeps = append(keeps, packed{fc.After, c.Data})
		}
		p.Entry.Files = append(p.Entry.Files, fc)
		writes = append(writes, c)
	}
	if len(writes) == 0 {
		return nil, nil
	}
	if p.Pack, err = w.keepAll(t, keeps); err != nil {
		return nil, err
	}
	p.Entry.ID = entryID(&p.Entry)
	p.Boot = bootID()
	for _, c := range writes {
		p.Temps = append(p.Temps, tempName(c.Path, p.Entry.ID))
		p.Gone = append(p.Gone, c.Remove)
	}
	if err := writeJSON(t.state, w.pendingPath(), p); err != nil {
		return nil, err
	}
	w.written = make(map[string]stamp.Stamp, len(writes))
	for i, c := range writes {
		if c.Remove {
			continue
		}
		tmp := filepath.Join(w.proj.Root, filepath.FromSlash(p.Temps[i]))
		if err := t.proj.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
			return nil, err
		}
		fi, err := t.proj.WriteFileStat(tmp, c.Data, 0o644)
		if err != nil {
			return nil, err
		}
		w.written[c.Path] = stamp.Info(fi)
	}
	crashpoint.Hit("evolve:temps-written")
	// The one sync of the batch: its marker, temporary files and kept
	// copies (and whatever its caller wrote before, as render's intents),
	// and the previous batch's audit entry and renames, which it left
	// unsynced under its done marker (finish).
	toSync := func() []string {
		files := w.files(p)
		if done != nil {
			files = append(files, w.files(*done)...)
		}
		return files
	}
	if err := syncBatch(w.proj.Root, toSync); err != nil {
		return nil, err
	}
	// The finished batch's marker is not removed here: this batch's own
	// is renamed over it once this one is finished, and until then a
	// crash leaves it to be found settled again.
	crashpoint.Hit("evolve:synced")

	line, err := json.Marshal(p.Entry)
	if err != nil {
		return nil, err
	}
	if err := jsonl.AppendLocked(w.proj.Root, w.proj.Path(LogPath), line); err != nil {
		return nil, err
	}
	crashpoint.Hit("evolve:committed")

	if err := w.finish(t, p); err != nil {
		return nil, err
	}
	if w.touched == nil {
		w.touched = map[string]bool{LogPath: true}
	}
	for _, f := range p.Entry.Files {
		w.touched[f.Path] = true
	}
	return &p.Entry, nil
}

// Touched lists, sorted, every project file this writer's batches wrote or
// removed, with the audit log they were recorded in: what a person commits
// after the command ('devlearn init' names them).
func (w *Writer) Touched() []string {
	return slices.Sorted(maps.Keys(w.touched))
}

// readBefore reads the file at abs through t, unless it lies below a
// folder of missing, which it extends with the folder a read finds
// missing on the way to abs (the path of the failed open).
func readBefore(t *safefile.Tree, abs string, missing *safefile.Absent) ([]byte, error) {
	if missing.Below(abs) {
		return nil, fs.ErrNotExist
	}
	data, err := t.ReadFile(abs)
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) && (safefile.Absent{pe.Path}).Below(abs) {
		*missing = append(*missing, pe.Path)
	}
	return data, err
}

// finish moves a committed batch into place and renames its marker to
// the done marker, with no second sync: until the next batch's sync, a
// crash of the system may lose any of the audit entry, the renames and
// the marker's rename (the temporary files and the marker's content were
// synced before the commit point), and recover rolls the batch forward
// from whichever marker is left: the done one, or the one in flight with
// the entry in the audit log or a file moved into place.
func (w *Writer) finish(t trees, p pending) error {
	for i, fc := range p.Entry.Files {
		abs := w.proj.Path(fc.Path)
		if p.Gone[i] {
			if err := t.proj.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		} else if err := t.proj.Rename(w.proj.Path(p.Temps[i]), abs); err != nil {
			return err
		}
		crashpoint.Hit("evolve:file-replaced")
	}
	if p.Boot == "" {
		// No boot to tell a crash of the system by: the done marker's
		// check would have to look at the disk, which another branch
		// checked out meanwhile makes ambiguous. Sync, and forget.
		if err := syncBatch(w.proj.Root, func() []string { return w.files(p) }); err != nil {
			return err
		}
		return w.removePending(t)
	}
	if err := t.state.Rename(w.pendingPath(), w.donePath()); err != nil {
		return err
	}
	crashpoint.Hit("evolve:finished")
	return nil
}

// removePending forgets the batch in flight.
func (w *Writer) removePending(t trees) error { return t.state.Remove(w.pendingPath()) }

// readMarker reads a batch's marker; ok is false when there is none, or
// when it does not decode (a marker torn before its sync: nothing was
// committed after it).
func (w *Writer) readMarker(t trees, path string) (p pending, ok bool, err error) {
	data, err := t.state.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	if err := json.Unmarshal(data, &p); err != nil || len(p.Temps) != len(p.Entry.Files) || len(p.Gone) != len(p.Temps) {
		return p, false, t.state.Remove(path)
	}
	return p, true, nil
}

// recover finishes or undoes what the previous writer left: first the
// batch it finished (its done marker), then a batch a crashed writer left
// in flight. done is the finished batch when it needed nothing: its
// marker is left for the caller to replace or remove once a sync of its
// own made that batch durable (a caller that syncs nothing leaves it).
func (w *Writer) recover(t trees) (done *pending, err error) {
	if p, ok, err := w.readMarker(t, w.donePath()); err != nil {
		return nil, err
	} else if ok && p.Boot == bootID() {
		// Finished in this boot: all its steps happened, whatever the
		// disk holds yet, and whatever changed the files since (another
		// branch checked out) is someone else's. The caller's sync makes
		// it durable.
		done = &p
	} else if ok {
		// A crash of the system since may have lost its last steps: the
		// renames whose temporary files are still there are done again,
		// and then the entry, if the log lost it too. Without a
		// temporary file left, the batch reached the disk as far as can
		// be told: an entry missing from the log is another branch's
		// doing as likely as the crash's, and is left alone.
		if err := w.afterReboot(t, p); err != nil {
			return nil, err
		}
	}
	p, ok, err := w.readMarker(t, w.pendingPath())
	if !ok || err != nil {
		return done, err
	}
	// Committed: its entry is in the audit log. After a crash of the
	// system (another boot), also when a file was moved into place, which
	// only happens after the entry was appended: the crash may have kept
	// the rename and lost the append.
	committed, err := w.inLog(p.Entry.ID)
	if err != nil {
		return done, err
	}
	for i, fc := range p.Entry.Files {
		if committed || p.Boot == "" || p.Boot == bootID() {
			break
		}
		if p.Gone[i] {
			continue
		}
		tmpThere, err := t.proj.Exists(w.proj.Path(p.Temps[i]))
		if err != nil {
			return done, err
		}
		if cur, err := t.proj.ReadFile(w.proj.Path(fc.Path)); !tmpThere && err == nil && BlobHash(cur) == fc.After {
			committed = true
		}
	}
	if !committed {
		for _, tmp := range p.Temps {
			t.proj.Remove(w.proj.Path(tmp))
		}
		return done, w.removePending(t)
	}
	return done, w.rollForward(t, p, w.pendingPath())
}

// afterReboot finishes a batch whose done marker was left in another boot
// of the system: a file whose temporary file is still there, and still
// at its old content, is moved into place (the rename was lost), and the
// entry is appended if the log lost it too; then a sync, and the marker
// goes.
func (w *Writer) afterReboot(t trees, p pending) error {
	lost := false
	for i, fc := range p.Entry.Files {
		tmp := w.proj.Path(p.Temps[i])
		data, err := t.proj.ReadFile(tmp)
		if err != nil {
			continue
		}
		lost = true
		abs := w.proj.Path(fc.Path)
		curHash := ""
		if cur, err := t.proj.ReadFile(abs); err == nil {
			curHash = BlobHash(cur)
		}
		if curHash == fc.Before && BlobHash(data) == fc.After {
			if err := t.proj.Rename(tmp, abs); err != nil {
				return err
			}
		}
		t.proj.Remove(tmp)
	}
	if lost {
		if err := w.appendIfLost(p.Entry); err != nil {
			return err
		}
		if err := syncBatch(w.proj.Root, func() []string { return w.files(p) }); err != nil {
			return err
		}
	}
	return t.state.Remove(w.donePath())
}

// appendIfLost appends e to the audit log unless it is there: a batch
// rolled forward after a crash that lost its append.
func (w *Writer) appendIfLost(e Entry) error {
	logged, err := w.inLog(e.ID)
	if err != nil || logged {
		return err
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return jsonl.AppendLocked(w.proj.Root, w.proj.Path(LogPath), line)
}

// rollForward finishes a committed batch from its marker at marker: its
// entry appended to the audit log if a crash lost it, every file still at
// its old content moved into place from its temporary file (synced
// before the commit point); then a sync, and the marker goes.
func (w *Writer) rollForward(t trees, p pending, marker string) error {
	if err := w.appendIfLost(p.Entry); err != nil {
		return err
	}
	for i, fc := range p.Entry.Files {
		abs, tmp := w.proj.Path(fc.Path), w.proj.Path(p.Temps[i])
		curHash := ""
		if cur, err := t.proj.ReadFile(abs); err == nil {
			curHash = BlobHash(cur)
		}
		switch {
		case curHash != fc.Before:
			// In place already, or changed by someone since: leave it.
		case p.Gone[i]:
			if err := t.proj.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		default:
			// Not yet in place: its temporary file was synced before the
			// commit point.
			if data, err := t.proj.ReadFile(tmp); err != nil || BlobHash(data) != fc.After {
				return fmt.Errorf("%s: the new content (%s) was lost with its temporary file; the audit log entry %s describes it", fc.Path, fc.After, p.Entry.ID)
			}
			if err := t.proj.Rename(tmp, abs); err != nil {
				return err
			}
		}
		t.proj.Remove(tmp)
	}
	if err := syncBatch(w.proj.Root, func() []string { return w.files(p) }); err != nil {
		return err
	}
	return t.state.Remove(marker)
}

func (w *Writer) inLog(id string) (bool, error) {
	needle := []byte(`"id":"` + id + `"`)
	// The entry looked for is nearly always among the last: the log's end
	// first, where a whole line (ended by its newline, as the scan below
	// reads it) holding it is enough.
	if f, err := os.Open(w.proj.Path(LogPath)); err == nil {
		fi, err := f.Stat()
		if err == nil {
			tail := make([]byte, min(fi.Size(), 64<<10))
			if _, err := f.ReadAt(tail, fi.Size()-int64(len(tail))); err == nil {
				if i := bytes.Index(tail, needle); i >= 0 && bytes.IndexByte(tail[i:], '\n') >= 0 {
					f.Close()
					return true, nil
				}
			}
		}
		f.Close()
	}
	found := false
	_, err := jsonl.ScanFile(w.proj.Path(LogPath), func(n int, line []byte) error {
		if bytes.Contains(line, needle) {
			found = true
			return jsonl.Stop
		}
		return nil
	})
	if errors.Is(err, jsonl.ErrNotExist) {
		return false, nil
	}
	return found, err
}

// keepAll keeps the copies of a batch, once each: loose, one file each,
// or, for a batch of packMin copies or more, in one pack (see pack.go),
// whose path it returns. A copy already kept loose is not packed again;
// one already in another pack is (a reader takes either: the same bytes
// twice are harmless, and prune's explode keeps one).
func (w *Writer) keepAll(t trees, keeps []packed) (string, error) {
	if len(keeps) >= packMin {
		// A pack is only a cheaper way to keep them: where none can be
		// written (a link or a file at objects/pack), they are kept loose,
		// and an error common to both (a full disk) comes from there.
		if path, ok, err := w.pack(t, keeps); ok && err == nil {
			return path, nil
		}
	}
	for _, k := range keeps {
		if err := w.keep(t, k.hash, k.data); err != nil {
			return "", err
		}
	}
	return "", nil
}

// pack writes the batch's copies that are not kept loose as one pack,
// named by what it holds, through a temporary file and a rename (two
// worktrees of a clone share the copies, not the lock). ok is false when
// the clone holds packMax packs already: the copies are kept loose.
func (w *Writer) pack(t trees, keeps []packed) (path string, ok bool, err error) {
	if packs, err := Packs(w.proj); err != nil || len(packs) >= packMax {
		return "", false, err
	}
	// Loose copies are looked for only in the fan-out folders there are:
	// a first bulk render in a clone finds none and looks no further.
	fanout := map[string]bool{}
	if ents, err := os.ReadDir(w.proj.StatePath("objects")); err == nil {
		for _, e := range ents {
			fanout[e.Name()] = true
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	seen := make(map[string]bool, len(keeps))
	var copies []packed
	for _, k := range keeps {
		if seen[k.hash] {
			continue
		}
		seen[k.hash] = true
		if fanout[k.hash[:2]] {
			if there, err := t.state.Exists(w.ObjectPath(k.hash)); err != nil {
				return "", false, err
			} else if there {
				continue
			}
		}
		copies = append(copies, k)
	}
	if len(copies) == 0 {
		return "", true, nil
	}
	path = filepath.Join(PackDir(w.proj), packName(copies))
	if err := jsonl.WriteFileRenameIn(t.state, path, encodePack(copies), 0o644); err != nil {
		return "", false, err
	}
	crashpoint.Hit("evolve:packed")
	return path, true, nil
}

// keep stores a content under its hash, once.
func (w *Writer) keep(t trees, h string, data []byte) error {
	path := w.ObjectPath(h)
	if there, err := t.state.Exists(path); there || err != nil {
		return err
	}
	// A fixed temporary name would let two writers keeping the same
	// content at once tear each other's copy (two worktrees of a clone
	// share the copies, not the lock). Nothing was at path just now, a
	// link neither: the rename needs no second look.
	return jsonl.WriteFileRenameIn(t.state, path, data, 0o644)
}

// files lists every path a batch touches, for the sync fallback.
func (w *Writer) files(p pending) []string {
	out := []string{w.pendingPath(), w.donePath(), w.proj.Path(LogPath)}
	if p.Pack != "" {
		out = append(out, p.Pack)
	}
	for i, fc := range p.Entry.Files {
		out = append(out, w.proj.Path(fc.Path), w.proj.Path(p.Temps[i]))
		if fc.Before != "" {
			out = append(out, w.ObjectPath(fc.Before))
		}
		if fc.After != "" {
			out = append(out, w.ObjectPath(fc.After))
		}
	}
	return out
}

// safePath resolves a project-relative path and refuses any that would
// leave the project or reach into its git folder: "..", absolute paths, a
// .git component, or a folder on the way that is a symbolic link to
// somewhere outside.
func (w *Writer) safePath(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("refusing to write %q: not a path inside the project", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("refusing to write %q: it leaves the project", rel)
	}
	// Manifest paths are committed, so a crafted entry reaches Apply: a
	// write or removal under .git would change the repository itself.
	// EqualFold, as git does, for case-insensitive file systems.
	for _, part := range strings.Split(clean, string(filepath.Separator)) {
		if strings.EqualFold(part, ".git") {
			return "", fmt.Errorf("refusing to write %q: it is inside .git", rel)
		}
	}
	abs := filepath.Join(w.proj.Root, clean)
	// A symbolic link on the way is refused by Apply's read of the file,
	// before anything of the batch is written, and by every write after.
	return abs, nil
}

// InsideRoot checks that dir, once every symbolic link on its way is
// followed, is root or inside it. Folders that do not exist yet are fine:
// they will be created inside whatever exists.
func InsideRoot(root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	existing := dir
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return err
	}
	r, err := filepath.Rel(realRoot, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		rel, _ := filepath.Rel(root, existing)
		return fmt.Errorf("%s is a symbolic link leading outside the repository (to %s)", filepath.ToSlash(rel), real)
	}
	return nil
}

func tempName(rel, id string) string {
	dir, base := filepath.Split(filepath.FromSlash(rel))
	return filepath.ToSlash(filepath.Join(dir, "."+base+"."+id+".devlearn-tmp"))
}

func entryID(e *Entry) string {
	b, _ := json.Marshal(e)
	sum := sha256.Sum256(b)
	return "ev_" + hex.EncodeToString(sum[:6])
}

func writeJSON(t *safefile.Tree, path string, v any) error {
	if err := t.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.WriteFile(path, b, 0o644)
}

// RewriteLog replaces the audit log with what rewrite makes of it, and
// records that as an entry at the end of the new log, in one atomic
// replacement under the writer's lock: a crash leaves the old log or the
// new one with its entry, never one without the other. The entry's After
// is the rewritten content before the entry was appended. The replaced
// content is not kept: a rewrite scrubs what must not survive (devlearn
// redact), so it cannot be reverted. A rewrite that changes nothing
// records nothing and returns nil.
func (w *Writer) RewriteLog(ctx context.Context, reason Reason, rewrite func(old []byte) ([]byte, error)) (*Entry, error) {
	unlock, err := jsonl.Lock(ctx, w.lockPath())
	if err != nil {
		return nil, err
	}
	defer unlock()
	t := w.open()
	defer t.close()
	done, err := w.recover(t)
	if err != nil {
		return nil, fmt.Errorf("finishing an interrupted write: %w", err)
	}
	// The finished batch's marker holds its entry: it goes, durably, as
	// the log it is in is rewritten (redact scrubs the log, not markers).
	if done != nil {
		if err := syncBatch(w.proj.Root, func() []string { return w.files(*done) }); err != nil {
			return nil, err
		}
		if err := t.state.Remove(w.donePath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	path := w.proj.Path(LogPath)
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := rewrite(old)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(old, data) {
		return nil, nil
	}
	e := Entry{Time: w.now.Format(time.RFC3339), Trigger: w.trigger, Reason: reason,
		Files: []FileChange{{Path: LogPath, Before: BlobHash(old), After: BlobHash(data)}}}
	e.ID = entryID(&e)
	line, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data)+len(line)+2)
	out = append(out, data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(append(out, line...), '\n')
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := jsonl.WriteFileAtomic(w.proj.Root, path, out, perm); err != nil {
		return nil, err
	}
	return &e, nil
}

// PurgeLog drops the lines of the audit log that are not entries (a write
// torn by a crash, a line broken by hand), under the writer's lock, and
// records an entry saying so; lines keep reports true stay as they are
// (merge conflict markers, which 'devlearn resolve' merges). It returns
// the lines dropped; with none, nothing is written.
func (w *Writer) PurgeLog(ctx context.Context, reason Reason, keep func(line []byte) bool) ([]jsonl.Problem, *Entry, error) {
	var dropped []jsonl.Problem
	e, err := w.RewriteLog(ctx, reason, func(old []byte) ([]byte, error) {
		var kept bytes.Buffer
		problems, err := jsonl.ScanBytes(old, 1, true, func(n int, line []byte) error {
			if !keep(line) {
				var e Entry
				if err := json.Unmarshal(line, &e); err != nil {
					return err
				}
			}
			kept.Write(line)
			kept.WriteByte('\n')
			return nil
		})
		if err != nil || len(problems) == 0 {
			return old, err
		}
		dropped = problems
		return kept.Bytes(), nil
	})
	if err != nil {
		return nil, nil, err
	}
	return dropped, e, nil
}

// ReadLog returns every entry of the audit log, oldest first.
func ReadLog(p *project.Project) ([]Entry, []jsonl.Problem, error) {
	var out []Entry
	problems, err := jsonl.ScanFile(p.Path(LogPath), func(n int, line []byte) error {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	if errors.Is(err, jsonl.ErrNotExist) {
		return nil, nil, nil
	}
	return out, problems, err
}
