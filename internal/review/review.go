// Package review finds what needs a person's attention in a project's
// learning and records their decisions: observations flagged stale, over a
// knowledge file's soft cap or for review, artifacts a person deleted that
// nobody has looked at since, and candidate knowledge entries. A decision
// is an event in the log (so it merges like every other fact) and, where
// an artifact exists, a change to its markdown through the one writer.
package review

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/curator"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/inject"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/observed"
	"github.com/devlearn/devlearn/internal/project"
)

// Item is one thing that needs attention.
type Item struct {
	ID       string   `json:"id"`   // obs_… or entry:<key>
	Kind     string   `json:"kind"` // observation | candidate
	Type     string   `json:"type"` // observation type, or the entry's kind
	Text     string   `json:"text"` // pattern, or the entry's summary
	Status   string   `json:"status"`
	Reasons  []string `json:"reasons"`
	Artifact string   `json:"artifact,omitempty"` // path of the artifact or entry file
	Anchor   string   `json:"anchor,omitempty"`
}

// Kinds of item.
const (
	KindObservation = "observation"
	KindCandidate   = "candidate"
)

// Reviewer finds items and applies decisions in one project.
type Reviewer struct {
	Proj   *project.Project
	Log    observe.Store
	Writer *evolve.Writer
	Now    time.Time
	Config *config.Config
	// Home is the devlearn home whose global store "global" copies a
	// candidate into.
	Home string
}

// reviewedAfterDeletion reports whether a person decided about a deleted
// artifact's observation after it was deprecated: a "review off" flag
// later than the deprecation.
func reviewedAfterDeletion(log *observe.Log, id string) bool {
	var dep, rev *observe.MarkInfo
	for _, m := range log.Marks(id) {
		m := m
		switch m.Kind {
		case "deprecated":
			dep = &m
		case "flag:" + observe.FlagReview:
			rev = &m
		}
	}
	return dep != nil && rev != nil && !rev.On && rev.After(*dep)
}

// Items lists everything that needs attention, observations first (by
// confidence), then candidate entries (by key).
func (r *Reviewer) Items() ([]Item, *observe.Log, error) {
	log, err := r.Log.Load()
	if err != nil {
		return nil, nil, err
	}
	items, err := r.ItemsOf(log, log.Observations(r.Now, r.Config))
	return items, log, err
}

// ItemsOf is Items on a log already folded, and its observations at r.Now.
func (r *Reviewer) ItemsOf(log *observe.Log, obs []observe.Observation) ([]Item, error) {
	var items []Item
	for _, o := range obs {
		var reasons []string
		if o.Stale != "" {
			reasons = append(reasons, "stale: "+o.Stale)
		}
		if o.SoftCap {
			reasons = append(reasons, "held back: its knowledge file is over the soft cap")
		}
		if o.NeedsReview && o.Stale == "" && !o.SoftCap {
			reasons = append(reasons, "flagged for review")
		}
		if o.Status == observe.Deprecated && o.DeprecatedReason == "deleted" && !reviewedAfterDeletion(log, o.ID) {
			reasons = append(reasons, "deprecated because its artifact was deleted; nobody has reviewed that yet")
		}
		if why := heldObservation(log, &o); why != "" && o.Status != observe.Deprecated {
			reasons = append(reasons, heldReason(why))
		}
		if len(reasons) == 0 {
			continue
		}
		items = append(items, Item{ID: o.ID, Kind: KindObservation, Type: o.Type, Text: o.Pattern, Status: o.Status, Reasons: reasons, Artifact: o.Artifact, Anchor: o.Anchor})
	}
	cands, err := Candidates(r.Proj)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		if c.Held != "" && c.Status != knowledge.StatusArchived {
			items = append(items, Item{ID: "entry:" + c.Key, Kind: KindCandidate, Type: c.Kind, Text: c.Summary, Status: c.Status, Reasons: []string{heldReason(c.Held)}, Artifact: c.Path})
			continue
		}
		switch c.Status {
		case knowledge.StatusCandidate:
			items = append(items, Item{ID: "entry:" + c.Key, Kind: KindCandidate, Type: c.Kind, Text: c.Summary, Status: c.Status, Reasons: []string{"candidate knowledge entry: keep makes it active, deprecate archives it"}, Artifact: c.Path})
		case knowledge.StatusDraft:
			items = append(items, Item{ID: "entry:" + c.Key, Kind: KindCandidate, Type: c.Kind, Text: c.Summary, Status: c.Status, Reasons: []string{"draft the agent wrote, already served below active entries: keep makes it active, deprecate archives it"}, Artifact: c.Path})
		}
	}
	return items, nil
}

// Outcome says what one decision did.
type Outcome struct {
	ID     string   `json:"id"`
	Action string   `json:"action"` // keep, deprecate, restore
	Events []string `json:"events"` // ops recorded in the log
	Files  []string `json:"files"`  // project files changed
	Note   string   `json:"note,omitempty"`
}

// ErrUnknown is returned for an id that is neither an observation nor a
// knowledge entry of the project.
var ErrUnknown = errors.New("not an observation or knowledge entry of this project")

// EntryKey returns the knowledge entry key an id names: "entry:<key>" as
// the review lists it, or the bare key (observation ids start with obs_).
func EntryKey(id string) (string, bool) {
	if key, ok := strings.CutPrefix(id, "entry:"); ok {
		return key, true
	}
	return id, !strings.HasPrefix(id, "obs_")
}

// Decide records one decision ("keep", "accept", "deprecate" or
// "restore") about id. Accept is keep that also says yes to a lesson
// still being observed: it is made ready whatever the thresholds, so the
// next render makes its artifact.
func (r *Reviewer) Decide(ctx context.Context, action, id string) (*Outcome, error) {
	if key, ok := EntryKey(id); ok {
		return r.decideEntry(ctx, action, "entry:"+key, key)
	}
	log, err := r.Log.Load()
	if err != nil {
		return nil, err
	}
	o, ok := log.Observation(id, r.Now, r.Config)
	if !ok {
		return nil, fmt.Errorf("%s: %w (see 'devlearn learn --list')", id, ErrUnknown)
	}
	out := &Outcome{ID: id, Action: action, Events: []string{}, Files: []string{}}
	seq := o.NextSeq()
	event := func(op string, fill func(*observe.Event)) *observe.Event {
		e := observe.NewEvent(op, id, r.Now, "review", fill)
		out.Events = append(out.Events, op)
		return e
	}
	flagOff := func(name, reason string) *observe.Event {
		off := false
		e := event(observe.OpFlag, func(e *observe.Event) { e.Flag, e.On, e.Reason, e.Seq = name, &off, reason, seq })
		out.Events[len(out.Events)-1] = "flag " + name + " off"
		return e
	}
	var events []*observe.Event
	var changes []evolve.Change
	switch action {
	case "keep", "accept":
		if action == "accept" && o.Status == observe.Deprecated {
			return nil, fmt.Errorf("%s is retired (%s); 'restore' brings it back", id, o.DeprecatedReason)
		}
		promote := action == "accept" && o.Status == observe.Observing
		if promote {
			events = append(events, event(observe.OpPromote, func(e *observe.Event) { e.Reason, e.Seq = "accepted by a person", seq }))
		}
		if heldObservation(log, &o) != "" {
			events = append(events, event(observe.OpFlag, func(e *observe.Event) {
				on := true
				e.Flag, e.On, e.Reason, e.Seq = observe.FlagAccepted, &on, observe.AcceptedReason(inject.Hash(o.Pattern)), seq
			}))
			out.Events[len(out.Events)-1] = "flag " + observe.FlagAccepted + " on"
			if changes, err = r.acceptSection(o, out); err != nil {
				return nil, err
			}
		}
		if o.Stale != "" {
			events = append(events, flagOff(observe.FlagStale, "kept by a person"))
		}
		if o.SoftCap {
			events = append(events, flagOff(observe.FlagSoftCap, "kept by a person"))
		}
		// The review flag off is what "a person looked at it" means.
		events = append(events, flagOff(observe.FlagReview, "kept by a person"))
		out.Note = "kept as it is"
		if slices.Contains(out.Events, "flag "+observe.FlagAccepted+" on") {
			out.Note = "accepted by a person: served from now on"
		}
		if o.Status == observe.Deprecated {
			out.Note = "kept deprecated: the deletion stands"
		}
		if promote {
			out.Note = "accepted by a person: ready, whatever the thresholds; the next render makes its artifact"
		}
	case "deprecate":
		if o.Status == observe.Deprecated {
			return nil, fmt.Errorf("%s is already deprecated (%s); 'restore' undoes that", id, o.DeprecatedReason)
		}
		events = append(events,
			event(observe.OpDeprecate, func(e *observe.Event) { e.Reason, e.Seq = "review", seq }),
			flagOff(observe.FlagReview, "deprecated by a person"))
		if changes, err = r.artifactChanges(o, true, out); err != nil {
			return nil, err
		}
		if out.Note == "" {
			out.Note = "deprecated: it will not be rendered or served"
		}
		if err := observed.Drop(r.Proj.Root, id); err != nil {
			return nil, err
		}
	case "restore":
		if o.Status != observe.Deprecated {
			return nil, fmt.Errorf("%s is %s, not deprecated: nothing to restore", id, o.Status)
		}
		events = append(events,
			event(observe.OpRestore, func(e *observe.Event) { e.Seq = seq }),
			flagOff(observe.FlagReview, "restored by a person"))
		if changes, err = r.artifactChanges(o, false, out); err != nil {
			return nil, err
		}
		out.Note = "restored: ready again; 'devlearn render-ready' brings its artifact back"
	default:
		return nil, fmt.Errorf("unknown review action %q (keep, accept, deprecate, restore)", action)
	}
	// The decision first: a reconcile running between the two then sees a
	// deprecated observation whose file went away, which is no new "no".
	if err := r.Log.Append(ctx, events...); err != nil {
		return nil, err
	}
	if len(changes) > 0 {
		reason := evolve.Reason{Text: fmt.Sprintf("review: %s %s", action, id), Observations: []string{id}}
		if _, err := r.Writer.Apply(ctx, reason, changes...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// artifactChanges marks an observation's artifact: a deprecated command or
// skill file is removed (the writer keeps a copy), a deprecated knowledge
// section gets Status: Deprecated; a restored section gets its status back.
// The manifest follows, so reconcile sees no edit and no deletion.
func (r *Reviewer) artifactChanges(o observe.Observation, deprecate bool, out *Outcome) ([]evolve.Change, error) {
	man, _, err := manifest.LoadProject(r.Proj)
	if err != nil {
		return nil, err
	}
	e := man.Get(o.ID)
	var changes []evolve.Change
	switch {
	case e == nil && !lesson.Is(o.Type, lesson.Section):
		return nil, nil
	case lesson.Is(o.Type, lesson.Section):
		kind, doc, sec, err := r.renderedSection(o)
		if sec == nil {
			return nil, err
		}
		rel := kind.Path
		status := kind.Active
		if deprecate {
			status = "Deprecated"
		}
		if strings.EqualFold(sec.Status(), status) {
			return nil, nil
		}
		body := setStatus(sec.Body, status)
		i := slices.Index(doc.Sections, sec)
		doc.Sections[i] = knowfile.Parse(kind, []byte(body)).Sections[0]
		changes = append(changes, evolve.Change{Path: rel, Data: doc.Bytes()})
		out.Files = append(out.Files, rel)
		if e != nil {
			e.ContentHash = doc.Sections[i].Hash()
			man.Put(*e)
			changes = append(changes, evolve.Change{Path: project.ManifestFile, Data: man.Bytes()})
		}
		if deprecate {
			out.Note = fmt.Sprintf("deprecated: %s in %s now says Status: Deprecated", sec.Anchor, rel)
		}
	case deprecate:
		if _, err := os.Stat(r.Proj.Path(e.Path)); err == nil {
			changes = append(changes, evolve.Change{Path: e.Path, Remove: true})
			out.Files = append(out.Files, e.Path)
			out.Note = fmt.Sprintf("deprecated: %s removed (a copy is kept in the audit log)", e.Path)
		}
		man.Remove(o.ID)
		changes = append(changes, evolve.Change{Path: project.ManifestFile, Data: man.Bytes()})
	}
	for _, c := range changes {
		if c.Path == project.ManifestFile && !slices.Contains(out.Files, c.Path) {
			out.Files = append(out.Files, c.Path)
		}
	}
	return changes, nil
}

var statusLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(\s*[-*]\s+\*\*Status\*\*:\s?).*$`) })

// setStatus sets a section's Status field, adding one after the heading's
// fields if it has none.
func setStatus(body, status string) string { return setField(body, "Status", status) }

// setField sets a section's field, adding it after the heading's fields
// if it has none.
func setField(body, name, value string) string {
	line := statusLine()
	if name != "Status" {
		line = regexp.MustCompile(`(?m)^(\s*[-*]\s+\*\*` + regexp.QuoteMeta(name) + `\*\*:\s?).*$`)
	}
	if line.MatchString(body) {
		return line.ReplaceAllString(body, "${1}"+value)
	}
	status := value
	lines := strings.SplitAfter(body, "\n")
	last := 0
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "- **") {
			last = i
		}
	}
	if last == 0 {
		return strings.TrimRight(body, "\n") + "\n\n- **" + name + "**: " + status + "\n"
	}
	out := append([]string{}, lines[:last+1]...)
	out = append(out, "- **"+name+"**: "+status+"\n")
	return strings.Join(append(out, lines[last+1:]...), "")
}

// Candidate is a knowledge entry file, as much as review needs of it.
type Candidate struct {
	Key     string `json:"key"`
	Summary string `json:"summary"`
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	Path    string `json:"path"` // relative to the root
	// Held says why it is held for a person's review (knowledge.Item.Held).
	Held string `json:"held,omitempty"`
}

// Candidates lists the project's knowledge entries as review needs them,
// read by the knowledge package's parser (an entry that does not parse is
// left to 'devlearn knowledge list', which names its line).
func Candidates(p *project.Project) ([]Candidate, error) {
	set := knowledge.ReadAll(knowledge.Sources{Root: p.Root})
	var out []Candidate
	for _, it := range set.Items {
		// A learned draft is a view of an observation (internal/observed):
		// what a person decides about is the observation.
		if it.Type != "entry" || it.Scope != knowledge.ScopeProject || it.Learned() {
			continue
		}
		out = append(out, Candidate{Key: it.ID, Summary: it.Title, Kind: it.Kind, Status: it.Status, Path: it.Path, Held: it.Held})
	}
	slices.SortFunc(out, func(a, b Candidate) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (r *Reviewer) decideEntry(ctx context.Context, action, id, key string) (*Outcome, error) {
	cands, err := Candidates(r.Proj)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(cands, func(c Candidate) bool { return c.Key == key })
	if i < 0 {
		return nil, fmt.Errorf("%s: %w (see 'devlearn knowledge' or %s)", id, ErrUnknown, project.EntriesDir)
	}
	c := cands[i]
	want := map[string]string{"keep": "active", "accept": "active", "deprecate": "archived", "restore": "active", "global": "active"}[action]
	if want == "" {
		return nil, fmt.Errorf("unknown review action %q (keep, accept, deprecate, restore, global)", action)
	}
	if action == "global" {
		return r.promoteGlobal(ctx, id, c)
	}
	if action == "restore" && c.Status != "archived" {
		return nil, fmt.Errorf("%s is %s, not archived: nothing to restore", id, c.Status)
	}
	out := &Outcome{ID: id, Action: action, Events: []string{}, Files: []string{}, Note: fmt.Sprintf("%s → %s", c.Status, want)}
	if c.Held != "" && action != "deprecate" {
		if err := r.acceptEntry(ctx, c, id); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, c.Path)
		out.Note = "accepted by a person: served from now on"
		if c.Status != want {
			out.Note += fmt.Sprintf("; %s → %s", c.Status, want)
		}
	}
	if c.Status == want {
		if c.Held == "" {
			out.Note = "already " + want
		}
		return out, nil
	}
	reason := fmt.Sprintf("review: %s %s (%s)", action, id, out.Note)
	if _, _, _, err := entrystore.Project(r.Proj, r.Writer).SetStatus(ctx, c.Key, want, reason); err != nil {
		return nil, err
	}
	out.Files = append(out.Files, c.Path)
	return out, nil
}

// heldReason is how review lists a lesson held for a person's review.
func heldReason(why string) string {
	return "held for review, not served: it " + why + "; keep accepts it (this text only), deprecate drops it"
}

// heldObservation is why an observation's lesson is held and not
// curated (curator.Held).
func heldObservation(log *observe.Log, o *observe.Observation) string { return curator.Held(log, o) }

// acceptSection records, in the section an accepted observation was
// rendered to, that a person accepted its text: the line the hooks look
// for (knowledge.SectionText), with the manifest following so that
// reconcile sees no edit.
func (r *Reviewer) acceptSection(o observe.Observation, out *Outcome) ([]evolve.Change, error) {
	kind, doc, sec, err := r.renderedSection(o)
	if sec == nil {
		return nil, err
	}
	hash := inject.Hash(knowledge.SectionText(sec.Title, sec.Body))
	if sec.Field("Accepted") == hash {
		return nil, nil
	}
	i := slices.Index(doc.Sections, sec)
	doc.Sections[i] = knowfile.Parse(kind, []byte(setField(sec.Body, "Accepted", hash))).Sections[0]
	changes := []evolve.Change{{Path: kind.Path, Data: doc.Bytes()}}
	out.Files = append(out.Files, kind.Path)
	man, _, err := manifest.LoadProject(r.Proj)
	if err != nil {
		return nil, err
	}
	if e := man.Get(o.ID); e != nil {
		e.ContentHash = doc.Sections[i].Hash()
		man.Put(*e)
		changes = append(changes, evolve.Change{Path: project.ManifestFile, Data: man.Bytes()})
		out.Files = append(out.Files, project.ManifestFile)
	}
	return changes, nil
}

// acceptEntry records that a person accepted a held entry: the hash of
// the text they read, in its front matter, so that an edit holds it again.
func (r *Reviewer) acceptEntry(ctx context.Context, c Candidate, id string) error {
	st := entrystore.Project(r.Proj, r.Writer)
	data, err := os.ReadFile(r.Proj.Path(c.Path))
	if err != nil {
		return err
	}
	e, err := knowledge.ParseEntry(c.Path, data)
	if err != nil {
		return err
	}
	_, _, _, err = st.SetField(ctx, c.Key, "accepted", inject.Hash(knowledge.EntryText(e)), fmt.Sprintf("review: keep %s (accepted, held for review: %s)", id, c.Held))
	return err
}

// promoteGlobal confirms an entry and copies it to the global store, for
// every project on this machine (ClawFlow's promotion to global: "Apply to all projects?").
func (r *Reviewer) promoteGlobal(ctx context.Context, id string, c Candidate) (*Outcome, error) {
	if r.Home == "" {
		return nil, errors.New("no devlearn home ($DEVLEARN_HOME or $HOME) for the global store")
	}
	if c.Status == knowledge.StatusArchived {
		return nil, fmt.Errorf("%s is archived: restore it first", id)
	}
	out := &Outcome{ID: id, Action: "global", Events: []string{}, Files: []string{}, Note: fmt.Sprintf("%s → active, copied to the global store", c.Status)}
	st := entrystore.Project(r.Proj, r.Writer)
	saved, data, path, err := st.SetStatus(ctx, c.Key, knowledge.StatusActive, fmt.Sprintf("review: global %s", id))
	if err != nil {
		return nil, err
	}
	g := entrystore.Global(r.Home)
	g.Now = r.Now
	gpath, err := g.Copy(ctx, saved, data, "review: global "+id)
	if err != nil {
		return nil, err
	}
	out.Files = append(out.Files, path, gpath)
	return out, nil
}

// renderedSection is the decisions or pitfalls section an observation was
// rendered to, with its file parsed; sec is nil when there is none (not a
// decision or pitfall, no file, no section of that source).
func (r *Reviewer) renderedSection(o observe.Observation) (kind knowfile.Kind, doc *knowfile.Doc, sec *knowfile.Section, err error) {
	t, _ := lesson.Get(o.Type)
	if t.Artifact != lesson.Section {
		return kind, nil, nil, nil
	}
	kind = knowfile.Kind(t.Central)
	data, err := os.ReadFile(r.Proj.Path(kind.Path))
	if errors.Is(err, fs.ErrNotExist) {
		return kind, nil, nil, nil
	}
	if err != nil {
		return kind, nil, nil, err
	}
	doc = knowfile.Parse(kind, data)
	return kind, doc, doc.BySource(o.ID), nil
}
