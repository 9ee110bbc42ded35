package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// The per-clone state of a session lives in <state>/sessions/<id>/:
//
//	prompts.jsonl  the latest prompts, redacted (user-prompt-submit writes,
//	               pre-tool-use reads the tail)
//	served/<h>     one file per (item, path) served: its creation with
//	               O_EXCL is what makes an item served once per session per
//	               path, without a lock, whatever the number of hooks
//	               running at once; it holds the record of that serving
//
// Prompt lines are appended with O_APPEND in one write each.

// RecentPrompts is how many of the session's prompts keywords are matched
// against.
const RecentPrompts = 3

// MaxPromptRunes bounds a stored prompt: keywords are short, and a pasted
// log should not make every later tool call read it back.
const MaxPromptRunes = 2000

// promptsKeepBytes: past this size the prompts file is rewritten with
// only its latest lines.
const promptsKeepBytes = 64 * 1024

// Session is a session's per-clone state folder.
type Session struct {
	Root string // the clone's git folder: no link below it is followed
	Dir  string
	ID   string
}

// SessionOf returns the state folder of a session. Session ids come from
// hook input: anything that is not a plain name is hashed, so that no id
// can name a folder elsewhere.
func SessionOf(p *project.Project, id string) Session {
	return Session{Root: p.CommonDir, Dir: p.StatePath("sessions", SafeName(id)), ID: id}
}

// SafeName is id when it is a plain file name (letters, digits, dash,
// underscore, dot, not starting with a dot, at most 128 bytes), else a hash
// of it.
func SafeName(id string) string {
	ok := id != "" && len(id) <= 128 && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok {
		return id
	}
	if id == "" {
		return "no-session"
	}
	sum := sha256.Sum256([]byte(id))
	return "h-" + hex.EncodeToString(sum[:12])
}

type promptLine struct {
	At     string `json:"at"`
	Prompt string `json:"prompt"`
}

// AddPrompt records a prompt (already redacted), cut to MaxPromptRunes.
// Prompts of one session arrive one at a time, so trimming the file by a
// rename is safe.
func (s Session) AddPrompt(at time.Time, prompt string) error {
	if err := safefile.MkdirAll(s.Root, s.Dir, 0o700); err != nil {
		return err
	}
	if utf8.RuneCountInString(prompt) > MaxPromptRunes {
		prompt = string([]rune(prompt)[:MaxPromptRunes])
	}
	line, err := json.Marshal(promptLine{At: at.UTC().Format(time.RFC3339), Prompt: prompt})
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, "prompts.jsonl")
	if err := appendLine(s.Root, path, line, 0o600); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > promptsKeepBytes {
		return s.trimPrompts(path)
	}
	return nil
}

func (s Session) trimPrompts(path string) error {
	keep := s.Prompts(RecentPrompts)
	var b bytes.Buffer
	for _, p := range keep {
		line, _ := json.Marshal(promptLine{Prompt: p})
		b.Write(line)
		b.WriteByte('\n')
	}
	return jsonl.WriteFileRename(s.Root, path, b.Bytes(), 0o600)
}

// Prompts returns the latest n prompts, oldest first, reading only the
// tail of the file.
func (s Session) Prompts(n int) []string {
	if n <= 0 {
		return nil
	}
	f, err := os.Open(filepath.Join(s.Dir, "prompts.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	const tail = 4 * (MaxPromptRunes*4 + 100)
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	off := fi.Size() - tail
	if off < 0 {
		off = 0
	}
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	lines := bytes.Split(bytes.TrimRight(buf, "\n"), []byte("\n"))
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // may start mid-line
	}
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		var p promptLine
		if json.Unmarshal(lines[i], &p) == nil && p.Prompt != "" {
			out = append(out, p.Prompt)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Served is an item served in a session: when, for which tool call, and
// the key of its counters (contract 8), for the helpfulness counters.
type Served struct {
	At        string  `json:"at"`
	Event     string  `json:"event"`
	Tool      string  `json:"tool,omitempty"`
	ToolUseID string  `json:"tool_use_id,omitempty"`
	ID        string  `json:"id"`
	Ref       string  `json:"ref"`
	Path      string  `json:"path,omitempty"`
	Score     float64 `json:"score"`
	Ask       bool    `json:"ask,omitempty"`
}

// ServedDir holds one file per (item, path) served in the session.
func (s Session) ServedDir() string { return filepath.Join(s.Dir, "served") }

// Claim records that rec's item is served for rec.Path in this session,
// unless it already was: then it returns false and records nothing. The
// exclusive creation of the file decides, so two hooks racing for the same
// item serve it once; the record is that file's one line, so serving costs
// one file, and reading what was served never needs a lock either.
func (s Session) Claim(rec Served) (bool, error) {
	if err := safefile.MkdirAll(s.Root, s.ServedDir(), 0o700); err != nil {
		return false, err
	}
	f, err := safefile.OpenFile(s.Root, s.claimPath(rec.Ref, rec.Path), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	line, _ := json.Marshal(rec)
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return true, werr
}

// Claimed reports whether ref was already served for path in this
// session: one stat, so that an item Claim would refuse is not read,
// scored and rendered first. Claim still decides.
func (s Session) Claimed(ref, path string) bool {
	_, err := os.Lstat(s.claimPath(ref, path))
	return err == nil
}

func (s Session) claimPath(ref, path string) string {
	sum := sha256.Sum256([]byte(ref + "\x00" + path))
	return filepath.Join(s.ServedDir(), hex.EncodeToString(sum[:12]))
}

// ServedIn lists what was served in the session, oldest first. A record
// torn by a crash is skipped (its claim still stands).
func (s Session) ServedIn() ([]Served, error) {
	ents, err := os.ReadDir(s.ServedDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Served
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(s.ServedDir(), e.Name()))
		var r Served
		if err != nil || json.Unmarshal(data, &r) != nil {
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].ToolUseID < out[j].ToolUseID
	})
	return out, nil
}

// appendLine writes line and a newline in one write(2) on an O_APPEND
// file.
func appendLine(root, path string, line []byte, perm os.FileMode) error {
	f, err := safefile.OpenFile(root, path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}

// Log is the hooks' worker log: a hook never prints its errors (they
// would reach the agent), it appends them here. The file is kept under
// MaxLogBytes by moving it to hooks.log.1 when it grows past that.
type Log struct {
	// Root is the folder Path lies below (the clone's git folder, or
	// $DEVLEARN_HOME): no link below it is followed.
	Root  string
	Path  string
	Event string
	Now   func() time.Time
	// Redact scrubs a line before it is written: error messages quote
	// learned text (a YAML key, a value), which may hold a secret.
	Redact func(string) string
	// Fallback is where lines go when Path cannot be written (the
	// per-clone state folder is not writable): $DEVLEARN_HOME's log.
	Fallback     string
	FallbackRoot string
}

// MaxLogBytes bounds the worker log (and its one old copy).
const MaxLogBytes = 1 << 20

// LogPath is the worker log of a project's clone.
func LogPath(p *project.Project) string { return p.StatePath("logs", "hooks.log") }

// Printf appends one line. Failing to log is not reported anywhere: there
// is nowhere left to report it.
func (l *Log) Printf(format string, args ...any) {
	if l == nil || l.Path == "" {
		return
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " | ")
	if l.Redact != nil {
		msg = l.Redact(msg)
	}
	line := []byte(fmt.Sprintf("%s %s: %s", now().UTC().Format(time.RFC3339), l.Event, msg))
	if writeLog(l.Root, l.Path, line) != nil && l.Fallback != "" && l.Fallback != l.Path {
		writeLog(l.FallbackRoot, l.Fallback, line)
	}
}

func writeLog(root, path string, line []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxLogBytes {
		safefile.Rename(root, path, path+".1")
	}
	if err := safefile.MkdirRoot(root, 0o700); err != nil {
		return err
	}
	if err := safefile.MkdirAll(root, filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return appendLine(root, path, line, 0o600)
}
