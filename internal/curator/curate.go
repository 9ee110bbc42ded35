// Package curator keeps one marked section of lessons in each instruction
// file listed in curator.files (AGENTS.md, CLAUDE.md, a skill's core):
// Cloche's prompt curator (docs/evolution.md). The section is an ACE-style
// knowledge base, itemized bullets with counters grouped as prompt
// insights (decisions), workflow insights (commands and skills) and
// failure patterns (pitfalls), built from the lessons devlearn promoted.
//
// A lesson that refines an existing bullet (normalised word similarity at
// or above curator.similarity, internal/textsim) updates that bullet in
// place instead of adding one, and the decision is recorded with both
// texts. Bullets are artifacts like any other: each is in the manifest
// with the hash of what devlearn wrote, so a bullet a person edited is
// theirs from then on, and one a person deleted is a "no" to its lessons
// (penalised and deprecated, reconcile.Refusal). Nothing outside the
// markers is ever touched, and every write goes through the one writer.
package curator

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/inject"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/reconcile"
	"github.com/devlearn/devlearn/internal/textsim"
)

// Curator curates one project's instruction files.
type Curator struct {
	Proj   *project.Project
	Log    observe.Store
	Writer *evolve.Writer
	Now    time.Time
	Config *config.Config
	DryRun bool
}

// Decision is one thing the curator decided, as the audit log and
// `devlearn curate` report it.
type Decision struct {
	File   string `json:"file"`
	Bullet string `json:"bullet,omitempty"`
	What   string `json:"what"` // added, refined, updated, covered, dropped, edited, deleted
	Source string `json:"source,omitempty"`
	Old    string `json:"old,omitempty"` // the bullet's text before
	New    string `json:"new,omitempty"` // the lesson's text
	Note   string `json:"note,omitempty"`
}

func (d Decision) String() string {
	s := d.File + " " + d.Bullet + " " + d.What
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	switch {
	case d.Old != "" && d.New != "" && d.Old != d.New:
		s += fmt.Sprintf(": %q → %q", d.Old, d.New)
	case d.New != "":
		s += fmt.Sprintf(": %q", d.New)
	case d.Old != "":
		s += fmt.Sprintf(": %q", d.Old)
	}
	if d.Note != "" {
		s += " — " + d.Note
	}
	return s
}

// Result is what a run did (or, in a dry run, would do).
type Result struct {
	DryRun    bool       `json:"dry_run,omitempty"`
	Files     []string   `json:"files"` // instruction files written (or that would be)
	Decisions []Decision `json:"decisions"`
	Problems  []string   `json:"problems"`
	Audit     string     `json:"audit,omitempty"`
}

// Lesson is what a bullet is made of: a promoted observation.
type Lesson struct {
	Source    string
	Group     int
	Text      string
	Sessions  int
	FirstSeen time.Time
	Artifact  string // path of its artifact
	Anchor    string // ADR-003, PF-001
	Counters  map[string]int
}

// lessons are the observations in force (created) as bullets would carry
// them, oldest first so numbering follows the order they were learned.
func lessons(log *observe.Log, now time.Time, cfg *config.Config) []Lesson {
	var out []Lesson
	for _, o := range log.Observations(now, cfg) {
		if o.Status != observe.Created {
			continue
		}
		g := -1
		if t, ok := lesson.Get(o.Type); ok {
			g = groupOf(t.Group)
		}
		if g < 0 || Held(log, &o) != "" {
			continue
		}
		// Markup that imitates the harness is plain text in a bullet: the
		// file is read by every agent as it stands.
		out = append(out, Lesson{Source: o.ID, Group: g, Text: sentence(inject.Neutralise(o.Pattern)), Sessions: o.Count, FirstSeen: o.FirstSeen,
			Artifact: o.Artifact, Anchor: o.Anchor, Counters: o.Counters})
	}
	slices.SortFunc(out, func(a, b Lesson) int {
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	})
	return out
}

// Held is why an observation's lesson is held for a person's review and
// kept out of the curated section, which every agent reads as the
// project's own instructions: its text reads as an order to fetch and run
// code or to ignore other instructions, and no person accepted it
// ('learn --review --keep'). "" when it may be curated.
func Held(log *observe.Log, o *observe.Observation) string {
	why := inject.Held(o.Pattern)
	if why == "" || log.Accepted(o.ID, inject.Hash(o.Pattern)) {
		return ""
	}
	return why
}

func sentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s != "" && !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

// bullet is a bullet of a section as the curator works on it.
type bullet struct {
	*block
	devlearn bool     // devlearn's: rewritten each run; else a person's
	sources  []string // lessons it carries, the last one's text is its text
	entry    *manifest.Entry
	fresh    bool // made in this run
	text     string
}

// Run curates every file of curator.files.
func (c *Curator) Run(ctx context.Context) (*Result, error) {
	res := &Result{DryRun: c.DryRun, Files: []string{}, Decisions: []Decision{}, Problems: []string{}}
	if len(c.Config.Curator.Files) == 0 {
		return res, nil
	}
	log, err := c.Log.Load()
	if err != nil {
		return nil, err
	}
	man, _, err := manifest.LoadProject(c.Proj)
	if err != nil {
		return nil, err
	}
	ls := lessons(log, c.Now, c.Config)
	byID := map[string]Lesson{}
	for _, l := range ls {
		byID[l.Source] = l
	}
	var changes []evolve.Change
	var events []*observe.Event
	manChanged := false
	// Every file's deletions first: a lesson deleted from one file leaves
	// them all in this run.
	refused := map[string]bool{}
	var runs []*fileRun
	for _, name := range c.Config.Curator.Files {
		rel, err := c.relPath(name)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		fc := &fileRun{c: c, rel: rel, man: man, lessons: ls, byID: byID, log: log}
		if err := fc.prepare(refused); err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		runs = append(runs, fc)
	}
	for _, fc := range runs {
		data, err := fc.curate(refused)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		rel := fc.rel
		res.Decisions = append(res.Decisions, fc.decisions...)
		events = append(events, fc.events...)
		manChanged = manChanged || fc.manChanged
		if data != nil {
			changes = append(changes, evolve.Change{Path: rel, Data: data})
			res.Files = append(res.Files, rel)
		}
	}
	if manChanged {
		changes = append(changes, evolve.Change{Path: project.ManifestFile, Data: man.Bytes()})
	}
	if c.DryRun || len(changes) == 0 && len(events) == 0 {
		return res, nil
	}
	// A person's "no" first, as reconcile records it: a crash after it
	// leaves the lesson deprecated and its bullet still in the file, which
	// the next run takes out.
	if err := c.Log.Append(ctx, events...); err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return res, nil
	}
	var why []string
	var obs []string
	for _, d := range res.Decisions {
		why = append(why, d.String())
		if d.Source != "" && !slices.Contains(obs, d.Source) {
			obs = append(obs, d.Source)
		}
	}
	text := "curate: the curated sections follow the lessons"
	if len(why) > 0 {
		text = "curate: " + strings.Join(why, "; ")
	}
	e, err := c.Writer.Apply(ctx, evolve.Reason{Text: text, Observations: obs}, changes...)
	if err != nil {
		return nil, err
	}
	if e != nil {
		res.Audit = e.ID
	}
	return res, nil
}

// relPath checks a curator.files name: a file inside the project.
func (c *Curator) relPath(name string) (string, error) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(name)))
	if name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "/") || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("curator.files: %q is not a path inside the project: name files relative to its root, like AGENTS.md", name)
	}
	if err := evolve.InsideRoot(c.Proj.Root, filepath.Dir(c.Proj.Path(clean))); err != nil {
		return "", fmt.Errorf("curator.files: %s: %w", clean, err)
	}
	return clean, nil
}

// fileRun curates one file.
type fileRun struct {
	c          *Curator
	data       []byte
	doc        *file
	entries    map[string]*manifest.Entry // by bullet id
	bullets    []*bullet
	rel        string
	man        *manifest.Manifest
	lessons    []Lesson
	byID       map[string]Lesson
	log        *observe.Log
	decisions  []Decision
	events     []*observe.Event
	manChanged bool
}

func (f *fileRun) decide(d Decision) {
	d.File = f.rel
	f.decisions = append(f.decisions, d)
}

// key is the manifest key of a bullet of this file.
func (f *fileRun) key(id string) string { return "curated:" + f.rel + "#" + id }

// prepare reads the file and squares it with the manifest: what people
// edited is theirs, what they deleted is a "no" to its lessons.
func (f *fileRun) prepare(refused map[string]bool) error {
	data, _, err := evolve.Current(f.c.Proj, f.rel)
	if err != nil {
		return err
	}
	doc, err := parse(f.rel, data)
	if err != nil {
		return err
	}
	f.data, f.doc = data, doc
	// Copies, not pointers into the manifest: every file's run prepares
	// before any curates, and a Remove or Put by one shifts or moves the
	// manifest's entries under the others. A changed copy is put back.
	entries := map[string]*manifest.Entry{}
	for _, e := range f.man.Entries {
		if e.IsCurated() && e.Path == f.rel {
			entries[e.AnchorID] = &e
		}
	}
	f.entries = entries
	if !doc.found && len(entries) > 0 {
		return fmt.Errorf("%s: the curated section is gone (its markers were removed), so devlearn leaves the file alone: take %s out of curator.files, or put the two marker lines back to have it curated again", f.rel, f.rel)
	}

	// What people did since the last run.
	var bullets []*bullet
	inFile := map[string]bool{}
	for _, bl := range doc.blocks {
		if bl.id == "" {
			continue
		}
		inFile[bl.id] = true
		b := &bullet{block: bl, entry: entries[bl.id]}
		switch e := b.entry; {
		case e == nil:
			// A person's own bullet.
		case e.Type == manifest.TypeCurated && e.ContentHash == contenthash.Hash([]byte(bl.text())):
			b.devlearn = true
			b.sources = strings.Fields(e.Sources)
		default:
			b.sources = strings.Fields(e.Sources)
			if e.Type == manifest.TypeCurated {
				f.decide(Decision{Bullet: bl.id, What: "edited", New: bl.rule(), Note: "a person's edit: kept as theirs"})
			}
			if e.Type != manifest.TypeCuratedEdited || e.ContentHash != contenthash.Hash([]byte(bl.text())) {
				e.Type, e.ContentHash = manifest.TypeCuratedEdited, contenthash.Hash([]byte(bl.text()))
				f.man.Put(*e)
				f.manChanged = true
			}
		}
		b.text = bl.rule()
		bullets = append(bullets, b)
	}
	for id, e := range entries {
		if inFile[id] {
			continue
		}
		f.decide(Decision{Bullet: id, What: "deleted", Source: e.Sources, Note: "a person deleted it: a 'no' to its lessons, which are deprecated"})
		for _, src := range strings.Fields(e.Sources) {
			o, ok := f.log.Observation(src, f.c.Now, f.c.Config)
			if !ok || o.Status == observe.Deprecated {
				continue
			}
			if refused[src] {
				continue
			}
			refused[src] = true
			at := manifest.Entry{ObservationID: src, Path: f.rel, AnchorID: id, RenderedAt: e.RenderedAt}
			f.events = append(f.events, reconcile.Refusal(o, at, f.c.Now, "curate", "deleted from "+f.rel)...)
		}
		f.man.Remove(e.ObservationID)
		f.manChanged = true
	}
	f.bullets = bullets
	return nil
}

// curate merges the lessons into the bullets and returns the file's new
// content, or nil when it does not change.
func (f *fileRun) curate(refused map[string]bool) ([]byte, error) {
	doc, data, entries, bullets := f.doc, f.data, f.entries, f.bullets
	hadBlocks := len(doc.blocks) > 0

	// devlearn's bullets keep only lessons still in force; one left with
	// none is retired.
	bullets = slices.DeleteFunc(bullets, func(b *bullet) bool {
		if !b.devlearn {
			return false
		}
		b.sources = slices.DeleteFunc(b.sources, func(s string) bool {
			_, ok := f.byID[s]
			return !ok || refused[s]
		})
		if len(b.sources) == 0 {
			f.decide(Decision{Bullet: b.id, What: "retired", Old: b.text, Note: "its lessons are no longer in force (deprecated, reverted or forgotten)"})
			return true
		}
		return false
	})

	// The lessons.
	covered := map[string]*bullet{}
	for _, b := range bullets {
		for _, s := range b.sources {
			covered[s] = b
		}
	}
	threshold := f.c.Config.Curator.Similarity
	for _, l := range f.lessons {
		if refused[l.Source] {
			continue
		}
		if b := covered[l.Source]; b != nil {
			if b.devlearn && b.sources[len(b.sources)-1] == l.Source && b.text != l.Text {
				f.decide(Decision{Bullet: b.id, What: "updated", Source: l.Source, Old: b.text, New: l.Text})
				b.text = l.Text
			}
			continue
		}
		var best *bullet
		bestSim := 0.0
		words := textsim.Words(l.Text)
		for _, b := range bullets {
			if b.group != l.Group {
				continue
			}
			if s := textsim.Of(words, textsim.Words(b.text)); s >= threshold && s > bestSim {
				best, bestSim = b, s
			}
		}
		switch {
		case best == nil:
			b := &bullet{block: &block{group: l.Group}, devlearn: true, fresh: true, sources: []string{l.Source}, text: l.Text}
			bullets = append(bullets, b)
			covered[l.Source] = b
		case best.devlearn:
			f.decide(Decision{Bullet: best.id, What: "refined", Source: l.Source, Old: best.text, New: l.Text,
				Note: fmt.Sprintf("similarity %.2f: the bullet takes the newer lesson's text and both lessons' evidence and counts", bestSim)})
			best.text = l.Text
			best.sources = append(best.sources, l.Source)
			covered[l.Source] = best
		default:
			f.decide(Decision{Bullet: best.id, What: "covered", Source: l.Source, Old: best.text, New: l.Text,
				Note: fmt.Sprintf("similarity %.2f with a person's bullet: left as they wrote it", bestSim)})
			covered[l.Source] = best
			if best.entry != nil && !slices.Contains(best.sources, l.Source) {
				best.sources = append(best.sources, l.Source)
				best.entry.Sources = strings.Join(best.sources, " ")
				f.man.Put(*best.entry)
				f.manChanged = true
			}
		}
	}

	// The cap: the least useful of devlearn's bullets give way.
	limit := f.c.Config.Curator.MaxPromptBullets
	if len(bullets) > limit {
		var mine []*bullet
		for _, b := range bullets {
			if b.devlearn {
				mine = append(mine, b)
			}
		}
		slices.SortStableFunc(mine, func(a, b *bullet) int { return f.rank(a, b) })
		drop := map[*bullet]bool{}
		for i := len(mine) - 1; i >= 0 && len(bullets)-len(drop) > limit; i-- {
			drop[mine[i]] = true
		}
		bullets = slices.DeleteFunc(bullets, func(b *bullet) bool {
			if !drop[b] {
				return false
			}
			if !b.fresh {
				f.decide(Decision{Bullet: b.id, What: "dropped", Source: strings.Join(b.sources, " "), Old: b.text, Note: fmt.Sprintf("over curator.max_prompt_bullets (%d): the least useful give way", limit)})
			}
			return true
		})
	}

	// New ids, after the highest one this file has used.
	next := map[string]int{}
	see := func(id string) {
		if m := bulletStart.FindStringSubmatch("- **[" + id + "]**"); m != nil {
			n, _ := strconv.Atoi(m[2])
			next[m[1]] = max(next[m[1]], n)
		}
	}
	for _, bl := range doc.blocks {
		see(bl.id)
	}
	for id := range entries {
		see(id)
	}
	for _, b := range bullets {
		if b.fresh {
			p := Groups[b.group].Prefix
			next[p]++
			b.id = fmt.Sprintf("%s%03d", p, next[p])
			doc.blocks = append(doc.blocks, b.block)
			f.decide(Decision{Bullet: b.id, What: "added", Source: b.sources[0], New: b.text})
		}
	}

	// devlearn's bullets as they read now, and their manifest entries.
	keep := map[*block]bool{}
	for _, b := range bullets {
		keep[b.block] = true
		if !b.devlearn {
			continue
		}
		b.lines = f.lines(b)
		e := manifest.Entry{ObservationID: f.key(b.id), Type: manifest.TypeCurated, Path: f.rel, AnchorID: b.id,
			ContentHash: contenthash.Hash([]byte(b.block.text())), RenderedAt: observe.FormatTime(f.c.Now), Sources: strings.Join(b.sources, " ")}
		if cur := f.man.Get(e.ObservationID); cur == nil || cur.ContentHash != e.ContentHash || cur.Sources != e.Sources || cur.Type != e.Type {
			f.man.Put(e)
			f.manChanged = true
		}
	}
	for _, bl := range doc.blocks {
		if bl.id != "" && !keep[bl] {
			if e := entries[bl.id]; e != nil {
				f.man.Remove(e.ObservationID)
				f.manChanged = true
			}
		}
	}
	doc.blocks = slices.DeleteFunc(doc.blocks, func(bl *block) bool { return bl.id != "" && !keep[bl] })
	if len(doc.blocks) == 0 && !hadBlocks {
		return nil, nil // nothing to curate yet: no empty section in someone's file
	}
	out := doc.render()
	if string(out) == string(data) {
		return nil, nil
	}
	return out, nil
}

// counts adds up the counters of a bullet's lessons.
func (f *fileRun) counts(b *bullet) (c map[string]int, sessions int) {
	c = map[string]int{}
	for _, s := range b.sources {
		l, ok := f.byID[s]
		if !ok {
			continue
		}
		sessions += l.Sessions
		for k, v := range l.Counters {
			c[k] += v
		}
	}
	return c, sessions
}

// rank orders bullets most useful first: helpful minus harmful, then
// applied, then sessions seen, then oldest.
func (f *fileRun) rank(a, b *bullet) int {
	ca, sa := f.counts(a)
	cb, sb := f.counts(b)
	if c := cmp.Compare(cb["helpful"]-cb["harmful"], ca["helpful"]-ca["harmful"]); c != 0 {
		return c
	}
	if c := cmp.Compare(cb["applied"], ca["applied"]); c != 0 {
		return c
	}
	if c := cmp.Compare(sb, sa); c != 0 {
		return c
	}
	return cmp.Compare(f.first(a), f.first(b))
}

func (f *fileRun) first(b *bullet) int64 {
	t := int64(0)
	for _, s := range b.sources {
		if l, ok := f.byID[s]; ok && (t == 0 || l.FirstSeen.Unix() < t) {
			t = l.FirstSeen.Unix()
		}
	}
	return t
}

// lines writes a devlearn bullet in Cloche's format.
func (f *fileRun) lines(b *bullet) []string {
	c, sessions := f.counts(b)
	head := fmt.Sprintf("- **[%s]** (applied: %d, helpful: %d, stale: %d) %s", b.id, c["applied"], c["helpful"], c["stale"], b.text)
	if Groups[b.group].Prefix == "F" {
		head = fmt.Sprintf("- **[%s]** (occurrences: %d) %s", b.id, sessions, b.text)
	}
	var ev, actions []string
	for _, s := range b.sources {
		l, ok := f.byID[s]
		if !ok {
			ev = append(ev, s)
			continue
		}
		ev = append(ev, fmt.Sprintf("%s (%s)", s, plural(l.Sessions, "session", "sessions")))
		switch {
		case l.Anchor != "":
			actions = append(actions, l.Anchor+" in "+l.Artifact)
		case l.Artifact != "":
			actions = append(actions, l.Artifact)
		}
	}
	out := []string{head, "  _Evidence: " + strings.Join(ev, ", ") + "_"}
	if len(actions) > 0 {
		out = append(out, "  _Action: see "+strings.Join(actions, ", ")+"_")
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
