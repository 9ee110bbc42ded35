package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/debugdump"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/infer"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// A lesson the person asks to keep is their own decision: it becomes an
// active entry at once, through the one writer, and is served from the
// next matching tool call. Every session in which a lesson is given (the
// person asking, correcting, or the agent writing its block) is counted
// on the entry ("taught", a counter of the observation log, one event per
// session); a lesson given again in a later session is a mistake
// repeated, and its entry becomes CRITICAL (triads seed, ADR-005).

// counterTaught counts the sessions in which an entry's lesson was given.
const counterTaught = "taught"

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
	store := r.entryStore("hook user-prompt-submit")
	if e, ok := r.entryAbout(q.Lesson); ok {
		if e.Status == knowledge.StatusDraft {
			// The agent's draft of it, now the person's own rule.
			if _, _, _, err := store.SetStatus(r.ctx, e.Key, knowledge.StatusActive, "the person asked to keep it: "+e.Summary); err != nil {
				return "", err
			}
		}
		if esc, err := r.taught(store, e); err != nil {
			return "", err
		} else if esc {
			return fmt.Sprintf(escalatedNote, e.Key, e.Summary), nil
		}
		return fmt.Sprintf(knownNote, e.Key, e.Summary), nil
	}
	e := &knowledge.Entry{
		Summary: knowledge.Cut(q.Lesson, knowledge.MaxSummary),
		Kind:    infer.Kind(q.Lesson),
		Priority: infer.Priority(infer.Lesson{
			Origin: infer.Correction, Context: prompt, Sessions: 1,
		}),
		Status:   knowledge.StatusActive,
		Source:   "prompt",
		Triggers: infer.Triggers(q.Lesson),
		Body:     evidenceBody(q.Evidence, r.in.SessionID, r.now),
	}
	e.Key = knowledge.CandidateKey(e)
	path, _, err := store.Create(r.ctx, e, "the person asked to keep it: "+e.Summary)
	if err != nil {
		return "", err
	}
	if err := r.countTaught(e.Key); err != nil {
		r.log.Printf("counting %s: %v", e.Key, err)
	}
	_ = path
	if r.keptNow == nil {
		r.keptNow = map[string]bool{}
	}
	r.keptNow[e.Key] = true
	return fmt.Sprintf(keptNote, e.Key, e.Summary), nil
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

// evidenceBody keeps the person's words with the entry.
func evidenceBody(evidence, session string, now time.Time) string {
	return fmt.Sprintf("The person asked to keep this (session %s, %s):\n\n> %s\n",
		session, now.UTC().Format("2006-01-02"), strings.Join(strings.Fields(evidence), " "))
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

// taught counts this session on an entry and makes it CRITICAL when that
// makes two sessions or more; it reports an escalation. An entry nothing
// counted yet (written by hand, or by the worker) was given in an earlier
// session.
func (r *run) taught(store *knowledge.Store, e *knowledge.Entry) (bool, error) {
	st := r.logStore()
	log, err := st.Load()
	if err != nil {
		return false, err
	}
	subject := "entry:" + e.Key
	sessions := log.Counters(subject)[counterTaught]
	if sessions == 0 {
		sessions = 1
	}
	if !log.Counted(subject, counterTaught, taughtEID(r.in.SessionID, e.Key)) {
		if err := st.Append(r.ctx, taughtEvent(e.Key, r.in.SessionID, r.now)); err != nil {
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
	_, _, _, err = store.SetPriority(r.ctx, e.Key, p, fmt.Sprintf("given again in a later session (%d sessions): %s", sessions, e.Summary))
	return err == nil, err
}

// countTaught records this session on a new entry.
func (r *run) countTaught(key string) error {
	return r.logStore().Append(r.ctx, taughtEvent(key, r.in.SessionID, r.now))
}

func taughtEID(session, key string) string {
	return observe.StableID(counterTaught + "\x00" + session + "\x00" + key)
}

func taughtEvent(key, session string, at time.Time) *observe.Event {
	e := observe.NewEvent(observe.OpCount, "entry:"+key, at, session, func(e *observe.Event) { e.Counter = counterTaught })
	e.EID = taughtEID(session, key)
	return e
}

func (r *run) logStore() observe.Store {
	return observe.Store{Root: r.proj.Root, Path: r.proj.Path(project.LogFile), LockPath: r.proj.LockPath(project.LogFile)}
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
