package directives

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/stamp"
)

// Global is the level of the directives in $DEVLEARN_HOME/directives/.
const Global = "global"

// File is one directive file found.
type File struct {
	// Path is the file relative to the root with forward slashes, or
	// absolute for a global directive: how it is shown.
	Path string `json:"path"`
	Type string `json:"type"`
	Core bool   `json:"core"`
	// Level is the folder whose .directives/ holds it: "." for the root,
	// "pkg/api" below it, or "global".
	Level string `json:"level"`
	// Abs is the absolute path, as the agent reads it.
	Abs string `json:"abs"`
	// Real is the file's path once every symbolic link is followed:
	// what two paths to the same file are told apart by.
	Real string `json:"real"`
}

// Skipped is a directive file left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Options of a discovery.
type Options struct {
	// Root is where every walk stops (it is walked too): the repository
	// root, or what --root says.
	Root string
	// GlobalDir is $DEVLEARN_HOME/directives; "" for none.
	GlobalDir string
	// Ignore lists folder names below which nothing is collected.
	Ignore []string
	// Memo keeps folder listings between calls (a session's); nil lists
	// every folder.
	Memo *Memo
	// Now is the clock of the racy rule (nil: time.Now).
	Now func() time.Time
}

// Result is a discovery: the files, root first, each once.
type Result struct {
	Files   []File    `json:"files"`
	Skipped []Skipped `json:"skipped"`
	// Starts are the folders the walks started from, relative to the
	// root, each once, in the order of the paths given.
	Starts []string `json:"starts"`
}

// ErrOutside is returned for a path that is not inside the root.
type ErrOutside struct{ Path, Root string }

func (e *ErrOutside) Error() string {
	return fmt.Sprintf("%s is outside %s: directives are collected from inside the root only (give --root to walk from elsewhere)", e.Path, e.Root)
}

// Discover walks up from each path (a file or a folder, which need not
// exist yet) to the root, collecting the directive files of every level's
// .directives/ folder, and those of GlobalDir before all of them. The files
// are ordered global first, then root first, each level's in type order;
// a file reached twice (through a symbolic link, or from two paths) is kept
// once, where it is first met. Nothing shadows: a deeper AGENTS.md is
// listed beside the root's, never instead of it.
func Discover(paths []string, o Options) (*Result, error) {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}
	m := o.Memo
	if m == nil {
		m = &Memo{}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	if m.RealRoot == "" {
		if m.RealRoot, err = filepath.EvalSymlinks(root); err != nil {
			return nil, err
		}
		m.mark(realRootKey)
	}
	w := &walk{root: root, opts: o, memo: m, now: now()}
	res := &Result{Files: []File{}, Skipped: []Skipped{}, Starts: []string{}}
	levels := map[string]bool{}
	for _, p := range paths {
		start, err := startLevel(root, p)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(res.Starts, start) {
			res.Starts = append(res.Starts, start)
		}
		for l := start; ; l = parentLevel(l) {
			if !w.ignored(l) {
				levels[l] = true
			}
			if l == "." {
				break
			}
		}
	}
	var found []File
	if o.GlobalDir != "" {
		found = append(found, w.level(Global, o.GlobalDir, res)...)
	}
	sorted := make([]string, 0, len(levels))
	for l := range levels {
		sorted = append(sorted, l)
	}
	slices.SortFunc(sorted, func(a, b string) int {
		return cmp.Or(cmp.Compare(depth(a), depth(b)), strings.Compare(a, b))
	})
	for _, l := range sorted {
		found = append(found, w.level(l, filepath.Join(root, filepath.FromSlash(l), DirName), res)...)
	}
	seen := map[string]string{}
	for _, f := range found {
		if first, dup := seen[f.Real]; dup {
			res.Skipped = append(res.Skipped, Skipped{Path: f.Path, Reason: "the same file as " + first})
			continue
		}
		seen[f.Real] = f.Path
		res.Files = append(res.Files, f)
	}
	return res, nil
}

// startLevel is the folder a walk from p starts at, relative to root: p
// itself when it is a folder, else the folder holding it.
func startLevel(root, p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &ErrOutside{Path: p, Root: root}
	}
	// A directive being read or edited is about the folder it directs.
	l := filepath.ToSlash(rel)
	for l == DirName || strings.HasSuffix(l, "/"+DirName) {
		l = parentLevel(l)
	}
	return l, nil
}

func parentLevel(l string) string {
	i := strings.LastIndexByte(l, '/')
	if i < 0 {
		return "."
	}
	return l[:i]
}

func depth(l string) int {
	if l == "." {
		return 0
	}
	return strings.Count(l, "/") + 1
}

type walk struct {
	root string
	opts Options
	memo *Memo
	now  time.Time
}

// ignored reports whether a level lies in an ignored folder, or is a
// .directives/ folder itself (a directive being edited: its own level is
// the one above).
func (w *walk) ignored(l string) bool {
	if l == "." {
		return false
	}
	for _, part := range strings.Split(l, "/") {
		if part == DirName || slices.Contains(w.opts.Ignore, part) {
			return true
		}
	}
	return false
}

// level lists the directive files of one level, through the memo when
// the folder did not change since it was listed.
func (w *walk) level(l, dir string, res *Result) []File {
	fi, err := os.Stat(dir)
	var st stamp.Stamp
	if err == nil && fi.IsDir() {
		st = stamp.Info(fi)
	}
	prev, known := w.memo.Levels[l]
	var li Listing
	if known && prev.Trusted && prev.Stamp == st {
		li = prev
	} else {
		li = w.list(l, dir, st)
		if known && l != Global {
			for _, e := range li.Files {
				if !slices.ContainsFunc(prev.Files, func(p Entry) bool { return p.Name == e.Name }) {
					w.memo.New = append(w.memo.New, w.path(l, e.Name))
				}
			}
		}
		if !known || !prev.equal(li) {
			if w.memo.Levels == nil {
				w.memo.Levels = map[string]Listing{}
			}
			w.memo.Levels[l] = li
			w.memo.mark(l)
		}
	}
	res.Skipped = append(res.Skipped, li.Skipped...)
	out := make([]File, 0, len(li.Files))
	for _, e := range li.Files {
		t, _ := TypeOf(e.Name)
		out = append(out, File{Path: w.path(l, e.Name), Type: e.Name, Core: t.Core, Level: l, Abs: filepath.Join(dir, e.Name), Real: e.Real})
	}
	return out
}

// path is how a directive is shown: relative to the root, or absolute
// for a global one.
func (w *walk) path(l, name string) string {
	switch l {
	case Global:
		return filepath.Join(w.opts.GlobalDir, name)
	case ".":
		return DirName + "/" + name
	}
	return l + "/" + DirName + "/" + name
}

// list reads a .directives/ folder: the files named after a type, each
// with its real path. A file or folder that is a symbolic link leading
// outside the repository is left out: a cloned repository must not make
// devlearn hand the agent a file from elsewhere on the machine.
func (w *walk) list(l, dir string, st stamp.Stamp) Listing {
	li := Listing{Stamp: st, Trusted: !st.Racy(w.now)}
	if !st.Exists {
		return li
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return li
	}
	if l != Global && !w.inside(realDir) {
		li.Skipped = append(li.Skipped, Skipped{Path: w.path(l, ""), Reason: "a symbolic link leading outside the repository (to " + realDir + ")"})
		return li
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return li
	}
	for _, e := range ents {
		if _, ok := TypeOf(e.Name()); !ok {
			continue
		}
		real := filepath.Join(realDir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			if real, err = filepath.EvalSymlinks(real); err != nil {
				li.Skipped = append(li.Skipped, Skipped{Path: w.path(l, e.Name()), Reason: "a broken symbolic link"})
				continue
			}
			if l != Global && !w.inside(real) {
				li.Skipped = append(li.Skipped, Skipped{Path: w.path(l, e.Name()), Reason: "a symbolic link leading outside the repository (to " + real + ")"})
				continue
			}
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		li.Files = append(li.Files, Entry{Name: e.Name(), Real: real})
	}
	slices.SortFunc(li.Files, func(a, b Entry) int { return cmp.Compare(typeRank(a.Name), typeRank(b.Name)) })
	return li
}

func (w *walk) inside(real string) bool {
	r := w.memo.RealRoot
	return real == r || strings.HasPrefix(real, r+string(filepath.Separator))
}

// Memo is what a session remembers of the folders it walked: each level's
// listing with the stamp of its .directives/ folder, so that a folder is
// listed again only when it changed, and a file that appears in a folder
// listed before is known to be new in this session.
type Memo struct {
	RealRoot string             `json:"real_root"`
	Levels   map[string]Listing `json:"levels"`
	// New are the files found in this discovery in a folder listed
	// earlier in the session, that were not there then.
	New []string `json:"-"`

	dirty []string // levels (and realRootKey) changed since it was read
}

// realRootKey marks RealRoot as changed among the dirty levels.
const realRootKey = "\x00root"

func (m *Memo) mark(l string) {
	if !slices.Contains(m.dirty, l) {
		m.dirty = append(m.dirty, l)
	}
}

// Listing is one level's .directives/ folder as last listed.
type Listing struct {
	Stamp stamp.Stamp `json:"stamp"`
	// Trusted is false when the folder changed too close to its listing
	// for its stamp to prove it did not change again since (the racy
	// rule): it is listed again next time.
	Trusted bool      `json:"trusted"`
	Files   []Entry   `json:"files,omitempty"`
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Entry is a directive file of a listing.
type Entry struct {
	Name string `json:"name"`
	Real string `json:"real"`
}

func (l Listing) equal(o Listing) bool {
	return l.Stamp == o.Stamp && l.Trusted == o.Trusted && slices.Equal(l.Files, o.Files) && slices.Equal(l.Skipped, o.Skipped)
}
