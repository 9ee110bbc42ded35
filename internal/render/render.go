package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/crashpoint"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/handover"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/mdfront"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Options of a render run.
type Options struct {
	Now    time.Time
	Config *config.Config
	DryRun bool
}

// Rendered is an artifact written (or found already written) for an
// observation.
type Rendered struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Path    string `json:"path"`
	Anchor  string `json:"anchor,omitempty"`
	Adopted bool   `json:"adopted,omitempty"` // it was already on disk (a crash, or a duplicate pitfall)
	// MergedInto is the decision a near-duplicate was merged into, with
	// how alike their words are (merge.go).
	MergedInto string  `json:"merged_into,omitempty"`
	Similarity float64 `json:"similarity,omitempty"`
}

// Skipped is a ready observation that was not rendered, and why.
type Skipped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Result is what a run did (or, with DryRun, would do).
type Result struct {
	Rendered []Rendered `json:"rendered"`
	Skipped  []Skipped  `json:"skipped"`
	Files    []string   `json:"files"` // project files written, or that would be
	DryRun   bool       `json:"dry_run,omitempty"`
}

// Renderer renders a project's ready observations.
type Renderer struct {
	Proj   *project.Project
	Log    observe.Store
	Writer *evolve.Writer
	Opts   Options
}

// plan is the run being prepared: the knowledge files as they will be,
// the new artifact files, the manifest entries, and the events to record.
type plan struct {
	r          *Renderer
	man        *manifest.Manifest
	docs       map[string]*knowfile.Doc // by path
	changed    map[string]bool          // knowledge files that get a new section
	files      map[string][]byte        // new artifact files
	claimed    map[string]string        // path -> observation, within this run
	res        *Result
	entries    []manifest.Entry
	seq        map[string]int // observation -> sequence of its next decision
	softCapped []observe.Observation
	newFiles   map[string]bool // area directive files this run creates
	// active counts each knowledge file's entries in force, counted once
	// and kept up as sections are appended: counting them again for every
	// section made a bulk render quadratic in the file's entries.
	active map[string]int
	// renderedAt is the run's time as the manifest writes it, formatted
	// once for the thousand entries of a bulk render.
	renderedAt string
	// missing and present are folders found absent or there (exists).
	missing safefile.Absent
	present map[string]bool
	// near finds decisions by their words, per file (merge.go);
	// rehashed are the manifest entries of earlier lessons whose section
	// a near-duplicate was merged into.
	near     map[string]*nearDecisions
	rehashed []manifest.Entry
}

// Run renders every ready observation.
func (r *Renderer) Run(ctx context.Context) (*Result, error) {
	log, err := r.Log.Load()
	if err != nil {
		return nil, err
	}
	if err := r.checkFolders(); err != nil {
		return nil, err
	}
	man, _, err := manifest.LoadProject(r.Proj)
	if err != nil {
		return nil, err
	}
	p := &plan{
		r: r, man: man,
		changed:    map[string]bool{},
		files:      map[string][]byte{},
		claimed:    map[string]string{},
		seq:        map[string]int{},
		newFiles:   map[string]bool{},
		active:     map[string]int{},
		renderedAt: observe.FormatTime(r.Opts.Now),
		present:    map[string]bool{},
		near:       map[string]*nearDecisions{},
		res:        &Result{Rendered: []Rendered{}, Skipped: []Skipped{}, Files: []string{}, DryRun: r.Opts.DryRun},
	}
	if p.docs, err = knowfile.ReadAll(r.Proj); err != nil {
		return nil, err
	}

	ready := log.WithStatus(r.Opts.Now, r.Opts.Config, observe.Ready)
	// Oldest lesson first, so numbering follows the order lessons were
	// learned. Sorted through pointers: an observation is 320 bytes, and
	// moving a thousand of them about took a bulk render 2 ms.
	order := make([]*observe.Observation, len(ready))
	for i := range ready {
		order[i] = &ready[i]
	}
	slices.SortFunc(order, func(a, b *observe.Observation) int {
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, o := range order {
		if err := p.add(*o); err != nil {
			return nil, err
		}
	}
	changes := p.changes()
	for _, c := range changes {
		p.res.Files = append(p.res.Files, c.Path)
	}
	if len(p.entries) > 0 || len(changes) > 0 {
		p.res.Files = append(p.res.Files, project.ManifestFile)
	}
	if r.Opts.DryRun {
		return p.res, nil
	}
	return p.res, p.commit(ctx, changes)
}

// IDs are the observations rendered.
func (res *Result) IDs() []string {
	out := make([]string, len(res.Rendered))
	for i, x := range res.Rendered {
		out[i] = x.ID
	}
	return out
}

// SectionIDs are the observations rendered as knowledge sections, which
// every agent's hooks serve as themselves. A lesson rendered as a command
// or a skill reaches only the agents that load those files, so it stays
// served as a draft (observed.OnlySomeSee).
func (res *Result) SectionIDs() []string {
	var out []string
	for _, x := range res.Rendered {
		if lesson.Is(x.Type, lesson.Section) {
			out = append(out, x.ID)
		}
	}
	return out
}

// checkFolders refuses to render into a folder that is a symbolic link
// leading outside the repository.
func (r *Renderer) checkFolders() error {
	for _, dir := range []string{project.CommandsDir, project.SkillsDir, ".memory/knowledge"} {
		if err := evolve.InsideRoot(r.Proj.Root, r.Proj.Path(dir)); err != nil {
			return fmt.Errorf("refusing to render: %w", err)
		}
	}
	return nil
}

func (p *plan) add(o observe.Observation) error {
	t, ok := lesson.Get(o.Type)
	if !ok {
		p.skip(o.ID, "unknown type "+o.Type)
		return nil
	}
	switch t.Artifact {
	case lesson.Command, lesson.Skill:
		if tmpl := fileTemplates[t.Template]; tmpl != nil {
			return p.addFile(o, t.Artifact, tmpl)
		}
	case lesson.Section:
		tmpl := sectionTemplates[t.Template]
		if tmpl == nil {
			break
		}
		if t.Area {
			o = withStoredArea(o, p.r.Proj.Root)
		}
		file, err := p.target(o, t)
		if err != nil {
			return err
		}
		return p.addSection(o, t, file, tmpl)
	}
	p.skip(o.ID, "no template "+t.Template+" for type "+o.Type)
	return nil
}

// addFile plans a command or a skill. A file that already carries this
// observation's id is adopted; a file of another artifact at the slug's
// path is never overwritten: the slug gets a suffix instead.
func (p *plan) addFile(o observe.Observation, shape lesson.Artifact, tmpl fileTemplate) error {
	var candidates []string
	if o.Intent != nil {
		candidates = append(candidates, o.Intent.Path)
	}
	if e := p.man.Get(o.ID); e != nil {
		candidates = append(candidates, e.Path)
	}
	for _, c := range candidates {
		if sourceOfFile(p.r.Proj.Path(c)) == o.ID {
			return p.adopt(o, c, "")
		}
	}
	slug := slugFor(o.Pattern, o.ID)
	for n := 1; n < 1000; n++ {
		name := slug
		if n > 1 {
			name = fmt.Sprintf("%s-%d", slug, n)
		}
		path, err := p.filePath(shape, name)
		if err != nil {
			p.skip(o.ID, err.Error())
			return nil
		}
		if p.claimed[path] != "" {
			continue
		}
		// A skill's own folder may be a link leading outside the
		// repository: that one artifact is skipped, the rest rendered.
		if shape == lesson.Skill {
			if err := evolve.InsideRoot(p.r.Proj.Root, p.r.Proj.Path(strings.TrimSuffix(path, "/SKILL.md"))); err != nil {
				p.skip(o.ID, "refusing to render: "+err.Error())
				return nil
			}
		}
		// Nothing there is the common case: one lstat says so, where
		// reading the file first cost a failed open as well.
		if full := p.r.Proj.Path(path); p.exists(full) {
			if sourceOfFile(full) == o.ID {
				return p.adopt(o, path, "")
			}
			continue // another artifact, or the user's own file
		}
		data := tmpl(o, name, p.r.Opts.Now)
		p.files[path] = data
		p.claimed[path] = o.ID
		p.record(o, path, "", contenthash.Hash(data), false)
		return nil
	}
	p.skip(o.ID, "no free name for "+slug)
	return nil
}

func (p *plan) filePath(shape lesson.Artifact, name string) (string, error) {
	if shape == lesson.Command {
		return within(project.CommandsDir, name+".md")
	}
	dir, err := within(project.SkillsDir, name)
	if err != nil {
		return "", err
	}
	return dir + "/SKILL.md", nil
}

// target is the knowledge file a decision or pitfall goes to: the central
// one, or, with directives.learned set to "directives", the INVARIANTS.md or
// PITFALLS.md of the nearest .directives/ folder of its area (its details'
// "area"), when there is one. A render announced before a crash goes where
// its intent said, so the section is adopted, not written twice.
func (p *plan) target(o observe.Observation, t lesson.Type) (string, error) {
	file := t.Central.Path
	cfg := p.r.Opts.Config.Directives
	switch {
	case o.Intent != nil && o.Intent.Path != "":
		if _, ok := directives.KindOf(o.Intent.Path); ok {
			file = o.Intent.Path
		}
	case cfg.Learned == directives.LearnedDirectives:
		if t := directives.LearnedTarget(p.r.Proj.Root, detailFields(o.Details)["area"], o.Type, cfg.Ignore); t != "" {
			file = t
		}
	}
	if p.docs[file] == nil {
		doc, _, err := directives.ReadLearned(p.r.Proj, file)
		if err != nil {
			return "", err
		}
		if !p.exists(p.r.Proj.Path(file)) {
			p.newFiles[file] = true
		}
		p.docs[file] = doc
	}
	return file, nil
}

// addSection plans an ADR or PF section. A section that already carries the
// observation's id is adopted; so is, for pitfalls, an entry with the same
// area and issue (devflow's dedup). Over the soft cap, the observation is
// flagged for review instead.
func (p *plan) addSection(o observe.Observation, t lesson.Type, file string, render sectionTemplate) error {
	doc := p.docs[file]
	if s := doc.BySource(o.ID); s != nil {
		return p.adopt(o, file, s.Anchor)
	}
	if t.Area {
		if dup := samePitfall(doc, o); dup != nil {
			p.record(o, file, dup.Anchor, dup.Hash(), true)
			return nil
		}
	}
	if o.Type == observe.Decision {
		if dup, sim := p.nearDecision(file, doc, o); dup != nil {
			p.merge(o, file, dup, sim)
			return nil
		}
	}
	active, counted := p.active[file]
	if !counted {
		active = doc.ActiveCount()
	}
	if cap := p.r.Opts.Config.Knowledge.SoftCap; active >= cap {
		p.active[file] = active
		p.skip(o.ID, fmt.Sprintf("%s has %d active entries, the soft cap (knowledge.soft_cap); review it with 'devlearn learn --review'", file, active))
		if !o.SoftCap {
			p.softCapped = append(p.softCapped, o)
		}
		return nil
	}
	anchor := doc.Kind.Anchor(doc.NextNumber())
	s := doc.Append(render(o, anchor, p.r.Opts.Now))
	if s.Anchor != "" && s.Active() {
		active++
	}
	if n := p.near[file]; n != nil {
		n.add(s)
	}
	p.active[file] = active
	p.changed[file] = true
	p.record(o, file, anchor, s.Hash(), false)
	return nil
}

// samePitfall finds an entry whose normalised Area and Issue match.
func samePitfall(doc *knowfile.Doc, o observe.Observation) *knowfile.Section {
	f := detailFields(o.Details)
	area, issue := textkey.Normalize(f["area"]), textkey.Normalize(f["issue"])
	if issue == "" {
		issue = textkey.Normalize(o.Pattern)
	}
	for _, s := range doc.Sections {
		if s.Anchor != "" && textkey.Normalize(s.Field("Area")) == area && textkey.Normalize(s.Field("Issue")) == issue {
			return s
		}
	}
	return nil
}

// adopt takes an artifact already on disk for this observation.
func (p *plan) adopt(o observe.Observation, path, anchor string) error {
	hash := ""
	if anchor != "" {
		hash = p.docs[path].ByAnchor(anchor).Hash()
	} else {
		data, err := os.ReadFile(p.r.Proj.Path(path))
		if err != nil {
			return err
		}
		hash = contenthash.Hash(data)
	}
	p.claimed[path] = o.ID
	p.record(o, path, anchor, hash, true)
	return nil
}

func (p *plan) record(o observe.Observation, path, anchor, hash string, adopted bool) {
	p.seq[o.ID] = o.NextSeq()
	p.res.Rendered = append(p.res.Rendered, Rendered{ID: o.ID, Type: o.Type, Path: path, Anchor: anchor, Adopted: adopted})
	p.entries = append(p.entries, manifest.Entry{
		ObservationID: o.ID, Type: o.Type, Path: path, ContentHash: hash,
		RenderedAt: p.renderedAt, AnchorID: anchor,
	})
}

func (p *plan) skip(id, reason string) {
	p.res.Skipped = append(p.res.Skipped, Skipped{ID: id, Reason: reason})
}

// changes are the project files of the run: new artifacts, and each
// knowledge file once, whatever the number of new sections in it.
func (p *plan) changes() []evolve.Change {
	var out []evolve.Change
	paths := make([]string, 0, len(p.files))
	for path := range p.files {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		out = append(out, evolve.Change{Path: path, Data: p.files[path]})
	}
	files := []string{project.DecisionsFile, project.PitfallsFile}
	var created []string
	for _, file := range slices.Sorted(maps.Keys(p.changed)) {
		if !slices.Contains(files, file) {
			files = append(files, file)
			if p.newFiles[file] {
				created = append(created, file)
			}
		}
	}
	pending := map[string][]byte{}
	for _, file := range files {
		if p.changed[file] {
			pending[file] = p.docs[file].Bytes()
			out = append(out, evolve.Change{Path: file, Data: pending[file]})
		}
	}
	// An area's new PITFALLS.md or INVARIANTS.md is named in the nearest
	// AGENTS.md, as a new directive file of a session is.
	if ms, err := directives.Mentions(p.r.Proj.Root, created, pending); err == nil {
		for _, m := range ms {
			out = append(out, evolve.Change{Path: m.Path, Data: m.Data})
		}
	}
	return out
}

// commit writes in the render order of docs/architecture.md: intent events, artifacts,
// manifest, created events. A crash between any two steps leaves what the
// next run adopts (artifacts carry their observation id) and completes.
func (p *plan) commit(ctx context.Context, changes []evolve.Change) error {
	r := p.r
	now := r.Opts.Now
	var ids []string
	var intents, created []*observe.Event
	for _, e := range p.entries {
		ids = append(ids, e.ObservationID)
		e := e
		seq := p.seq[e.ObservationID]
		intents = append(intents, observe.NewEvent(observe.OpIntent, e.ObservationID, now, "render", func(ev *observe.Event) {
			ev.Path, ev.Anchor, ev.Seq = e.Path, e.AnchorID, seq
		}))
		created = append(created, observe.NewEvent(observe.OpCreated, e.ObservationID, now, "render", func(ev *observe.Event) {
			ev.Path, ev.Anchor, ev.Seq = e.Path, e.AnchorID, seq+1
		}))
	}
	var flags []*observe.Event
	for _, o := range p.softCapped {
		flags = append(flags, observe.NewEvent(observe.OpFlag, o.ID, now, "render", func(ev *observe.Event) {
			ev.Flag, ev.Reason, ev.Seq = observe.FlagSoftCap, "knowledge file over its soft cap", o.NextSeq()
		}))
	}
	if err := r.Log.Append(ctx, flags...); err != nil {
		return err
	}
	if len(p.entries) == 0 {
		return nil
	}
	crashpoint.Hit("render:planned")
	if err := r.Log.Append(ctx, intents...); err != nil {
		return err
	}
	crashpoint.Hit("render:intents-recorded")

	// The artifacts and the manifest are one batch, the manifest last: the
	// one writer moves a batch's files into place in its order, so the
	// artifacts are there before the manifest names them, and the audit
	// entry commits both at once. One batch is one sync before its commit
	// point and one after, where two batches paid four; a revert of it
	// takes the manifest back with the artifacts (Reverter.withdraw).
	for _, e := range p.entries {
		p.man.Put(e)
	}
	for _, e := range p.rehashed {
		p.man.Put(e)
	}
	batch := append(changes, evolve.Change{Path: project.ManifestFile, Data: p.man.Bytes()})
	reason := evolve.Reason{Text: fmt.Sprintf("render-ready: %d ready observations became artifacts", len(ids)), Observations: ids}
	if _, err := r.Writer.Apply(ctx, reason, batch...); err != nil {
		return err
	}
	crashpoint.Hit("render:artifacts-written")
	if err := r.Log.Append(ctx, created...); err != nil {
		return err
	}
	// What was written, for the reconcile that follows: it reads back only
	// the files changed since (internal/handover).
	written := map[string]handover.Written{}
	for _, e := range p.entries {
		if s, ok := r.Writer.Written(e.Path); ok && e.AnchorID == "" && p.files[e.Path] != nil {
			written[e.Path] = handover.Written{Hash: e.ContentHash, Stamp: s}
		}
	}
	handover.Write(r.Proj, written)
	return nil
}

// sourceOfFile reads the observation id of the artifact at path.
func sourceOfFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return SourceOf(data)
}

// SourceOf reads the observation id from an artifact's front matter
// ("source: self-learning:obs_…"), or "" for a file that has none: the
// user's own, or not an artifact at all.
func SourceOf(data []byte) string {
	front, _, _, ok := mdfront.Split(data)
	var fm struct {
		Source string `yaml:"source"`
	}
	if !ok || yaml.Unmarshal(front, &fm) != nil {
		return ""
	}
	id, _ := strings.CutPrefix(fm.Source, knowfile.SourcePrefix)
	return id
}

// exists is whether anything is at path (a link too). A first render
// writes hundreds of artifacts into folders that do not exist yet: the
// first look below a missing folder finds the highest one missing, and
// nothing below it is looked for again in the run (the plan creates no
// folder; the writer does, after it).
func (p *plan) exists(path string) bool {
	if p.missing.Below(path) {
		return false
	}
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		p.noteMissing(filepath.Dir(path))
	}
	return err == nil
}

// noteMissing records the highest folder from dir up that is missing,
// below the project's root; folders found there are remembered too, so
// that a miss in a folder that exists looks at it once in the run.
func (p *plan) noteMissing(dir string) {
	root, top := p.r.Proj.Root, ""
	for d := dir; len(d) > len(root) && strings.HasPrefix(d, root) && !p.present[d]; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			p.present[d] = true
			break
		}
		top = d
	}
	if top != "" {
		p.missing = append(p.missing, top)
	}
}
