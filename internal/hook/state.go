package hook

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/jsonstr"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// The per-clone state of a session is one append-only file,
// <state>/sessions/<id>.jsonl, created by the session's first prompt or
// first serving, so that a session costs one file however much is served.
// Its lines are of two kinds:
//
//	{"at":…,"prompt":…}            a prompt, redacted (user-prompt-submit
//	                               writes, pre-tool-use reads the latest)
//	{"k":…,"c":…,"served":{…}}     a claim: item and path (k, a hash) served
//	                               by the hook that wrote nonce c, and the
//	                               record of that serving
//
// Lines are appended with O_APPEND in one write each, so concurrent hooks
// never interleave bytes. The first claim of a key in the file wins: a
// hook appends its claim, then reads on from where it had read, and
// serves only if the first claim of that key it finds is its own. Two
// hooks racing for one item thus serve it once, without a lock.

// RecentPrompts is how many of the session's prompts keywords are matched
// against.
const RecentPrompts = 3

// MaxPromptRunes bounds a stored prompt: keywords are short, and a pasted
// log should not make every later tool call read it back.
const MaxPromptRunes = 2000

// promptsKeepBytes: past this many bytes of prompts the session's file is
// rewritten with only its latest prompts (and every claim).
const promptsKeepBytes = 64 * 1024

// Session is a session's per-clone state file.
type Session struct {
	Root string // the clone's git folder: no link below it is followed
	Path string
	ID   string
	// st is what was read of the file, so that a hook reads it once
	// (nil: read it at each use).
	st *sessionState
}

// SessionOf returns the state of a session. Session ids come from hook
// input: anything that is not a plain name is hashed, so that no id can
// name a file elsewhere.
func SessionOf(p *project.Project, id string) Session {
	return Session{Root: p.CommonDir, Path: p.StatePath("sessions", SafeName(id)+".jsonl"), ID: id, st: &sessionState{}}
}

// Beside is a file kept beside the session's state file, for a mark that
// is rare and taken once (a pending keep request): the state file stays
// the one file every session costs.
func (s Session) Beside(name string) string {
	return strings.TrimSuffix(s.Path, ".jsonl") + "." + name
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

// sessionState is the session's file as read so far.
type sessionState struct {
	mu   sync.Mutex
	read bool
	off  int64 // bytes read: the complete lines before it
	// claims are the complete lines read, as they are in the file: a
	// claim is looked up with one search of them (a hook asks about a few
	// items; indexing every claim of a long session would cost more).
	claims  []byte
	prompts []string // every prompt read, oldest first
	// promptBytes is how much of the file prompts take.
	promptBytes int64
}

// claim returns the nonce of the first claim of key, if any. The search
// cannot match inside a prompt: a prompt's quotes are escaped.
func (st *sessionState) claim(key string) (nonce string, ok bool) {
	var pat [len(claimPrefix) + claimKeyLen + len(claimSep)]byte
	n := copy(pat[:], claimPrefix)
	n += copy(pat[n:], key)
	copy(pat[n:], claimSep)
	i := bytes.Index(st.claims, pat[:])
	if i < 0 || i+len(pat)+claimNonceLen > len(st.claims) {
		return "", false
	}
	return string(st.claims[i+len(pat) : i+len(pat)+claimNonceLen]), true
}

// reset forgets what was read (the lock stays as it is).
func (st *sessionState) reset() {
	st.read, st.off, st.claims, st.prompts, st.promptBytes = false, 0, nil, nil, 0
}

func (s Session) state() *sessionState {
	if s.st != nil {
		return s.st
	}
	return &sessionState{}
}

// maxStateRead bounds what one call reads of a session's file.
const maxStateRead = 8 << 20

// catchUp reads the lines appended since the last read. A line not yet
// complete (a writer mid-write, or a crash) is left for the next read.
func (s Session) catchUp(st *sessionState) error {
	st.read = true
	f, err := os.Open(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < st.off {
		st.reset() // rewritten shorter (trimmed): read again
		st.read = true
	}
	from := st.off
	if fi.Size()-from > maxStateRead {
		// Far more than a session writes (the file is trimmed long
		// before): a broken file, read from near its end, not whole at
		// every call.
		from = fi.Size() - maxStateRead
	}
	buf := make([]byte, fi.Size()-from)
	n, err := f.ReadAt(buf, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	buf = buf[:n]
	if from != st.off {
		// The line the read began inside is not read.
		skip := bytes.IndexByte(buf, '\n') + 1
		buf = buf[skip:]
		st.off = from + int64(skip)
	}
	if complete := bytes.LastIndexByte(buf, '\n') + 1; st.claims == nil {
		st.claims = buf[:complete]
	} else {
		st.claims = append(st.claims, buf[:complete]...)
	}
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := buf[:i]
		buf = buf[i+1:]
		st.off += int64(i + 1)
		if bytes.HasPrefix(line, []byte(claimPrefix)) {
			continue
		}
		var p promptLine
		if json.Unmarshal(line, &p) == nil && p.Prompt != "" {
			st.prompts = append(st.prompts, p.Prompt)
			st.promptBytes += int64(i + 1)
		}
	}
	return nil
}

// A claim line starts {"k":"<key>","c":"<nonce>": its key and nonce are
// at fixed places, so claims are found without decoding JSON.
const (
	claimPrefix   = `{"k":"`
	claimSep      = `","c":"`
	claimKeyLen   = 24 // hex of 12 bytes
	claimNonceLen = 16 // hex of 8 bytes
)

// claimOf returns the key and nonce of a claim line.
func claimOf(line []byte) (key, nonce []byte, ok bool) {
	rest, found := bytes.CutPrefix(line, []byte(claimPrefix))
	if !found || len(rest) < claimKeyLen+len(claimSep)+claimNonceLen+1 {
		return nil, nil, false
	}
	key, rest = rest[:claimKeyLen], rest[claimKeyLen:]
	rest, found = bytes.CutPrefix(rest, []byte(claimSep))
	if !found || rest[claimNonceLen] != '"' {
		return nil, nil, false
	}
	return key, rest[:claimNonceLen], true
}

// load reads the file once per Session from SessionOf; fn sees what was
// read.
func (s Session) load(fn func(st *sessionState)) error {
	st := s.state()
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.read {
		if err := s.catchUp(st); err != nil {
			return err
		}
	}
	fn(st)
	return nil
}

// AddPrompt records a prompt (already redacted), cut to MaxPromptRunes.
// Prompts of one session arrive one at a time, so trimming the file by a
// rename is safe for them; a claim appended while it is trimmed is carried
// over (see trim).
func (s Session) AddPrompt(at time.Time, prompt string) error {
	if utf8.RuneCountInString(prompt) > MaxPromptRunes {
		prompt = string([]rune(prompt)[:MaxPromptRunes])
	}
	line, err := json.Marshal(promptLine{At: at.UTC().Format(time.RFC3339), Prompt: prompt})
	if err != nil {
		return err
	}
	if err := s.append(line); err != nil {
		return err
	}
	st := s.state()
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.catchUp(st); err != nil {
		return err
	}
	if st.promptBytes > promptsKeepBytes {
		return s.trim(st)
	}
	return nil
}

// append writes one line to the session's file, creating it (and the
// sessions folder, once per clone) if need be.
func (s Session) append(line []byte) error {
	err := appendLine(s.Root, s.Path, line, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := safefile.MkdirAll(s.Root, filepath.Dir(s.Path), 0o700); err != nil {
			return err
		}
		err = appendLine(s.Root, s.Path, line, 0o600)
	}
	return err
}

// trim rewrites the file with every claim and the latest prompts. A claim
// another hook appends to the old file after it was read is copied into
// the new one after the rename; one appended in the instant between that
// copy and the end of its writer's write could be lost, and its item then
// served once more in the session, which is the whole of the risk.
func (s Session) trim(st *sessionState) error {
	old, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	defer old.Close()
	data, err := io.ReadAll(old)
	if err != nil {
		return err
	}
	keep := st.prompts
	if len(keep) > RecentPrompts {
		keep = keep[len(keep)-RecentPrompts:]
	}
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if _, _, ok := claimOf(bytes.TrimSuffix(line, []byte("\n"))); ok && bytes.HasSuffix(line, []byte("\n")) {
			b.Write(line)
		}
	}
	for _, p := range keep {
		line, _ := json.Marshal(promptLine{Prompt: p})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := jsonl.WriteFileRename(s.Root, s.Path, b.Bytes(), 0o600); err != nil {
		return err
	}
	// Claims appended to the old file since it was read.
	if late, err := io.ReadAll(old); err == nil && len(late) > 0 {
		for _, line := range bytes.SplitAfter(late, []byte("\n")) {
			if _, _, ok := claimOf(bytes.TrimSuffix(line, []byte("\n"))); ok && bytes.HasSuffix(line, []byte("\n")) {
				appendLine(s.Root, s.Path, bytes.TrimSuffix(line, []byte("\n")), 0o600)
			}
		}
	}
	st.reset()
	return s.catchUp(st)
}

// Prompts returns the latest n prompts, oldest first.
func (s Session) Prompts(n int) []string {
	if n <= 0 {
		return nil
	}
	var out []string
	s.load(func(st *sessionState) {
		out = st.prompts[max(0, len(st.prompts)-n):]
	})
	if len(out) == 0 {
		return nil
	}
	return slices.Clone(out)
}

// Served is an item served in a session: when, for which tool call, and
// the key of its counters (the entries and counters rule, docs/architecture.md), for the helpfulness counters.
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

// appendJSON appends rec as encoding/json encodes it, byte for byte
// (TestServedEncodesAsByReflection): a claim is written on every served
// call, where working out by reflection how to encode a Served cost more
// than the rest of the claim.
func (rec Served) appendJSON(b []byte) ([]byte, error) {
	str := func(name, v string, omitEmpty bool) {
		if v == "" && omitEmpty {
			return
		}
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), name...), '"', ':')
		b = jsonstr.AppendText(b, v)
	}
	b = append(b, '{')
	str("at", rec.At, false)
	str("event", rec.Event, false)
	str("tool", rec.Tool, true)
	str("tool_use_id", rec.ToolUseID, true)
	str("id", rec.ID, false)
	str("ref", rec.Ref, false)
	str("path", rec.Path, true)
	b = append(b, `,"score":`...)
	b, ok := jsonstr.AppendFloat(b, rec.Score)
	if !ok {
		return b, fmt.Errorf("served %s: score %v is no JSON number", rec.Ref, rec.Score)
	}
	if rec.Ask {
		b = append(b, `,"ask":true`...)
	}
	return append(b, '}'), nil
}

// Claim records that rec's item is served for rec.Path in this session,
// unless it already was: then it returns false. The claim is appended,
// then the file read on: the first claim of the key decides, so two hooks
// racing for the same item serve it once, and reading what was served
// never needs a lock either.
func (s Session) Claim(rec Served) (bool, error) {
	st := s.state()
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.read {
		if err := s.catchUp(st); err != nil {
			return false, err
		}
	}
	key := claimKey(rec.Ref, rec.Path)
	if _, ok := st.claim(key); ok {
		return false, nil
	}
	var n [8]byte
	if _, err := rand.Read(n[:]); err != nil {
		return false, err
	}
	nonce := hex.EncodeToString(n[:])
	line := make([]byte, 0, 256)
	line = append(line, claimPrefix...)
	line = append(line, key...)
	line = append(line, claimSep...)
	line = append(line, nonce...)
	line = append(line, `","served":`...)
	line, err := rec.appendJSON(line)
	if err != nil {
		return false, err
	}
	line = append(line, '}')
	if err := s.append(line); err != nil {
		return false, err
	}
	if err := s.catchUp(st); err != nil {
		// Claimed in the file, but unknown whether first: not served, so
		// that it is never served twice.
		return false, err
	}
	first, _ := st.claim(key)
	return first == nonce, nil
}

// Claimed reports whether ref was already served for path in this
// session, from the file as read once, so that an item Claim would refuse
// is not read, scored and rendered first. Claim still decides.
func (s Session) Claimed(ref, path string) bool {
	ok := false
	s.load(func(st *sessionState) { _, ok = st.claim(claimKey(ref, path)) })
	return ok
}

func claimKey(ref, path string) string {
	sum := sha256.Sum256([]byte(ref + "\x00" + path))
	return hex.EncodeToString(sum[:12])
}

// ServedIn lists what was served in the session, oldest first: the
// winning claim of each item and path. A record torn by a crash is
// skipped (its claim still stands).
func (s Session) ServedIn() ([]Served, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Served
	for _, line := range bytes.Split(data, []byte("\n")) {
		k, _, ok := claimOf(line)
		if !ok || seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		var l struct {
			Served Served `json:"served"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		out = append(out, l.Served)
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
// file, after a newline of its own when the file ends in a torn line.
func appendLine(root, path string, line []byte, perm os.FileMode) error {
	f, err := safefile.OpenFile(root, path, os.O_RDWR|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(line)+2)
	if fi, err := f.Stat(); err == nil && jsonl.Torn(f, fi.Size()) {
		// A write cut short (a crash, a full disk) left a line without its
		// end: this one starts on its own, or the reader would take both
		// for one broken line and lose this one too.
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	_, werr := f.Write(buf)
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
