// Package genuine measures capture, lesson identity and promotion on
// genuine public sessions: transcripts that agents wrote while people
// worked, labelled by readers before any rule was tuned on them
// (testdata/genuine/README.md says how). It runs the built binary as a
// user would (init, ingest, learn --list) and scores what it kept against
// the labels: recall by kind and by language, noise, precision from a
// reader's verdicts, how many lessons seen in two sessions reach ready,
// and how often two sightings joined into one observation are two
// different lessons.
package genuine

import (
	"bytes"
	"crypto/sha1"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Splits of the set: the holdout is never tuned against.
const (
	Dev     = "dev"
	Holdout = "holdout"
)

// Part is one file of a session as its repository holds it: the main
// transcript, or a subagent's.
type Part struct {
	Repo, Commit, Path, Blob, Licence string
	Size                              int64
	Subagent                          bool
	// Kept: the file is in the repository. Its licence must allow it,
	// and it must hold no secret of its author's.
	Kept bool
}

// Name is the part's file name, as the agent wrote it.
func (p Part) Name() string { return filepath.Base(filepath.FromSlash(p.Path)) }

// Session is one session of the set: its files and what it is.
type Session struct {
	ID    string
	Agent string // claude-code, codex, gemini
	Lang  string // the person's language
	// Project names the sessions learned from together: the project
	// folder, in its repository (projectOf).
	Project string
	Started string
	Split   string
	Parts   []Part // the main file first
}

// Kept reports whether the session is kept in the repository.
func (s *Session) Kept() bool { return s.Parts[0].Kept }

// Term is one entry of a label's all_of: alternatives, one of which must
// match.
type Term []*regexp.Regexp

// Recurrence is a later moment where a lesson matters again.
type Recurrence struct {
	Transcript string `json:"transcript"`
	At         string `json:"at"`
	How        string `json:"how"` // prompt | tool
	Note       string `json:"note,omitempty"`
}

// Lesson is one labelled lesson.
type Lesson struct {
	ID         string       `json:"id"`
	Transcript string       `json:"transcript"`
	AlsoIn     []string     `json:"also_in,omitempty"`
	Kind       string       `json:"kind"`
	Lang       string       `json:"lang"`
	Statement  string       `json:"statement"`
	At         string       `json:"at,omitempty"`
	Quote      string       `json:"quote,omitempty"`
	AllOf      []any        `json:"all_of"`
	Recurs     []Recurrence `json:"recurs,omitempty"`
	AddedAfter bool         `json:"added_after,omitempty"`
	Note       string       `json:"note,omitempty"`

	terms []Term
}

// Sessions are the transcripts the lesson is taught in: where it first
// appears, then where the person says it again.
func (l *Lesson) Sessions() []string { return append([]string{l.Transcript}, l.AlsoIn...) }

// Recurring reports a lesson taught in two sessions or more.
func (l *Lesson) Recurring() bool { return len(l.AlsoIn) > 0 }

// Kinds of lessons, in the order the report lists them.
var Kinds = []string{"correction", "preference", "fact", "remember", "repeated", "failure-fix"}

// Matches is the labelling protocol's rule: every term of all_of matches
// the text (an observation's pattern and details), case-insensitively.
func (l *Lesson) Matches(text string) bool {
	for _, t := range l.terms {
		ok := false
		for _, re := range t {
			if re.MatchString(text) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return len(l.terms) > 0
}

// Verdict is a reader's judgement of a kept observation that matches no
// label, keyed by its observation id.
type Verdict struct {
	// Verdict: useful (a lesson; "unlabelled" when it is one the labels
	// missed), trivial, wrong (misstates what was said), noise (not the
	// person's words, or nothing to learn).
	Verdict string `json:"verdict"`
	Pattern string `json:"pattern,omitempty"` // only for a session kept in the repository: the others' text is not ours to keep
	Session string `json:"session,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Useful reports a verdict that counts toward precision.
func (v Verdict) Useful() bool { return v.Verdict == "useful" || v.Verdict == "unlabelled" }

// PairVerdict is a reader's judgement of two sightings joined into one
// observation when the labels cannot tell: the same lesson or not.
type PairVerdict struct {
	Same bool      `json:"same"`
	Text [2]string `json:"text"`
	Note string    `json:"note,omitempty"`
}

// GivenVerdict is a reader's judgement of an item the hooks gave at a
// prompt or a tool call of a replayed session, keyed by GivenKey: does it
// bear on what happens there.
type GivenVerdict struct {
	// Relevant: the note speaks of what the agent is asked or about to do
	// at that call, so that heeding it could change what it does now.
	Relevant bool   `json:"relevant"`
	Session  string `json:"session"`
	Note     string `json:"note,omitempty"`
}

// Set is the labelled set.
type Set struct {
	Dir      string
	Sessions []*Session
	Lessons  []*Lesson
	Noise    []*regexp.Regexp
	Judged   map[string]Verdict
	Pairs    map[string]PairVerdict
	Given    map[string]GivenVerdict
	byID     map[string]*Session
}

// Session is the session of an id, or nil.
func (s *Set) Session(id string) *Session { return s.byID[id] }

// Load reads the set in dir: corpus.tsv, labels.json, and judged.json
// (readers' verdicts on observations, joined pairs and items given) when
// present.
func Load(dir string) (*Set, error) {
	s := &Set{Dir: dir, byID: map[string]*Session{}, Judged: map[string]Verdict{}, Pairs: map[string]PairVerdict{}, Given: map[string]GivenVerdict{}}
	if err := s.readCorpus(filepath.Join(dir, "corpus.tsv")); err != nil {
		return nil, err
	}
	if err := s.readLabels(filepath.Join(dir, "labels.json")); err != nil {
		return nil, err
	}
	var judged struct {
		Observations map[string]Verdict      `json:"observations"`
		Pairs        map[string]PairVerdict  `json:"pairs"`
		Given        map[string]GivenVerdict `json:"given"`
	}
	switch data, err := os.ReadFile(filepath.Join(dir, "judged.json")); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &judged); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "judged.json"), err)
		}
		for k, v := range judged.Observations {
			s.Judged[k] = v
		}
		for k, v := range judged.Pairs {
			s.Pairs[k] = v
		}
		for k, v := range judged.Given {
			s.Given[k] = v
		}
	}
	return s, nil
}

var corpusColumns = []string{"session", "part", "repo", "commit", "path", "blob", "lic", "kept", "size", "agent", "lang", "project", "started", "split"}

func (s *Set) readCorpus(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.LazyQuotes = true
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range corpusColumns {
		if _, ok := col[c]; !ok {
			return fmt.Errorf("%s:1: no column %q (want %s)", path, c, strings.Join(corpusColumns, ", "))
		}
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
		get := func(c string) string { return rec[col[c]] }
		size, err := strconv.ParseInt(get("size"), 10, 64)
		if err != nil {
			return fmt.Errorf("%s:%d: size %q is not a number", path, line, get("size"))
		}
		if sp := get("split"); sp != Dev && sp != Holdout {
			return fmt.Errorf("%s:%d: split %q is neither %s nor %s", path, line, sp, Dev, Holdout)
		}
		p := Part{Repo: get("repo"), Commit: get("commit"), Path: get("path"), Blob: get("blob"), Licence: get("lic"), Size: size, Subagent: get("part") == "subagent", Kept: get("kept") == "yes"}
		if p.Kept && (p.Licence == "" || p.Licence == "none") {
			return fmt.Errorf("%s:%d: %s is kept but has no licence that allows it", path, line, p.Path)
		}
		id := get("session")
		sess := s.byID[id]
		if sess == nil {
			if p.Subagent {
				return fmt.Errorf("%s:%d: session %s starts with a subagent's file: its main file comes first", path, line, id)
			}
			sess = &Session{ID: id, Agent: get("agent"), Lang: get("lang"), Project: projectOf(p.Repo, get("project")), Started: get("started"), Split: get("split")}
			s.byID[id] = sess
			s.Sessions = append(s.Sessions, sess)
		}
		sess.Parts = append(sess.Parts, p)
	}
	if len(s.Sessions) == 0 {
		return fmt.Errorf("%s: no session", path)
	}
	return nil
}

func (s *Set) readLabels(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Version int       `json:"version"`
		Notes   string    `json:"notes"`
		Noise   []string  `json:"noise"`
		Lessons []*Lesson `json:"lessons"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	for _, n := range doc.Noise {
		re, err := regexp.Compile("(?im)" + n)
		if err != nil {
			return fmt.Errorf("%s: noise %q: %v", path, n, err)
		}
		s.Noise = append(s.Noise, re)
	}
	seen := map[string]bool{}
	for _, l := range doc.Lessons {
		if seen[l.ID] {
			return fmt.Errorf("%s: lesson %s: labelled twice", path, l.ID)
		}
		seen[l.ID] = true
		for _, t := range l.Sessions() {
			if s.byID[t] == nil {
				return fmt.Errorf("%s: lesson %s: session %s is not in corpus.tsv", path, l.ID, t)
			}
		}
		for _, r := range l.Recurs {
			if s.byID[r.Transcript] == nil {
				return fmt.Errorf("%s: lesson %s: recurs in %s, which is not in corpus.tsv", path, l.ID, r.Transcript)
			}
		}
		for i, e := range l.AllOf {
			var alts []string
			switch v := e.(type) {
			case string:
				alts = []string{v}
			case []any:
				for _, a := range v {
					str, ok := a.(string)
					if !ok {
						return fmt.Errorf("%s: lesson %s: all_of[%d] holds a %T, not a string", path, l.ID, i, a)
					}
					alts = append(alts, str)
				}
			default:
				return fmt.Errorf("%s: lesson %s: all_of[%d] is a %T: a regular expression or a list of them", path, l.ID, i, e)
			}
			var t Term
			for _, a := range alts {
				re, err := regexp.Compile("(?im)" + a)
				if err != nil {
					return fmt.Errorf("%s: lesson %s: all_of[%d] %q: %v", path, l.ID, i, a, err)
				}
				t = append(t, re)
			}
			l.terms = append(l.terms, t)
		}
		if len(l.terms) == 0 {
			return fmt.Errorf("%s: lesson %s: all_of is empty", path, l.ID)
		}
		s.Lessons = append(s.Lessons, l)
	}
	return nil
}

// Lessons of a session: those taught in it first or again.
func (s *Set) LessonsOf(id string) []*Lesson {
	var out []*Lesson
	for _, l := range s.Lessons {
		for _, t := range l.Sessions() {
			if t == id {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// projectOf is the project a session belongs to: its folder's name is
// not enough, since two people's "dotfiles" or "home" are two projects,
// and a folder the agent gave no name is no project shared by every
// repository. A repository's files are all in one split, so a project
// never spans two.
func projectOf(repo, folder string) string {
	if folder == "" {
		return repo
	}
	return repo + ":" + folder
}

// Projects are the set's projects, each with its sessions in the order
// they started.
func (s *Set) Projects() map[string][]*Session {
	out := map[string][]*Session{}
	for _, sess := range s.Sessions {
		out[sess.Project] = append(out[sess.Project], sess)
	}
	for _, list := range out {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Started < list[j].Started })
	}
	return out
}

// Materialize writes the session's files under dir/<session>/, from the
// repository (kept sessions, compressed under sessions/) or from fetched,
// the folder a fetch wrote the others to (<session>/<name>). Each file is
// checked against its blob. It returns the main file's path, or "" and no
// error when a pointer-only session was not fetched.
func (s *Set) Materialize(sess *Session, fetched, dir string) (string, error) {
	out := filepath.Join(dir, sess.ID)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for _, p := range sess.Parts {
		var data []byte
		var from string
		if p.Kept {
			from = filepath.Join(s.Dir, "sessions", sess.ID, p.Name()+".zst")
			z, err := os.ReadFile(from)
			if err != nil {
				return "", fmt.Errorf("%s: %w (a kept session's file is committed compressed with zstd)", sess.ID, err)
			}
			if data, err = decoder.DecodeAll(z, nil); err != nil {
				return "", fmt.Errorf("%s: %v", from, err)
			}
		} else {
			if fetched == "" {
				return "", nil
			}
			from = filepath.Join(fetched, sess.ID, p.Name())
			b, err := os.ReadFile(from)
			if errors.Is(err, fs.ErrNotExist) {
				return "", nil
			}
			if err != nil {
				return "", err
			}
			data = b
		}
		if int64(len(data)) != p.Size || BlobID(data) != p.Blob {
			return "", fmt.Errorf("%s: not the file corpus.tsv names (%s:%s at %s, blob %s, %d bytes): fetch it again", from, p.Repo, p.Path, p.Commit, p.Blob, p.Size)
		}
		if err := os.WriteFile(filepath.Join(out, p.Name()), data, 0o644); err != nil {
			return "", err
		}
		// A log that records no times (an export, Cursor's transcripts)
		// is dated by its file, as on its author's disk: when the
		// session started, not when it was fetched.
		if t, err := time.Parse(time.RFC3339, sess.Started); err == nil {
			if err := os.Chtimes(filepath.Join(out, p.Name()), t, t); err != nil {
				return "", err
			}
		}
	}
	return filepath.Join(out, sess.Parts[0].Name()), nil
}

var decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))

// BlobID is git's object id of a blob holding data.
func BlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
