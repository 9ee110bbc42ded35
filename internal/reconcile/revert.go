package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// A revert is a person undoing a change devlearn made. For the files it is
// the one writer's business (evolve.PlanRevert); for the artifacts among
// them it is a "no" like a deletion: the observations whose artifact the
// revert takes away are penalised and deprecated (Refusal), and leave the
// manifest, so the next render does not bring them back.

// Reverter reverts one entry of a project's audit log.
type Reverter struct {
	Proj   *project.Project
	Log    observe.Store
	Writer *evolve.Writer
	Opts   Options
	// Force reverts files changed since the entry, replacing those
	// changes (they are kept, so the revert can be reverted in turn).
	Force bool
	// MergeManifest is the merge git runs on the manifest
	// (gitx.MergeManifest). It is given, not imported: this package is
	// on the hook path, and the merge driver's package links go-git.
	MergeManifest func(base, ours, theirs []byte) ([]byte, error)
}

// Reverted is what a revert did, or why it did not.
type Reverted struct {
	Plan *evolve.RevertPlan `json:"plan"`
	// Refused is true when files changed since and Force was not given:
	// nothing was written (Plan.Conflicts says what changed).
	Refused bool `json:"refused"`
	// Entry is the revert's own audit entry (nil when nothing was
	// written).
	Entry *evolve.Entry `json:"entry,omitempty"`
	// Withdrawn are the artifacts the revert took away, whose
	// observations are now deprecated.
	Withdrawn []Outcome `json:"withdrawn"`
	// Restored are the artifacts the revert brought back whose
	// observations an earlier revert had deprecated: restored with them.
	Restored []Outcome `json:"restored,omitempty"`
}

// ErrRefused is a revert refused because files changed since the entry.
var ErrRefused = errors.New("files changed since")

// Run reverts the entry id (an id or the start of one).
func (r *Reverter) Run(ctx context.Context, id string) (*Reverted, error) {
	entries, _, err := evolve.ReadLog(r.Proj)
	if err != nil {
		return nil, err
	}
	e, err := evolve.Find(entries, id)
	if err != nil {
		return nil, err
	}
	plan, err := evolve.PlanRevert(r.Proj, entries, e, map[string]evolve.Merge{project.ManifestFile: r.mergeManifest})
	if err != nil {
		return nil, err
	}
	out := &Reverted{Plan: plan, Withdrawn: []Outcome{}}
	if len(plan.Conflicts) > 0 && !r.Force {
		out.Refused = true
		return out, nil
	}
	if len(plan.Changes) == 0 {
		return out, nil // every file is as it was before the entry already
	}

	log, err := r.Log.Load()
	if err != nil {
		return nil, err
	}
	extra, events, err := r.withdraw(plan, log, out)
	if err != nil {
		return nil, err
	}
	// The "no" is recorded first: a crash after it leaves an observation
	// deprecated with its artifact still there, which reconcile accepts
	// and a person can restore; the other order could leave the artifact
	// gone and the observation free to be rendered again.
	if r.Opts.DryRun {
		return out, nil
	}
	if err := r.Log.Append(ctx, events...); err != nil {
		return nil, err
	}
	unlock, err := lockLogs(ctx, r.Proj, plan.Changes)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out.Entry, err = r.Writer.Revert(ctx, plan, extra...)
	return out, err
}

// lockLogs takes the locks of the logs devlearn appends to that changes
// replace (a revert of 'learn --clear' brings the learning log back), so
// that no append lands between the writer's check of the file and its
// rename and is lost; the order is scrub's: the logs sorted, then the
// writer's own lock, which the writer takes.
func lockLogs(ctx context.Context, p *project.Project, changes []evolve.Change) (func(), error) {
	var locks []string
	for _, c := range changes {
		if l := p.AppendLock(c.Path); l != "" {
			locks = append(locks, l)
		}
	}
	slices.Sort(locks)
	var unlocks []func() error
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for _, lock := range slices.Compact(locks) {
		unlock, err := jsonl.Lock(ctx, lock)
		if err != nil {
			release()
			return nil, err
		}
		unlocks = append(unlocks, unlock)
	}
	return release, nil
}

// withdraw finds the manifest entries whose artifact the plan takes away,
// and returns the manifest without them (as an extra change of the same
// batch) and the events that refuse their observations.
func (r *Reverter) withdraw(plan *evolve.RevertPlan, log *observe.Log, out *Reverted) ([]evolve.Change, []*observe.Event, error) {
	after := map[string]*evolve.Change{}
	for i := range plan.Changes {
		after[plan.Changes[i].Path] = &plan.Changes[i]
	}
	// The manifest as the revert leaves it: restored, if the entry wrote
	// it, else as it is.
	current, _, err := manifest.LoadProject(r.Proj)
	if err != nil {
		return nil, nil, err
	}
	man := current
	manChange := after[project.ManifestFile]
	if manChange != nil {
		if manChange.Remove {
			man = &manifest.Manifest{SchemaVersion: manifest.SchemaVersion}
		} else if man, _, err = manifest.Parse(manChange.Data, r.Proj.Root); err != nil {
			return nil, nil, fmt.Errorf("%s as %s left it: %w", project.ManifestFile, plan.Entry.ID, err)
		}
	}
	// The artifacts the revert takes away are named by the manifest as the
	// revert leaves it, or as it is now: an entry that wrote the manifest
	// too (a render writes both in one batch) restores one that never
	// named them.
	candidates := slices.Clone(man.Entries)
	for _, me := range current.Entries {
		if man.Get(me.ObservationID) == nil {
			candidates = append(candidates, me)
		}
	}
	var events []*observe.Event
	changed := false
	for _, me := range candidates {
		c := after[me.Path]
		if c == nil || !gone(me, c, candidates) {
			continue
		}
		if man.Get(me.ObservationID) != nil {
			man.Remove(me.ObservationID)
			changed = true
		}
		o, known := log.Observation(me.ObservationID, r.Opts.Now, r.Opts.Config)
		if !known || o.Status == observe.Deprecated {
			continue
		}
		out.Withdrawn = append(out.Withdrawn, Outcome{ID: me.ObservationID, Path: me.Path, Anchor: me.AnchorID, What: "reverted", Note: "penalised and deprecated: a 'no' that sticks until restored"})
		events = append(events, Refusal(o, me, r.Opts.Now, "revert", "reverted")...)
	}
	// What the revert brings back whose "no" a revert recorded (the revert
	// of a revert): that "no" is undone with it, or the artifact would be
	// back and its lesson still retired, unserved, never rendered again.
	for _, me := range man.Entries {
		c := after[me.Path]
		if c == nil || c.Remove || current.Get(me.ObservationID) != nil {
			continue
		}
		o, known := log.Observation(me.ObservationID, r.Opts.Now, r.Opts.Config)
		if !known || o.Status != observe.Deprecated || o.DeprecatedReason != "reverted" {
			continue
		}
		out.Restored = append(out.Restored, Outcome{ID: me.ObservationID, Path: me.Path, Anchor: me.AnchorID, What: "restored", Note: "its artifact is back: the 'no' the earlier revert recorded is undone"})
		events = append(events, withEID(observe.NewEvent(observe.OpRestore, me.ObservationID, r.Opts.Now, "revert", func(ev *observe.Event) {
			ev.Reason, ev.Seq = "reverted back", o.NextSeq()
		}), "restore|"+me.ObservationID+"|"+me.Path+"|"+me.AnchorID+"|"+me.RenderedAt))
	}
	if !changed {
		return nil, events, nil
	}
	data := man.Bytes()
	if manChange != nil {
		manChange.Data, manChange.Remove = data, false
		return nil, events, nil
	}
	cur, exists, err := evolve.Current(r.Proj, project.ManifestFile)
	if err != nil {
		return nil, nil, err
	}
	expect := ""
	if exists {
		expect = evolve.BlobHash(cur)
	}
	return []evolve.Change{{Path: project.ManifestFile, Data: data, Guard: true, Expect: expect}}, events, nil
}

// mergeManifest takes back what a reverted entry changed in the manifest
// and keeps what devlearn recorded since: the curator's bullets, the
// hashes reconcile followed. It is the merge git runs on the manifest,
// with what the entry wrote as the base and the manifest before it as the
// other side. A manifest the entry created, left with no entry, is
// removed again.
func (r *Reverter) mergeManifest(wrote, now, before []byte) ([]byte, error) {
	if r.MergeManifest == nil {
		return nil, errors.New("reconcile: a revert needs the manifest's merge (Reverter.MergeManifest)")
	}
	out, err := r.MergeManifest(wrote, now, before)
	if err != nil || before != nil {
		return out, err
	}
	m, _, err := manifest.Parse(out, "")
	if err != nil || len(m.Entries) > 0 {
		return out, err
	}
	return nil, nil
}

// gone reports whether the artifact of manifest entry me is absent once
// change c is written; entries are the manifest's (knowfile.SectionOf).
func gone(me manifest.Entry, c *evolve.Change, entries []manifest.Entry) bool {
	if c.Remove {
		return true
	}
	if me.AnchorID == "" {
		return false // the file is still there, with the content it had before
	}
	for _, k := range knowfile.Kinds() {
		if k.Path == me.Path {
			return knowfile.SectionOf(knowfile.Parse(k, c.Data), entries, me) == nil
		}
	}
	return false
}
