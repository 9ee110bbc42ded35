package keep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/infer"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/words"
)

// A lesson the person asks to keep is their own decision: it becomes an
// active entry at once, through the one writer. The prompt hook (as the
// person types it) and the capture pipeline (reading the transcript of a
// session that ran without the hook) both keep it here, so the same
// request makes the same entry either way, and the second of them finds
// the first's entry and writes nothing.
//
// Every session in which a lesson is given (the person asking,
// correcting, or the agent writing its block) is counted on the entry
// ("taught", a counter of the observation log, one event per session); a
// lesson given again in a later session is a mistake repeated, and its
// entry becomes CRITICAL (the triads design's priority rule, docs/capture.md).

// CounterTaught counts the sessions in which an entry's lesson was given.
const CounterTaught = "taught"

// Entry is the active entry a request makes: the lesson as its summary,
// its kind, priority and triggers inferred from it (context is the whole
// message, which may say how much it matters), and the person's words as
// evidence in its body. session and at say where and when it was asked.
func Entry(q Request, context, session, source string, at time.Time) *knowledge.Entry {
	e := &knowledge.Entry{
		Summary: knowledge.Cut(q.Lesson, knowledge.MaxSummary),
		Kind:    infer.Kind(q.Lesson),
		Priority: infer.Priority(infer.Lesson{
			Origin: infer.Correction, Context: context, Sessions: 1,
		}),
		Status:   knowledge.StatusActive,
		Source:   source,
		Triggers: infer.Triggers(q.Lesson),
		Body:     evidenceBody(q.Evidence, session, at),
	}
	e.Key = knowledge.CandidateKey(e)
	return e
}

// evidenceBody keeps the person's words with the entry.
func evidenceBody(evidence, session string, at time.Time) string {
	return fmt.Sprintf("The person asked to keep this (session %s, %s):\n\n> %s\n",
		session, at.UTC().Format("2006-01-02"), strings.Join(strings.Fields(evidence), " "))
}

// Keeper keeps the lessons one session's person asked to keep in a
// project's entries, and counts the session on the entries it teaches.
type Keeper struct {
	// Store is the project's entries, written through the one writer; nil
	// in a dry run, which finds what would be kept and writes nothing.
	Store *entrystore.Store
	// Log is the observation log the taught counter is kept in.
	Log     observe.Store
	Session string
	Source  string // the entries' source: "prompt", "transcript"
	// Entries are the project's entries a lesson may restate; what this
	// keeper makes is added to them. nil: none but what it makes.
	Entries *Entries
	// Reread: the requests are read again from past sessions (ingest,
	// the worker), not typed now. A lesson whose kept entry a person
	// deleted or reverted since is then left out whatever key this
	// reading would give it (another session's words and time make
	// another key): the person's "no" came after the request. A person
	// typing it again (the prompt hook) says yes anew.
	Reread bool

	log     *observe.Log
	keptFor map[string][]string // lesson slug -> keys of the entries kept for it
}

// Entries are the project's entries a lesson may restate, as the hook
// and the pipeline both look them up: the items are read once, at the
// first lesson, and compared by their summaries; only those a lesson is
// about are read in full, from their files, so that what is counted or
// escalated is never older than the file. The entries written after the
// items were read are added (Add) rather than read again.
type Entries struct {
	// Src reads an entry in full.
	Src knowledge.Sources
	// Load reads the items, once. The hook gives those it serves (from
	// its cache); the pipeline every entry, archived ones too, so that a
	// transcript read again never brings back what a person archived.
	Load func() *knowledge.Set
	// InForce leaves out archived entries (knowledge.Item.Active).
	InForce bool

	loaded bool
	items  []*knowledge.Item  // as read
	made   []*knowledge.Entry // added since
	read   map[string]bool    // the keys of the project's entries read, once one is added
}

// Restated lists the entries whose lesson text restates (Restates): of
// those it is about, the ones it does not name another thing for. The
// text's words are read once, whatever the number of entries.
func (s *Entries) Restated(text string) []*knowledge.Entry {
	var out []*knowledge.Entry
	var tw []string
	for _, e := range s.About(text) {
		if tw == nil {
			tw = words.Words(text)
		}
		if !refilled(tw, words.Words(e.Summary)) {
			out = append(out, e)
		}
	}
	return out
}

// About lists the entries whose summary text is about
// (Tell(text).About(summary)): those read, then those added since.
func (s *Entries) About(text string) []*knowledge.Entry {
	if s == nil {
		return nil
	}
	s.load()
	told := Tell(text)
	var out []*knowledge.Entry
	for _, it := range s.items {
		if !projectEntry(it) || s.InForce && !it.Active || !told.About(it.Title) {
			continue
		}
		if _, e, err := s.Src.Current(it); err == nil && e != nil {
			out = append(out, e)
		}
	}
	if len(s.made) > 0 && s.read == nil {
		s.read = map[string]bool{}
		for _, it := range s.items {
			if projectEntry(it) {
				s.read[it.ID] = true
			}
		}
	}
	for _, e := range s.made {
		if !s.read[e.Key] && told.About(e.Summary) {
			out = append(out, e)
		}
	}
	return out
}

// projectEntry is an entry of the project's own: not one served from
// what the log knows before it is ready (internal/observed), which is
// the log's, rewritten from it, and no file a lesson may be kept in.
func projectEntry(it *knowledge.Item) bool {
	return it.Type == knowledge.TypeEntry && it.Scope == knowledge.ScopeProject && !strings.HasPrefix(it.Path, project.ObservedDir+"/")
}

// Add adds an entry written since the items were read (in a dry run, one
// that would be). One that was read already is found as read, from its file.
func (s *Entries) Add(e *knowledge.Entry) { s.made = append(s.made, e) }

func (s *Entries) load() {
	if !s.loaded && s.Load != nil {
		s.items = s.Load().Items
	}
	s.loaded = true
}

// Kept is what became of one request.
type Kept struct {
	Key     string `json:"key"`
	Summary string `json:"summary"`
	Path    string `json:"path,omitempty"`
	// Created: a new entry (in a dry run: one would be written).
	Created bool `json:"created"`
	// Escalated: the lesson was given in another session before; its
	// entry is now CRITICAL.
	Escalated bool `json:"escalated,omitempty"`
	// Archived: a person archived the entry that says it; left so.
	Archived bool `json:"archived,omitempty"`
	// TakenBack: the entry kept for this lesson before (Key) was deleted
	// or reverted by a person: a "no" that sticks, so none is written.
	TakenBack bool   `json:"taken_back,omitempty"`
	Session   string `json:"session_id,omitempty"`
}

// Keep keeps one request (with its lesson stated) made at time at:
// context is the message it was part of. When an entry already says the
// lesson (by its words, not only its key: the hook and the pipeline see
// one request at different times), this session is counted on it, a
// draft of it becomes active, and nothing new is written.
func (k *Keeper) Keep(ctx context.Context, q Request, context string, at time.Time) (Kept, error) {
	if e, ok := k.entryAbout(q.Lesson); ok {
		out := Kept{Key: e.Key, Summary: e.Summary, Session: k.Session}
		switch {
		case e.Status == knowledge.StatusArchived:
			out.Archived = true
			return out, nil
		case k.Store == nil:
			return out, nil
		case e.Status == knowledge.StatusDraft:
			// The agent's draft of it, now the person's own rule.
			if _, _, _, err := k.Store.SetStatus(ctx, e.Key, knowledge.StatusActive, "the person asked to keep it: "+e.Summary); err != nil {
				return out, err
			}
		}
		esc, err := k.Taught(ctx, e, at)
		out.Escalated = esc
		return out, err
	}
	e := Entry(q, context, k.Session, k.Source, at)
	out := Kept{Key: e.Key, Summary: e.Summary, Created: true, Session: k.Session}
	log, err := k.loadLog()
	if err != nil {
		return out, err
	}
	if log.Counted("entry:"+e.Key, CounterTaught, taughtEID(k.Session, e.Key)) {
		// Kept from this very request before, and since deleted: a
		// person's "no" that sticks.
		out.Created, out.TakenBack = false, true
		return out, nil
	}
	if k.Reread {
		if key := k.takenBack(log, e.Key); key != "" {
			out.Key, out.Created, out.TakenBack = key, false, true
			return out, nil
		}
	}
	k.entries().Add(e)
	if k.Store == nil {
		path, err := k.storeFile(e.Key)
		out.Path = path
		return out, err
	}
	path, created, err := k.Store.Create(ctx, e, "the person asked to keep it: "+e.Summary)
	out.Path, out.Created = path, created
	if err != nil {
		return out, err
	}
	return out, k.CountTaught(ctx, e.Key, at)
}

// takenBack is the key of an entry kept before for the lesson of key
// (the same slug: the same summary up to its words' case and marks)
// whose file is gone: a person deleted or reverted it. "" when none is.
func (k *Keeper) takenBack(log *observe.Log, key string) string {
	if k.keptFor == nil {
		k.keptFor = map[string][]string{}
		for _, id := range log.IDs() {
			if old, ok := strings.CutPrefix(id, "entry:"); ok && log.Counters(id)[CounterTaught] > 0 {
				k.keptFor[slugOf(old)] = append(k.keptFor[slugOf(old)], old)
			}
		}
	}
	for _, old := range k.keptFor[slugOf(key)] {
		if gone, err := k.gone(old); err == nil && gone {
			return old
		}
	}
	return ""
}

// slugOf is a kept entry's key without the hash that ends it
// (knowledge.CandidateKey): what its summary alone makes.
func slugOf(key string) string {
	if i := strings.LastIndexByte(key, '-'); i >= 0 && len(key)-i-1 == 8 {
		return key[:i]
	}
	return key
}

// gone reports whether the entry key has no file (in a dry run, under the
// project the entries are read from).
func (k *Keeper) gone(key string) (bool, error) {
	if k.Store != nil {
		ok, err := k.Store.Exists(key)
		return !ok, err
	}
	if k.Entries == nil || k.Entries.Src.Root == "" {
		return false, nil
	}
	rel, err := knowledge.EntryFile(project.EntriesDir, key)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(filepath.Join(k.Entries.Src.Root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	return false, err
}

func (k *Keeper) storeFile(key string) (string, error) {
	if k.Store == nil {
		return knowledge.EntryFile(project.EntriesDir, key)
	}
	return k.Store.File(key)
}

// entryAbout is the entry a lesson restates, if there is one: of the
// project's, or of those this keeper made.
func (k *Keeper) entryAbout(lesson string) (*knowledge.Entry, bool) {
	for _, e := range k.entries().Restated(lesson) {
		if About(e.Summary, lesson) {
			return e, true
		}
	}
	return nil, false
}

func (k *Keeper) entries() *Entries {
	if k.Entries == nil {
		k.Entries = &Entries{}
	}
	return k.Entries
}

// Taught counts this session on an entry and makes it CRITICAL when that
// makes two sessions or more; it reports an escalation. An entry nothing
// counted yet (written by hand, or by the worker) was given in an earlier
// session.
func (k *Keeper) Taught(ctx context.Context, e *knowledge.Entry, at time.Time) (bool, error) {
	log, err := k.loadLog()
	if err != nil {
		return false, err
	}
	subject := "entry:" + e.Key
	sessions := log.Counters(subject)[CounterTaught]
	if sessions == 0 {
		sessions = 1
	}
	if !log.Counted(subject, CounterTaught, taughtEID(k.Session, e.Key)) {
		if err := k.append(ctx, taughtEvent(e.Key, k.Session, at)); err != nil {
			return false, err
		}
		sessions++
	}
	if e.Priority == "CRITICAL" {
		return false, nil
	}
	p := infer.Priority(infer.Lesson{Origin: infer.Correction, Context: e.Summary, Sessions: sessions})
	if p != "CRITICAL" {
		return false, nil
	}
	_, _, _, err = k.Store.SetPriority(ctx, e.Key, p, fmt.Sprintf("given again in a later session (%d sessions): %s", sessions, e.Summary))
	if err == nil {
		e.Priority = p
	}
	return err == nil, err
}

// CountTaught records this session on a new entry.
func (k *Keeper) CountTaught(ctx context.Context, key string, at time.Time) error {
	return k.append(ctx, taughtEvent(key, k.Session, at))
}

func (k *Keeper) append(ctx context.Context, e *observe.Event) error {
	if err := k.Log.Append(ctx, e); err != nil {
		return err
	}
	if k.log != nil {
		return k.log.Apply(e)
	}
	return nil
}

// loadLog reads the observation log once per keeper: the pipeline keeps
// many requests in one run.
func (k *Keeper) loadLog() (*observe.Log, error) {
	if k.log != nil {
		return k.log, nil
	}
	log, err := k.Log.Load()
	if err != nil {
		return nil, err
	}
	k.log = log
	return log, nil
}

func taughtEID(session, key string) string {
	return observe.StableID(CounterTaught + "\x00" + session + "\x00" + key)
}

func taughtEvent(key, session string, at time.Time) *observe.Event {
	e := observe.NewEvent(observe.OpCount, "entry:"+key, at, session, func(e *observe.Event) { e.Counter = CounterTaught })
	e.EID = taughtEID(session, key)
	return e
}
