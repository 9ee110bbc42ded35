package directives

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// LocalDir holds what devlearn keeps for this working tree only and never
// commits: it ignores itself (a .gitignore of "*" inside it) and init adds
// it to .memory/.gitignore as well.
const LocalDir = project.LocalDir

// SessionsDir holds one folder per agent session.
const SessionsDir = LocalDir + "/sessions"

// logName is a session's directive log: one JSON record a line, appended
// under the session's lock, folded into a State when read.
const logName = "directives.jsonl"

// Session is one agent session's directive state.
type Session struct {
	Root string
	// Name is the session's folder name: a plain file name (the hook's
	// SafeName of the session id), never a path.
	Name string
}

// SessionAt names the state of session name in the working tree at root.
func SessionAt(root, name string) Session { return Session{Root: root, Name: name} }

// Dir is the session's folder.
func (s Session) Dir() string {
	return filepath.Join(s.Root, filepath.FromSlash(SessionsDir), s.Name)
}

// Rel is the session's folder relative to the root, for messages.
func (s Session) Rel() string { return SessionsDir + "/" + s.Name }

// Exists reports whether anything was recorded for the session.
func (s Session) Exists() bool {
	_, err := os.Stat(filepath.Join(s.Dir(), logName))
	return err == nil
}

// The operations of a session's records.
const (
	OpRoot       = "root"      // the root's real path (RealRoot)
	OpLevel      = "level"     // a level's listing (Level, Listing)
	OpTouched    = "touched"   // a folder the agent worked in (Dir)
	OpEdited     = "edited"    // a folder the agent changed a file in (Dir)
	OpShown      = "shown"     // a directive given to the agent (File, Real, How)
	OpChecklist  = "checklist" // a CHECKLIST.md discovered (File, Abs, Real, Level)
	OpArmed      = "armed"     // a file changed where a checklist is in force (Real)
	OpChecked    = "checked"   // a checklist submitted ticked (Real, Sum)
	OpBlocked    = "blocked"   // the Stop hook blocked on the checklists
	OpReleased   = "released"  // the Stop hook let the agent stop with checklists pending
	OpNew        = "new"       // a directive file created in the session (File)
	OpMentioned  = "mentioned" // a new file was dealt with at session end (File)
	OpUnshownHit = "unshown"   // an edit in a folder whose directives were not shown (Dir)
	OpAsked      = "asked"     // pre-tool-use asked the person about such an edit
	HowFull      = "full"      // a directive given in full
	HowNamed     = "named"     // a directive named, to be read when needed
)

// Record is one line of a session's log.
type Record struct {
	Op       string   `json:"op"`
	At       string   `json:"at,omitempty"`
	Dir      string   `json:"dir,omitempty"`
	File     string   `json:"file,omitempty"`
	Abs      string   `json:"abs,omitempty"`
	Real     string   `json:"real,omitempty"`
	Level    string   `json:"level,omitempty"`
	How      string   `json:"how,omitempty"`
	Sum      string   `json:"sum,omitempty"`
	Listing  *Listing `json:"listing,omitempty"`
	RealRoot string   `json:"real_root,omitempty"`
}

// Checklist is a CHECKLIST.md discovered in a session.
type Checklist struct {
	File  string // as shown
	Abs   string
	Real  string
	Level string
}

// State is a session's log, folded.
type State struct {
	Memo       Memo
	Touched    []string
	Edited     []string
	Shown      map[string]string // real path -> how
	Checklists []Checklist
	Armed      map[string]bool   // real paths of checklists in force where the session changed a file
	Checked    map[string]string // real path -> sha256 of what was checked
	Blocks     int
	Released   int
	New        []string
	Mentioned  map[string]bool
	Unshown    int // edits in folders whose directives were not shown
	Asked      int
}

func newState() *State {
	return &State{Shown: map[string]string{}, Armed: map[string]bool{}, Checked: map[string]string{}, Mentioned: map[string]bool{}, Memo: Memo{Levels: map[string]Listing{}}}
}

func (st *State) apply(r Record) {
	switch r.Op {
	case OpRoot:
		st.Memo.RealRoot = r.RealRoot
	case OpLevel:
		if r.Listing != nil {
			st.Memo.Levels[r.Level] = *r.Listing
		}
	case OpTouched:
		if !slices.Contains(st.Touched, r.Dir) {
			st.Touched = append(st.Touched, r.Dir)
		}
	case OpEdited:
		if !slices.Contains(st.Edited, r.Dir) {
			st.Edited = append(st.Edited, r.Dir)
		}
	case OpShown:
		if st.Shown[r.Real] != HowFull {
			st.Shown[r.Real] = r.How
		}
	case OpChecklist:
		if !slices.ContainsFunc(st.Checklists, func(c Checklist) bool { return c.Real == r.Real }) {
			st.Checklists = append(st.Checklists, Checklist{File: r.File, Abs: r.Abs, Real: r.Real, Level: r.Level})
		}
	case OpArmed:
		st.Armed[r.Real] = true
	case OpChecked:
		st.Checked[r.Real] = r.Sum
	case OpBlocked:
		st.Blocks++
	case OpReleased:
		st.Released++
	case OpNew:
		if !slices.Contains(st.New, r.File) {
			st.New = append(st.New, r.File)
		}
	case OpMentioned:
		st.Mentioned[r.File] = true
	case OpUnshownHit:
		st.Unshown++
	case OpAsked:
		st.Asked++
	}
}

// Read folds the session's log; a session never recorded is an empty
// State. Torn lines (a crash mid-append) are skipped.
func (s Session) Read() (*State, error) {
	st := newState()
	_, err := jsonl.ScanFile(filepath.Join(s.Dir(), logName), func(_ int, line []byte) error {
		var r Record
		if json.Unmarshal(line, &r) == nil {
			st.apply(r)
		}
		return nil
	})
	if err != nil && !errors.Is(err, jsonl.ErrNotExist) && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return st, nil
}

// Update reads the session's state under its lock, lets fn decide, and
// appends the records fn returns, with the memo's changes, before the lock
// is released: two hooks of one session running at once never both show
// the same directive.
func (s Session) Update(ctx context.Context, now time.Time, fn func(st *State) ([]Record, error)) error {
	if err := s.prepare(); err != nil {
		return err
	}
	unlock, err := jsonl.Lock(ctx, filepath.Join(s.Dir(), "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	st, err := s.Read()
	if err != nil {
		return err
	}
	recs, err := fn(st)
	if err != nil {
		return err
	}
	recs = append(st.Memo.records(), recs...)
	if len(recs) == 0 {
		return nil
	}
	at := now.UTC().Format(time.RFC3339)
	lines := make([][]byte, 0, len(recs))
	for _, r := range recs {
		if r.At == "" {
			r.At = at
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		lines = append(lines, b)
	}
	return jsonl.AppendLocked(s.Root, filepath.Join(s.Dir(), logName), lines...)
}

// records turns the memo's changes into records.
func (m *Memo) records() []Record {
	var out []Record
	for _, l := range m.dirty {
		if l == realRootKey {
			out = append(out, Record{Op: OpRoot, RealRoot: m.RealRoot})
			continue
		}
		li := m.Levels[l]
		out = append(out, Record{Op: OpLevel, Level: l, Listing: &li})
	}
	m.dirty = nil
	return out
}

// prepare creates the session's folder. .memory/.local/ is created
// ignoring itself, so that its files never show in git status even in a
// project set up before init listed it in .memory/.gitignore. safefile
// refuses a symbolic link on the way: a committed link would send
// devlearn's writes out of the repository.
func (s Session) prepare() error {
	if err := project.EnsureLocal(s.Root); err != nil {
		return err
	}
	return safefile.MkdirAll(s.Root, s.Dir(), 0o755)
}

// GitignoreFile is where init lists LocalDir, beside the self-ignoring
// .gitignore inside it: either one keeps session state out of git.
const GitignoreFile = project.MemoryDir + "/.gitignore"

// gitignoreLine is LocalDir as .memory/.gitignore names it.
const gitignoreLine = "/.local/"

// WithLocalIgnored returns the content of .memory/.gitignore with LocalDir
// listed, every other line kept, and whether it had to be added.
func WithLocalIgnored(data []byte) ([]byte, bool) {
	for _, l := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(l) {
		case gitignoreLine, ".local/", ".local", "/.local", ".local/*", "/.local/*":
			return data, false
		}
	}
	out := string(data)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return []byte(out + "# devlearn: session state of this working tree, never committed\n" + gitignoreLine + "\n"), true
}
