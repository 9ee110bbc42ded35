// Package reconcile squares devlearn's records with what people did to its
// artifacts: a deleted artifact is a "no" that sticks (penalised and
// deprecated), an edited one belongs to the user (its new hash is recorded),
// a file left by a crash is adopted when exactly one observation claims it,
// and observations whose code references are gone are marked stale. It
// never mistakes a checkout state for a decision (the checkout states rule, docs/architecture.md).
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/handover"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/render"
	"github.com/devlearn/devlearn/internal/stamp"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Options of a run.
type Options struct {
	Now    time.Time
	Config *config.Config
	DryRun bool // find everything, write nothing
	Full   bool // ignore the quiet-run cache
}

// Outcome is what happened to one artifact or observation.
type Outcome struct {
	ID     string `json:"id,omitempty"`
	Path   string `json:"path"`
	Anchor string `json:"anchor,omitempty"`
	What   string `json:"what"` // deleted, edited, healed, orphan, stale, fresh, renumbered
	Note   string `json:"note,omitempty"`
}

// Skip is something reconcile deliberately did not judge, and why.
type Skip struct {
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
}

// Result counts what a run found; Details says it item by item.
type Result struct {
	Deletions int `json:"deletions"`
	Edits     int `json:"edits"`
	Unchanged int `json:"unchanged"`
	Healed    int `json:"healed"`
	// Withdrawn counts the artifacts of turned-down lessons that came back
	// unedited (a merge from a branch that still had them), removed again.
	Withdrawn int       `json:"withdrawn,omitempty"`
	Stale     int       `json:"stale"`
	Skipped   []Skip    `json:"skipped"`
	Details   []Outcome `json:"details"`
}

// PenaltyFactor is what a deletion does to confidence (devflow's × 0.3).
const PenaltyFactor = 0.3

// Reconciler reconciles one project.
type Reconciler struct {
	Proj   *project.Project
	Log    observe.Store
	Writer *evolve.Writer
	Opts   Options
}

type run struct {
	ctx     context.Context
	r       *Reconciler
	res     *Result
	log     *observe.Log
	obs     map[string]*observe.Observation // by id, into the slice WithStatus gave
	man     *manifest.Manifest
	changed bool // the manifest must be written
	docs    map[string]*knowfile.Doc
	events  []*observe.Event
	sparse  func(rel string) bool
	tracked map[string]bool  // base names of the files git tracks, read when first needed
	start   time.Time        // before the run looked at any file
	proofs  map[string]proof // what it judged, for the quiet-run cache
	root    *stamp.Folder    // the working tree: its files are read and stamped by relative names
	handed  *handover.Files  // what the last render wrote, known by stamp without reading it
	// unchanged: the artifacts found as the render wrote them, by
	// handedKey (unchangedSinceRender).
	unchanged map[string]bool
	// withdraw: the files of turned-down lessons to remove again.
	withdraw []evolve.Change
}

// loadLog loads the log a check judges against; a variable for tests.
var loadLog = observe.Store.Load

// Run reconciles and records what it found.
func (r *Reconciler) Run(ctx context.Context) (*Result, error) {
	start := time.Now()
	res := &Result{Skipped: []Skip{}, Details: []Outcome{}}
	if op, marker := r.Proj.Operation(); op != "" {
		res.Skipped = append(res.Skipped, Skip{Reason: fmt.Sprintf("%s is in progress (.git/%s): nothing is treated as deleted, edited or stale until it ends", op, marker)})
		return res, nil
	}
	if r.Proj.MergeUnderway() {
		res.Skipped = append(res.Skipped, Skip{Reason: "a devlearn merge into this working tree has not finished (running, or stopped: 'devlearn merge' finishes it): nothing is treated as deleted, edited or stale until it ends"})
		return res, nil
	}
	if !r.Opts.DryRun && !r.Opts.Full {
		if res := cached(r.Proj, r.Opts.Now, r.Opts.Config, start); res != nil {
			return res, nil
		}
	}
	// A crash of the system may have lost a finished batch's last
	// renames: judged before they are done again, a rendered artifact
	// would read as a person's deletion, a "no" that sticks.
	if !r.Opts.DryRun && r.Writer != nil && evolve.Unsettled(r.Proj) {
		if err := r.Writer.Settle(ctx); err != nil {
			return nil, err
		}
	}
	root, err := stamp.OpenFolder(r.Proj.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	u := &run{ctx: ctx, r: r, res: res, start: start, proofs: map[string]proof{}, root: root}
	u.preStamp()
	// The log's load is the longest part of a first check (right after a
	// bulk render, the fold of the render's lines, which decodes the
	// thousand states they touch from the fold cache) and reads nothing
	// the rest of the reading does: the hand-over, the manifest and the
	// knowledge files are read, and the artifacts handed over stamped,
	// meanwhile (readProject), and the log is waited for before its
	// statuses are needed. The log was stamped
	// before, as ever. A panic of the load is the caller's, as it was (a
	// hook recovers it, and logs it rather than break the agent).
	type loaded struct {
		log      *observe.Log
		err      error
		panicked any
	}
	loading := make(chan loaded, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				loading <- loaded{panicked: p}
			}
		}()
		log, err := loadLog(r.Log)
		loading <- loaded{log: log, err: err}
	}()
	readErr := u.readProject()
	got := <-loading
	if got.panicked != nil {
		panic(got.panicked)
	}
	if got.err != nil {
		return nil, got.err
	}
	if readErr != nil {
		return nil, readErr
	}
	u.log = got.log
	// An entry's observation matters when deprecated (its deletion is
	// already a "no"), an orphan's when ready or created, staleness when
	// ready or created: the observing ones are never looked at.
	matters := u.log.WithStatus(r.Opts.Now, r.Opts.Config, observe.Ready, observe.Created, observe.Deprecated)
	u.obs = make(map[string]*observe.Observation, len(matters))
	for i := range matters {
		u.obs[matters[i].ID] = &matters[i]
	}
	man := u.man

	// After a merge renumbered entries, the manifest still has their old
	// numbers: move them first, so a renumbering is not taken for an edit.
	for _, ra := range knowfile.SettleAnchors(man, u.docs) {
		u.changed = true
		u.note(Outcome{ID: ra.ObservationID, Path: ra.Path, Anchor: ra.To, What: "renumbered", Note: "was " + ra.From})
	}
	for _, e := range slices.Clone(man.Entries) {
		if e.IsCurated() {
			continue // the curator reconciles its own bullets
		}
		if err := u.entry(e); err != nil {
			return nil, err
		}
	}
	if err := u.orphans(); err != nil {
		return nil, err
	}
	u.staleness()

	if r.Opts.DryRun {
		return res, nil
	}
	if len(u.events) == 0 && !u.changed {
		u.saveCache()
		return res, nil
	}
	if err := r.Log.Append(ctx, u.events...); err != nil {
		return nil, err
	}
	if u.changed {
		changes := append([]evolve.Change{{Path: project.ManifestFile, Data: man.Bytes()}}, u.withdraw...)
		if _, err := r.Writer.Apply(ctx, evolve.Reason{Text: "reconcile: the manifest follows the artifacts as people left them", Observations: u.ids()},
			changes...); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// readProject reads what a check judges besides the log: the render's
// hand-over, the manifest, the sparse checkout and the knowledge and
// directive files the manifest names. Read here rather than through
// knowfile.ReadAll and directives.ReadLearned, to keep the bytes judged.
func (u *run) readProject() error {
	p := u.r.Proj
	u.handed = handover.Load(p)
	man, migrated, data, err := manifest.LoadProjectData(p)
	if err != nil {
		return err
	}
	// A proof for each artifact at least, made room for at once: a map
	// grown entry by entry allocates about twice its size, and every page
	// of a fresh process's memory is a fault (the first check after a bulk
	// render proves a thousand files).
	proofs := make(map[string]proof, len(u.proofs)+len(man.Entries)+16)
	maps.Copy(proofs, u.proofs)
	u.proofs = proofs
	u.judged(project.ManifestFile, proof{kind: byContent, exists: data != nil, data: data})
	u.man, u.changed = man, len(migrated) > 0
	u.unchangedSinceRender(man.Entries)
	if u.sparse, err = sparseFilter(p); err != nil {
		return err
	}
	// The knowledge files, then the sections rendered into an area's
	// .directives/ files, artifacts like the central ones: each file the
	// manifest names.
	u.docs = make(map[string]*knowfile.Doc, len(knowfile.Kinds()))
	for _, k := range knowfile.Kinds() {
		if err := u.readDoc(k, k.Path); err != nil {
			return err
		}
	}
	for _, e := range man.Entries {
		if e.AnchorID != "" && u.docs[e.Path] == nil {
			if k, ok := directives.KindOf(e.Path); ok {
				if err := u.readDoc(k, e.Path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readDoc reads and parses a knowledge or directive file; a missing one
// is an empty document.
func (u *run) readDoc(k knowfile.Kind, rel string) error {
	data, err := u.root.ReadFile(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	u.judged(rel, proof{kind: byContent, exists: err == nil, data: data})
	u.docs[rel] = knowfile.Parse(k, data)
	return nil
}

func (u *run) ids() []string {
	var ids []string
	for _, o := range u.res.Details {
		if o.ID != "" && !slices.Contains(ids, o.ID) {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

func (u *run) note(o Outcome) { u.res.Details = append(u.res.Details, o) }

// entry checks one rendered artifact against the disk.
func (u *run) entry(e manifest.Entry) error {
	o, known := u.observation(e.ObservationID)
	deprecated := known && o.Status == observe.Deprecated
	if deprecated && e.AnchorID == "" {
		// A "no" sticks: the command or skill of a lesson turned down is
		// back as devlearn wrote it (a merge from a branch that still had
		// it adds it again). Removed again; a person's edit of it is
		// theirs and stays (below).
		data, err := u.root.ReadFile(e.Path)
		if err == nil && contenthash.Matches(e.ContentHash, data) {
			u.judged(e.Path, proof{kind: byContent, exists: true, data: data})
			u.withdraw = append(u.withdraw, evolve.Change{Path: e.Path, Remove: true, Guard: true, Expect: evolve.BlobHash(data)})
			u.man.Remove(e.ObservationID)
			u.changed = true
			u.res.Withdrawn++
			u.note(Outcome{ID: e.ObservationID, Path: e.Path, What: "withdrawn", Note: "turned down before, back unedited (a merge): removed again; 'devlearn lessons restore' brings it back"})
			return nil
		}
	}
	var current []byte
	var sec *knowfile.Section
	if e.AnchorID != "" {
		doc := u.docs[e.Path]
		if doc == nil {
			return fmt.Errorf("%s: manifest entry for %s points at %s, which is not a knowledge file", project.ManifestFile, e.ObservationID, e.Path)
		}
		if sec = knowfile.SectionOf(doc, u.man.Entries, e); sec != nil {
			current = []byte(sec.Body)
		}
	} else if u.unchanged[handedKey(e)] {
		u.res.Unchanged++
		return nil
	} else {
		data, err := u.root.ReadFile(e.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		u.judged(e.Path, proof{kind: byContent, exists: err == nil, data: data})
		if err == nil {
			current = data
		}
	}

	if current == nil {
		if u.sparse(e.Path) {
			u.res.Skipped = append(u.res.Skipped, Skip{Path: e.Path, Reason: "outside the sparse checkout: not a deletion"})
			return nil
		}
		u.man.Remove(e.ObservationID)
		u.changed = true
		if deprecated {
			return nil // already a "no"; the entry just follows the file
		}
		u.res.Deletions++
		u.note(Outcome{ID: e.ObservationID, Path: e.Path, Anchor: e.AnchorID, What: "deleted", Note: "penalised and deprecated: a 'no' that sticks until restored"})
		u.events = append(u.events, Refusal(o, e, u.r.Opts.Now, "reconcile", "deleted")...)
		return nil
	}

	if contenthash.Matches(e.ContentHash, current) && !contenthash.IsLegacyHash(e.ContentHash) {
		u.res.Unchanged++
		return nil
	}
	if contenthash.Matches(e.ContentHash, current) {
		// devflow's hash, unchanged: record devlearn's from now on.
		u.res.Unchanged++
	} else {
		u.res.Edits++
		u.note(Outcome{ID: e.ObservationID, Path: e.Path, Anchor: e.AnchorID, What: "edited", Note: "the user's version wins: its hash is recorded, no penalty"})
	}
	e.ContentHash = hashOf(sec, current)
	u.man.Put(e)
	u.changed = true
	return nil
}

// unchangedSinceRender finds the artifacts the manifest names that are
// unchanged since the render that wrote them, without reading them: the
// render handed over each file's stamp and hash, the file still has that
// stamp, and the hash is the manifest's. The stamp each was judged by is
// its proof in the quiet-run cache: it was settled before the run began,
// so any write since has changed it. Done while the log loads: what is
// found here depends on the manifest and the files alone.
func (u *run) unchangedSinceRender(entries []manifest.Entry) {
	for _, e := range entries {
		if e.IsCurated() || e.AnchorID != "" || !u.handed.Has(e.Path) || contenthash.IsLegacyHash(e.ContentHash) {
			continue
		}
		cur, err := u.root.Stat(e.Path)
		if hash, ok := u.handed.Hash(e.Path, cur); err != nil || !ok || hash != e.ContentHash {
			continue
		}
		u.judged(e.Path, proof{kind: byStamp, pre: cur, judged: true})
		if u.unchanged == nil {
			u.unchanged = make(map[string]bool, len(entries))
		}
		u.unchanged[handedKey(e)] = true
	}
}

// handedKey names an entry unchangedSinceRender found unchanged: the file
// and the hash the manifest has for it.
func handedKey(e manifest.Entry) string { return e.Path + "\x00" + e.ContentHash }

// observation is the observation id at the run's time, whatever its
// status.
func (u *run) observation(id string) (observe.Observation, bool) {
	if o, ok := u.obs[id]; ok {
		return *o, true
	}
	return u.log.Observation(id, u.r.Opts.Now, u.r.Opts.Config)
}

func hashOf(sec *knowfile.Section, current []byte) string {
	if sec != nil {
		return sec.Hash()
	}
	return contenthash.Hash(current)
}

// Refusal is a person's "no" to the artifact e of observation o: a
// penalty and a deprecation, which stick until a restore. src says who
// found it, reason how ("deleted", "reverted"). Event ids are derived from
// the artifact, so finding the same "no" twice (a crash before the
// manifest was written, or a revert that reconcile sees again) counts
// once.
func Refusal(o observe.Observation, e manifest.Entry, now time.Time, src, reason string) []*observe.Event {
	key := e.ObservationID + "|" + e.Path + "|" + e.AnchorID + "|" + e.RenderedAt
	return []*observe.Event{
		withEID(observe.NewEvent(observe.OpPenalize, e.ObservationID, now, src, func(ev *observe.Event) {
			ev.Factor, ev.Reason, ev.Seq = PenaltyFactor, reason, o.NextSeq()
		}), "penalize|"+key),
		withEID(observe.NewEvent(observe.OpDeprecate, e.ObservationID, now, src, func(ev *observe.Event) {
			ev.Reason, ev.Seq = reason, o.NextSeq()
		}), "deprecate|"+key),
	}
}

func withEID(e *observe.Event, key string) *observe.Event {
	e.EID = observe.StableID(key)
	return e
}

// orphans adopts machine-made artifacts that are in no manifest entry (a
// crash between writing them and recording them, or a merge), when exactly
// one observation claims them; otherwise they are left alone and reported.
func (u *run) orphans() error {
	known := map[string]bool{}
	for _, e := range u.man.Entries {
		known[e.ObservationID] = true
	}
	for _, t := range lesson.Sections() {
		typ, path := t.Name, t.Central.Path
		doc := u.docs[path]
		for _, s := range doc.Sections {
			src := s.Source()
			if src == "" || known[src] {
				continue
			}
			if err := u.adopt(typ, src, s.Title, path, s.Anchor, []byte(s.Body), s.Hash(), known); err != nil {
				return err
			}
		}
	}
	files, err := u.artifactFiles(paths(u.man))
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.source == "" || known[f.source] {
			continue
		}
		if err := u.adopt(f.typ, f.source, "", f.path, "", f.data, contenthash.Hash(f.data), known); err != nil {
			return err
		}
	}
	return nil
}

// adopt heals one orphan. A section whose own observation is not ready may
// still be claimed by exactly one ready observation of its type with the
// same pattern (devflow's rule); its Source line then names that one.
func (u *run) adopt(typ, src, title, path, anchor string, data []byte, hash string, known map[string]bool) error {
	var matches []observe.Observation
	if o, ok := u.obs[src]; ok && (o.Status == observe.Ready || o.Status == observe.Created) && o.Type == typ {
		matches = []observe.Observation{*o}
	} else if title != "" {
		want := textkey.Normalize(title)
		for _, o := range u.obs {
			if o.Type == typ && o.Status == observe.Ready && !known[o.ID] && textkey.Normalize(o.Pattern) == want {
				matches = append(matches, *o)
			}
		}
	}
	where := Outcome{ID: src, Path: path, Anchor: anchor}
	switch len(matches) {
	case 0:
		where.What, where.Note = "orphan", "left alone: no ready observation matches it"
		u.note(where)
		return nil
	case 1:
	default:
		var ids []string
		for _, m := range matches {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		where.What, where.Note = "orphan", fmt.Sprintf("left alone: %d ready observations match it (%s)", len(ids), strings.Join(ids, ", "))
		u.note(where)
		return nil
	}
	o := matches[0]
	if o.ID != src {
		// Rename the section's Source to the observation that claims it, so
		// its identity is exact from now on.
		doc := u.docs[path]
		sec := doc.ByAnchor(anchor)
		sec.Body = strings.Replace(sec.Body, knowfile.SourcePrefix+src, knowfile.SourcePrefix+o.ID, 1)
		sec.Fields = knowfile.Parse(doc.Kind, []byte(sec.Body)).Sections[0].Fields
		doc.Changed()
		hash = knowfile.HashText(sec.Body)
		if !u.r.Opts.DryRun {
			if _, err := u.r.Writer.Apply(u.ctx, evolve.Reason{Text: "reconcile: an orphan section is adopted by the one observation that matches it", Observations: []string{o.ID}},
				evolve.Change{Path: path, Data: doc.Bytes()}); err != nil {
				return err
			}
		}
	}
	known[o.ID] = true
	u.res.Healed++
	u.note(Outcome{ID: o.ID, Path: path, Anchor: anchor, What: "healed", Note: "adopted: it was on disk but in no manifest entry"})
	u.man.Put(manifest.Entry{ObservationID: o.ID, Type: o.Type, Path: path, ContentHash: hash, RenderedAt: observe.FormatTime(u.r.Opts.Now), AnchorID: anchor})
	u.changed = true
	if o.Status != observe.Created {
		u.events = append(u.events, observe.NewEvent(observe.OpCreated, o.ID, u.r.Opts.Now, "reconcile", func(ev *observe.Event) {
			ev.Path, ev.Anchor, ev.Reason, ev.Seq = path, anchor, "healed", o.NextSeq()
		}))
	}
	return nil
}

type artifactFile struct {
	typ, path, source string
	data              []byte
}

func paths(m *manifest.Manifest) map[string]bool {
	out := make(map[string]bool, len(m.Entries))
	for _, e := range m.Entries {
		out[e.Path] = true
	}
	return out
}

// artifactFiles lists the command and skill files no manifest entry
// accounts for (devflow's `self-learning:<slug>/` skill folders included):
// the only ones worth opening to look for an orphan.
func (u *run) artifactFiles(recorded map[string]bool) ([]artifactFile, error) {
	var out []artifactFile
	read := func(typ, rel string) {
		if recorded[rel] {
			return
		}
		data, err := u.root.ReadFile(rel)
		u.judged(rel, proof{kind: byContent, exists: err == nil, data: data})
		if err != nil {
			return
		}
		out = append(out, artifactFile{typ: typ, path: rel, source: render.SourceOf(data), data: data})
	}
	cmds, err := os.ReadDir(u.r.Proj.Path(project.CommandsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	u.judged(project.CommandsDir, proof{kind: byListing, exists: err == nil, data: listing(cmds)})
	for _, c := range cmds {
		if !c.IsDir() && strings.HasSuffix(c.Name(), ".md") {
			read(typeOf(lesson.Command), project.CommandsDir+"/"+c.Name())
		}
	}
	skills, err := os.ReadDir(u.r.Proj.Path(project.SkillsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	u.judged(project.SkillsDir, proof{kind: byListing, exists: err == nil, data: listing(skills)})
	for _, s := range skills {
		if s.IsDir() {
			read(typeOf(lesson.Skill), project.SkillsDir+"/"+s.Name()+"/SKILL.md")
		}
	}
	return out, nil
}

// gone reports whether a code reference no longer exists. A path with a
// folder must exist as written; a bare file name ("CHANGELOG.md") may live
// anywhere, so it is gone only if it is neither at the root nor the name of
// any file git tracks (and unknown, not gone, without an index).
func (u *run) gone(ref string) bool {
	there := present(u.root, ref)
	if _, seen := u.proofs[ref]; !seen {
		u.judged(ref, proof{kind: byPresent, exists: there})
	}
	if there {
		return false
	}
	if strings.Contains(ref, "/") {
		return true // a path with a folder, or a folder: it must be where it says
	}
	if u.tracked == nil {
		u.tracked = trackedNames(u.r.Proj)
	}
	return len(u.tracked) > 0 && !u.tracked[ref]
}

// staleness marks observations whose code references are gone, and clears
// the mark when they are back.
func (u *run) staleness() {
	for _, o := range u.obs {
		if o.Status != observe.Created && o.Status != observe.Ready {
			continue
		}
		var missing []string
		for _, ref := range codeRefs(o.Details, o.Evidence...) {
			if !u.sparse(ref) && u.gone(ref) {
				missing = append(missing, ref)
			}
		}
		reason := ""
		if len(missing) > 0 {
			reason = strings.Join(missing, ", ") + " no longer exists"
			if len(missing) > 1 {
				reason = strings.Join(missing, ", ") + " no longer exist"
			}
			u.res.Stale++
		}
		if reason == o.Stale {
			continue
		}
		on := reason != ""
		what := "stale"
		if !on {
			what = "fresh"
		}
		u.note(Outcome{ID: o.ID, Path: o.Artifact, Anchor: o.Anchor, What: what, Note: reason})
		flag := observe.NewEvent(observe.OpFlag, o.ID, u.r.Opts.Now, "reconcile", func(ev *observe.Event) {
			ev.Flag, ev.On, ev.Reason, ev.Seq = observe.FlagStale, &on, reason, o.NextSeq()
		})
		u.events = append(u.events, flag)
		if on {
			// The stale counter (the entries and counters rule, docs/architecture.md) counts the times an item went
			// stale; the flag says whether it is now.
			u.events = append(u.events, withEID(observe.NewEvent(observe.OpCount, o.ID, u.r.Opts.Now, "reconcile", func(ev *observe.Event) {
				ev.Counter, ev.Reason = "stale", reason
			}), "stale|"+flag.EID))
		}
	}
	slices.SortFunc(u.res.Details, func(a, b Outcome) int {
		return strings.Compare(a.What+a.Path+a.Anchor+a.ID, b.What+b.Path+b.Anchor+b.ID)
	})
}

// typeOf is the lesson type whose artifacts have shape a: an orphan file
// in the commands or skills folder is adopted as that type.
func typeOf(a lesson.Artifact) string {
	for _, t := range lesson.All() {
		if t.Artifact == a {
			return t.Name
		}
	}
	return ""
}
