// Package migrate runs devlearn's versioned migrations: small, ordered,
// idempotent steps that bring a project (or this machine) from an older
// layout to the current one. Project migrations are recorded in
// .memory/migrations.json, which is committed, so a migration runs once per
// project, not once per clone; machine migrations are recorded in
// $DEVLEARN_HOME/migrations.json.
//
// A migration is marked applied only when it succeeded, and a project
// migration's changes and its mark are written in one batch of the one
// writer: a crash leaves both or neither. A failure is reported and the
// migration is tried again on the next run; the ones after it wait, since
// they may build on it.
package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Scope says where a migration works and is recorded.
type Scope string

const (
	ProjectScope Scope = "project" // the repository; recorded in .memory/migrations.json
	MachineScope Scope = "machine" // $DEVLEARN_HOME; recorded there
)

// Migration is one step. Plan must be idempotent: planned again on its own
// result, it changes nothing.
type Migration struct {
	ID          string
	Scope       Scope
	Description string
	// Plan works out what the migration does. Project migrations return
	// the files to write; machine migrations change $DEVLEARN_HOME
	// themselves in Apply.
	Plan func(c *Context) (*Outcome, error)
}

// Context is what a migration works on.
type Context struct {
	Proj *project.Project // nil for machine migrations run outside a project
	Home string
	Now  time.Time

	// planned holds the changes of the migrations before this one in a
	// dry run, so that each is planned on what the ones before it would
	// leave, as in a real run.
	planned map[string]evolve.Change
}

// ReadFile reads a project file as the migrations before this one left it.
func (c *Context) ReadFile(rel string) ([]byte, error) {
	if ch, ok := c.planned[rel]; ok {
		if ch.Remove {
			return nil, &fs.PathError{Op: "open", Path: c.Proj.Path(rel), Err: fs.ErrNotExist}
		}
		return ch.Data, nil
	}
	return os.ReadFile(c.Proj.Path(rel))
}

// Outcome is what a migration does (or would do, in a dry run).
type Outcome struct {
	Changes []evolve.Change // project files, written through the one writer
	Apply   func() error    // machine changes, run only when not a dry run
	Did     []string        // one line per thing done, for the person
	Kept    []string        // one line per thing deliberately left alone
}

// State is a migrations file.
type State struct {
	Applied []string `json:"applied"`
}

// Status of a migration in a run.
const (
	Applied = "applied" // done by this run
	Already = "already" // done before
	Pending = "pending" // not done (dry run, or waiting behind a failure)
	Failed  = "failed"
)

// Result is one migration in a run or a listing.
type Result struct {
	ID          string   `json:"id"`
	Scope       Scope    `json:"scope"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Did         []string `json:"did,omitempty"`
	Kept        []string `json:"kept,omitempty"`
	Error       string   `json:"error,omitempty"`
	// Audit is the audit log entry of a project migration's changes,
	// which keeps a copy of everything it replaced or removed.
	Audit string `json:"audit,omitempty"`
}

// Runner runs migrations.
type Runner struct {
	Ctx        Context
	Migrations []Migration
	Writer     *evolve.Writer // for project migrations
	DryRun     bool

	quiet []string // applied project migrations not yet recorded
}

// MachineStateFile is the machine migrations file inside $DEVLEARN_HOME.
const MachineStateFile = "migrations.json"

func (r *Runner) statePath(s Scope) string {
	if s == ProjectScope {
		return r.Ctx.Proj.Path(project.MigrationsFile)
	}
	return filepath.Join(r.Ctx.Home, MachineStateFile)
}

// LoadState reads a migrations file; a missing one has nothing applied.
func LoadState(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{}, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: not a migrations file (%v); fix it or remove it to run every migration again (each is safe to repeat)", path, err)
	}
	return &s, nil
}

// Bytes writes a state with its ids in a stable order, so that two
// branches that applied the same migrations write the same file.
func (s *State) Bytes() []byte {
	ids := slices.Clone(s.Applied)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.MarshalIndent(State{Applied: ids}, "", "  ")
	return append(b, '\n')
}

func (r *Runner) applicable() []Migration {
	var out []Migration
	for _, m := range r.Migrations {
		if m.Scope == ProjectScope && r.Ctx.Proj == nil {
			continue
		}
		if m.Scope == MachineScope && r.Ctx.Home == "" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// List reports every migration as applied ("already") or pending.
func (r *Runner) List() ([]Result, error) {
	states := map[Scope]*State{}
	var out []Result
	for _, m := range r.applicable() {
		st, err := r.state(states, m.Scope)
		if err != nil {
			return nil, err
		}
		res := Result{ID: m.ID, Scope: m.Scope, Description: m.Description, Status: Pending}
		if slices.Contains(st.Applied, m.ID) {
			res.Status = Already
		}
		out = append(out, res)
	}
	return out, nil
}

func (r *Runner) state(cache map[Scope]*State, s Scope) (*State, error) {
	if st, ok := cache[s]; ok {
		return st, nil
	}
	st, err := LoadState(r.statePath(s))
	if err != nil {
		return nil, err
	}
	cache[s] = st
	return st, nil
}

// Run plans and applies every pending migration in order. A failed one
// stops the migrations of its scope after it; the others still run. The
// error is nil when the failures are all in the results.
func (r *Runner) Run(ctx context.Context) ([]Result, error) {
	states := map[Scope]*State{}
	blocked := map[Scope]string{}
	var out []Result
	r.quiet = nil
	for _, m := range r.applicable() {
		st, err := r.state(states, m.Scope)
		if err != nil {
			return nil, err
		}
		res := Result{ID: m.ID, Scope: m.Scope, Description: m.Description}
		switch {
		case slices.Contains(st.Applied, m.ID):
			res.Status = Already
		case blocked[m.Scope] != "":
			res.Status = Pending
			res.Error = "waits for " + blocked[m.Scope]
		default:
			if err := r.one(ctx, m, st, &res); err != nil {
				res.Status, res.Error = Failed, err.Error()
				blocked[m.Scope] = m.ID
			}
		}
		out = append(out, res)
	}
	if err := r.flushQuiet(ctx, states[ProjectScope]); err != nil {
		return nil, err
	}
	return out, nil
}

// flushQuiet records the project migrations that had nothing to change in
// one batch, instead of one audit entry each.
func (r *Runner) flushQuiet(ctx context.Context, st *State) error {
	if len(r.quiet) == 0 || st == nil {
		return nil
	}
	ids := r.quiet
	r.quiet = nil
	_, err := r.Writer.Apply(ctx, evolve.Reason{Text: "migrations with nothing to change: " + strings.Join(ids, ", ")},
		evolve.Change{Path: project.MigrationsFile, Data: st.Bytes()})
	return err
}

func (r *Runner) one(ctx context.Context, m Migration, st *State, res *Result) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("migration %s panicked: %v", m.ID, p)
		}
	}()
	o, err := m.Plan(&r.Ctx)
	if err != nil {
		return err
	}
	res.Did, res.Kept = o.Did, o.Kept
	if r.DryRun {
		if r.Ctx.planned == nil {
			r.Ctx.planned = map[string]evolve.Change{}
		}
		for _, ch := range o.Changes {
			r.Ctx.planned[ch.Path] = ch
		}
		res.Status = Pending
		return nil
	}
	next := &State{Applied: append(slices.Clone(st.Applied), m.ID)}
	switch {
	case m.Scope == ProjectScope && len(o.Changes) == 0:
		r.quiet = append(r.quiet, m.ID)
	case m.Scope == ProjectScope:
		if err := r.flushQuiet(ctx, st); err != nil {
			return err
		}
		changes := append(slices.Clone(o.Changes), evolve.Change{Path: project.MigrationsFile, Data: next.Bytes()})
		e, err := r.Writer.Apply(ctx, evolve.Reason{Text: fmt.Sprintf("migration %s: %s", m.ID, m.Description)}, changes...)
		if err != nil {
			return err
		}
		if e != nil && len(o.Changes) > 0 {
			res.Audit = e.ID
		}
	default:
		if o.Apply != nil {
			if err := o.Apply(); err != nil {
				return err
			}
		}
		if err := safefile.MkdirRoot(r.Ctx.Home, 0o700); err != nil {
			return err
		}
		if err := jsonl.WriteFileAtomic(r.Ctx.Home, r.statePath(MachineScope), next.Bytes(), 0o600); err != nil {
			return err
		}
	}
	st.Applied = next.Applied
	res.Status = Applied
	return nil
}
