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
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
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
	takenBackNote = "devlearn: the person took this rule back earlier in this session (%s, %q, was deleted or reverted): this session's request does not keep it again; 'devlearn knowledge add' does, if the person wants it back."
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
	k, err := r.keeper().Keep(r.ctx, q, prompt, r.now)
	switch {
	case err != nil:
		return "", err
	case k.Escalated:
		return fmt.Sprintf(escalatedNote, k.Key, k.Summary), nil
	case k.TakenBack:
		return fmt.Sprintf(takenBackNote, k.Key, k.Summary), nil
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
// force. A run has one, made at first use: it folds the observation log
// once, however many lessons the prompt or the agent's blocks give.
func (r *run) keeper() *keep.Keeper {
	if r.keep == nil {
		r.keep = &keep.Keeper{
			Store:   r.entryStore(),
			Log:     r.logStore(),
			Session: r.in.SessionID,
			Source:  "prompt",
			Entries: r.entries(),
		}
	}
	return r.keep
}

// entries are the project's entries in force that a lesson may restate,
// read once per run, at the first lesson, from the knowledge cache.
func (r *run) entries() *keep.Entries {
	if r.inForce == nil {
		r.inForce = &keep.Entries{
			Src:     r.sources(),
			Load:    func() *knowledge.Set { return r.load(knowledge.Quick) },
			InForce: true,
		}
	}
	return r.inForce
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
// (redacted) restates, and escalates those given in another session
// before; one naming another thing in the entry's place is another rule.
func (r *run) escalateCorrection(prompt string) []string {
	var notes []string
	for _, e := range r.entries().Restated(prompt) {
		esc, err := r.keeper().Taught(r.ctx, e, r.now)
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

func (r *run) logStore() observe.Store {
	return observe.ProjectStore(r.proj)
}

// entryStore is the project's entries, written through the one writer
// under the run's hook: one per run.
func (r *run) entryStore() *entrystore.Store {
	if r.store == nil {
		command := "hook user-prompt-submit"
		if r.event == Stop {
			command = "hook stop"
		}
		//devlearn:triggers "hook stop" "hook user-prompt-submit"
		w := evolve.New(r.proj, r.now, evolve.Trigger{Command: command, Session: r.in.SessionID})
		r.store = entrystore.Project(r.proj, w)
	}
	return r.store
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
func (r *run) saveBlock(b extract.KnowledgeBlock, kept bool) error {
	why := "stop hook: a [PROCESS_KNOWLEDGE] block in the agent's last message"
	e, err := ingest.CandidateEntry(b, ingest.SourceStopHook)
	if err != nil {
		return err
	}
	store, k := r.entryStore(), r.keeper()
	// The entries whose lesson the block states (most of their telling
	// words are in it, and no other thing in their place): this session
	// is counted on them, and one given in
	// an earlier session is escalated. The block is kept all the same, as
	// a draft: it may say more than what the person asked to keep.
	for _, other := range r.entries().Restated(e.Summary) {
		if other.Key == knowledge.CandidateKey(e) {
			continue
		}
		if _, err := k.Taught(r.ctx, other, r.now); err != nil {
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
		// A later block of the message finds it (as read, if it was).
		r.entries().Add(&c)
	} else {
		sc, err := ingest.SaveCandidate(r.ctx, store, b, ingest.SourceStopHook, why)
		if err != nil {
			return err
		}
		key, created = knowledge.CandidateKey(e), sc.Created
		if created && r.cfg.Serve.Drafts {
			// A later block of the message finds it, as it finds the
			// drafts it serves.
			d := *e
			d.Status, d.Key = knowledge.StatusDraft, key
			r.entries().Add(&d)
		}
	}
	if created {
		return k.CountTaught(r.ctx, key, r.now)
	}
	// The same block in another session: the lesson given again.
	existing, _, err := store.Read(key)
	if err != nil {
		return err
	}
	_, err = k.Taught(r.ctx, existing, r.now)
	return err
}
