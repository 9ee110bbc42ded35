package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/devlearn/devlearn/internal/debugdump"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/safefile"
)

// A lesson the person asks to keep is their own decision: it becomes an
// active entry at once and is served from the next matching tool call.
// The entry is made and counted by internal/keep's Keeper, which the
// capture pipeline uses too, for sessions that ran without this hook.

// Notes to the agent, in the hook's output.
const (
	keptNote      = "devlearn: the person's rule is saved as an active project entry (%s), served before matching tool calls from now on: %q. No [PROCESS_KNOWLEDGE] block is needed for it."
	knownNote     = "devlearn: the person's rule is already a project entry (%s): %q."
	escalatedNote = "devlearn: the person gave this lesson again in a later session: %s (%q) is now CRITICAL."
	pendingNote   = "devlearn: the person asked you to remember something. End your reply with a [PROCESS_KNOWLEDGE] block stating it (label: the lesson as one sentence; the format was given at session start): it will be kept as an active entry."
)

// keepRequests saves what a prompt (redacted) asks to keep, and returns
// what the agent should be told.
func (r *run) keepRequests(reqs []keep.Request, prompt string) []string {
	var notes []string
	for _, q := range reqs {
		if q.Lesson == "" {
			if err := r.setKeepPending(); err != nil {
				r.log.Printf("remembering the request to keep a lesson: %v", err)
			}
			notes = append(notes, pendingNote)
			continue
		}
		note, err := r.keepLesson(q, prompt)
		if err != nil {
			r.log.Printf("keeping %q: %v", q.Lesson, err)
			continue
		}
		notes = append(notes, note)
	}
	return notes
}

// keepLesson makes one request an active entry, or, when an entry already
// says it, counts this session on it (and escalates it).
func (r *run) keepLesson(q keep.Request, prompt string) (string, error) {
	k, err := r.keeper(r.entryStore("hook user-prompt-submit")).Keep(r.ctx, q, prompt, r.now)
	switch {
	case err != nil:
		return "", err
	case k.Escalated:
		return fmt.Sprintf(escalatedNote, k.Key, k.Summary), nil
	case !k.Created:
		return fmt.Sprintf(knownNote, k.Key, k.Summary), nil
	}
	if r.keptNow == nil {
		r.keptNow = map[string]bool{}
	}
	r.keptNow[k.Key] = true
	return fmt.Sprintf(keptNote, k.Key, k.Summary), nil
}

// keeper keeps and counts this session's lessons among the entries in
// force.
func (r *run) keeper(store *knowledge.Store) *keep.Keeper {
	return &keep.Keeper{
		Store:   store,
		Log:     r.logStore(),
		Session: r.in.SessionID,
		Source:  "prompt",
		About:   r.entriesAbout,
	}
}

// debugKeep keeps what a hook's extractor read and made of it, redacted,
// when extractor.debug is on (docs/capture.md).
func (r *run) debugKeep(extractor string, in, out any) {
	if !r.cfg.Extractor.Debug {
		return
	}
	red := r.env.Redact
	if red == nil {
		red = func(s string) string { return s }
	}
	if err := debugdump.Keep(r.proj.CommonDir, debugdump.Dir(r.proj), SafeName(r.in.SessionID), extractor, r.now, in, out, red); err != nil {
		r.log.Printf("debug: %v", err)
	}
}

// escalateCorrection counts this session on every entry a correction
// (redacted) is about, and escalates those given in another session
// before.
func (r *run) escalateCorrection(prompt string) []string {
	var notes []string
	store := r.entryStore("hook user-prompt-submit")
	for _, e := range r.entriesAbout(prompt) {
		esc, err := r.taught(store, e)
		if err != nil {
			r.log.Printf("counting %s: %v", e.Key, err)
			continue
		}
		if esc {
			notes = append(notes, fmt.Sprintf(escalatedNote, e.Key, e.Summary))
		}
	}
	return notes
}

// taught counts this session on an entry, and escalates it when given
// in an earlier session too (keep.Keeper.Taught).
func (r *run) taught(store *knowledge.Store, e *knowledge.Entry) (bool, error) {
	return r.keeper(store).Taught(r.ctx, e, r.now)
}

// countTaught records this session on a new entry.
func (r *run) countTaught(key string) error {
	return r.keeper(nil).CountTaught(r.ctx, key, r.now)
}

func (r *run) logStore() observe.Store {
	return observe.ProjectStore(r.proj)
}

func (r *run) entryStore(command string) *knowledge.Store {
	//devlearn:triggers "hook stop" "hook user-prompt-submit"
	w := evolve.New(r.proj, r.now, evolve.Trigger{Command: command, Session: r.in.SessionID})
	return knowledge.ProjectStore(r.proj, w)
}

// entriesAbout lists the project's entries in force (active or draft)
// whose lesson text is about. Their summaries come from the knowledge
// cache; only the entries that match are read from their files.
func (r *run) entriesAbout(text string) []*knowledge.Entry {
	var out []*knowledge.Entry
	src := r.sources()
	told := keep.Tell(text)
	for _, it := range r.load(knowledge.Quick).Items {
		if it.Type != knowledge.TypeEntry || it.Scope != knowledge.ScopeProject || !it.Active || !told.About(it.Title) {
			continue
		}
		_, e, err := src.Current(it)
		if err != nil || e == nil {
			continue
		}
		out = append(out, e)
	}
	return out
}

// entryAbout is the entry a lesson restates, if there is one.
func (r *run) entryAbout(lesson string) (*knowledge.Entry, bool) {
	for _, e := range r.entriesAbout(lesson) {
		if keep.About(e.Summary, lesson) {
			return e, true
		}
	}
	return nil, false
}

// A request that only points back ("remember this") leaves the lesson
// for the agent to state: the session remembers the request until the
// agent's next Stop, whose blocks are then kept as active entries.

func (r *run) keepPendingPath() string {
	return SessionOf(r.proj, r.in.SessionID).Beside("keep-requested")
}

func (r *run) setKeepPending() error {
	p := r.keepPendingPath()
	root := r.proj.CommonDir
	if err := safefile.MkdirAll(root, filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return jsonl.WriteFileRename(root, p, []byte(r.now.UTC().Format(time.RFC3339)+"\n"), 0o600)
}

// takeKeepPending reports whether the person asked to keep a lesson the
// agent is to state, and forgets the request.
func (r *run) takeKeepPending() bool {
	err := safefile.Remove(r.proj.CommonDir, r.keepPendingPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.log.Printf("%v", err)
	}
	return err == nil
}

// saveBlock keeps one of the agent's blocks: a draft, or an active entry
// when the person asked, just before, to keep what the agent states
// (kept). The session is counted on it, and on an entry of an earlier
// session that says the same: the same lesson given again escalates.
func (r *run) saveBlock(store *knowledge.Store, b extract.KnowledgeBlock, kept bool) error {
	why := "stop hook: a [PROCESS_KNOWLEDGE] block in the agent's last message"
	e, err := ingest.CandidateEntry(b, ingest.SourceStopHook)
	if err != nil {
		return err
	}
	// The entries whose lesson the block states (most of their telling
	// words are in it): this session is counted on them, and one given in
	// an earlier session is escalated. The block is kept all the same, as
	// a draft: it may say more than what the person asked to keep.
	for _, other := range r.entriesAbout(e.Summary) {
		if other.Key == knowledge.CandidateKey(e) {
			continue
		}
		if _, err := r.taught(store, other); err != nil {
			r.log.Printf("counting %s: %v", other.Key, err)
		}
	}
	var (
		key     string
		created bool
	)
	if kept {
		c := *e
		c.Status = knowledge.StatusActive
		c.Key = knowledge.CandidateKey(&c)
		key = c.Key
		if _, created, err = store.Create(r.ctx, &c, "the person asked to keep it; the agent stated it: "+c.Summary); err != nil {
			return err
		}
		// A draft of the same block saved before is the person's now.
		if _, _, _, err := store.SetStatus(r.ctx, c.Key, knowledge.StatusActive, "the person asked to keep it: "+c.Summary); err != nil {
			return err
		}
	} else {
		sc, err := ingest.SaveCandidate(r.ctx, store, b, ingest.SourceStopHook, why)
		if err != nil {
			return err
		}
		key, created = knowledge.CandidateKey(e), sc.Created
	}
	if created {
		return r.countTaught(key)
	}
	// The same block in another session: the lesson given again.
	existing, _, err := store.Read(key)
	if err != nil {
		return err
	}
	_, err = r.taught(store, existing)
	return err
}
