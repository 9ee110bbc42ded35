package genuine

import (
	"runtime"
	"sync"

	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/devlearn/devlearn/internal/textkey"
)

// takes reports whether the run measures a project of split.
func (o Options) takes(project, split string) bool {
	return (len(o.Only) == 0 || slices.Contains(o.Only, split)) && (len(o.Projects) == 0 || slices.Contains(o.Projects, project))
}

// Options of a measurement.
type Options struct {
	// Fetched is the folder holding the pointer-only sessions, fetched
	// (<session>/<file>); "" measures the kept ones alone.
	Fetched string
	// Only, when set, limits the run to these splits.
	Only []string
	// Projects, when set, limits the run to these projects (as
	// Session.Project names them).
	Projects []string
	// Progress is told each repository as it is done.
	Progress func(done, total int, name string)
	// Whole has the closed loop learn from every session of its projects
	// and keep the repository's result (LoopResult.Learned); Learned hands
	// those to Measure, by project, which then does not learn them again.
	Whole   bool
	Learned map[string]*Repo
	// Files is the folder the sessions are written out to; "" is "files"
	// in the runner's folder. The loop and the capture pass share it when
	// one hands the other its repositories: their logs name the files.
	Files string
	// Jobs is how many repositories are worked on at once; 0 means twice
	// the processors (each run waits on fsync and on its children more
	// than it computes).
	Jobs int
}

func (o Options) files(r *Runner) string {
	if o.Files != "" {
		return o.Files
	}
	return filepath.Join(r.Work, "files")
}

// each runs f for 0..n-1, o.Jobs at a time, and returns the first error.
// Every repository is its own folder and the set is only read, so the
// runs share nothing but the progress line.
func (o Options) each(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = 2 * runtime.GOMAXPROCS(0)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i := range n {
		g.Go(func() error { return f(ctx, i) })
	}
	return g.Wait()
}

// Kept is one observation kept in a session's repository, as scored.
type Kept struct {
	Observation
	Session string
	// Lessons are the labels of the session it matches; Project those of
	// its project's other sessions.
	Lessons, Project []string
	Noise            bool
	Verdict          *Verdict
}

// Useful reports a kept observation that counts toward precision: it is a
// labelled lesson of its project, or a reader called it useful.
func (k *Kept) Useful() bool {
	return !k.Noise && (len(k.Lessons) > 0 || len(k.Project) > 0 || k.Verdict != nil && k.Verdict.Useful())
}

// Judged reports a kept observation whose worth is known.
func (k *Kept) Judged() bool {
	return k.Noise || len(k.Lessons) > 0 || len(k.Project) > 0 || k.Verdict != nil
}

// SessionResult is one session ingested alone in a fresh repository: the
// labelling protocol's unit.
type SessionResult struct {
	Session  *Session
	Read     bool // the ingest read it without an error
	Kept     []*Kept
	Caught   []string // its lessons caught
	Problems []string
}

// Pair is two sightings of one observation, from two sessions.
type Pair struct {
	ID     string
	A, B   Sighting
	Same   *bool // nil: neither the labels nor a reader can tell
	Labels [2][]string
}

// ProjectResult is a project's sessions ingested in the order they
// started, as the worker would, into one repository.
type ProjectResult struct {
	Project  string
	Split    string
	Sessions []*Session
	Repo     *Repo
	// Ready are the project's lessons taught in two sessions or more that
	// an observation at ready (or created) holds; Recurring all of them.
	Recurring, Ready []string
	Pairs            []Pair
	// Missed are recurring lessons caught in two sessions or more under
	// different observations, never one.
	Missed []string
	// Caught are the project's lessons an observation of its repository
	// holds: what the sessions learned together caught, where a request
	// repeated across them is seen.
	Caught []string
	// Across are the observations only the project's sessions together
	// gave (a request repeated, a path not found again): no session alone
	// kept them, so the sessions' precision does not count them.
	Across []*Kept
}

// Result is a whole measurement.
type Result struct {
	Version  string
	Sessions []*SessionResult
	Projects []*ProjectResult
	// Missing are pointer-only sessions that were not fetched.
	Missing []string
	// Loops are the closed loop's projects, when it ran.
	Loops []*LoopResult
	// Nudge is what the prompt hook asks the agent about, by split.
	Nudge map[string]*NudgeTally
}

// Measure runs the set through the binary.
func Measure(ctx context.Context, set *Set, r *Runner, o Options) (*Result, error) {
	if err := os.MkdirAll(r.Work, 0o755); err != nil {
		return nil, err
	}
	files := o.files(r)
	res := &Result{}
	out, _, err := r.run(ctx, r.Work, os.Environ(), "--version")
	if err != nil {
		return nil, fmt.Errorf("%s --version: %v", r.Bin, err)
	}
	res.Version = firstLine(out)
	paths := map[string]string{}
	var todo []*Session
	for _, s := range set.Sessions {
		if !o.takes(s.Project, s.Split) {
			continue
		}
		p, err := set.Materialize(s, o.Fetched, files)
		if err != nil {
			return nil, err
		}
		if p == "" {
			res.Missing = append(res.Missing, s.ID)
			continue
		}
		paths[s.ID] = p
		todo = append(todo, s)
	}
	projects := set.Projects()
	var names []string
	for name, list := range projects {
		if slices.ContainsFunc(list, func(s *Session) bool { return paths[s.ID] != "" }) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	total, done := len(todo)+len(names), 0
	var mu sync.Mutex
	progress := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		done++
		if o.Progress != nil {
			o.Progress(done, total, name)
		}
	}
	res.Nudge = Nudge(set, paths)
	res.Sessions = make([]*SessionResult, len(todo))
	err = o.each(ctx, len(todo), func(ctx context.Context, i int) error {
		s := todo[i]
		repo, err := r.Learn(ctx, "s-"+s.ID, []Ingest{{Files: []string{paths[s.ID]}}}, "")
		if err != nil {
			return err
		}
		res.Sessions[i] = scoreSession(set, s, repo, paths[s.ID])
		progress(s.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Projects = make([]*ProjectResult, len(names))
	err = o.each(ctx, len(names), func(ctx context.Context, i int) error {
		name := names[i]
		var ingests []Ingest
		var sessions []*Session
		for i, s := range projects[name] {
			if paths[s.ID] == "" {
				continue
			}
			sessions = append(sessions, s)
			ingests = append(ingests, Ingest{Files: []string{paths[s.ID]}, Now: after(projects[name], i)})
		}
		repo := o.Learned[name]
		if repo == nil {
			var err error
			if repo, err = r.Learn(ctx, "p-"+slug(name), ingests, ingests[len(ingests)-1].Now); err != nil {
				return err
			}
		}
		// Sightings name the sessions as their transcripts do: name them
		// as the set does.
		bySession := map[string]string{}
		for _, s := range sessions {
			bySession[paths[s.ID]] = s.ID
		}
		for i := range repo.Sightings {
			if id := bySession[repo.Files[repo.Sightings[i].Session]]; id != "" {
				repo.Sightings[i].Session = id
			}
		}
		res.Projects[i] = scoreProject(set, name, sessions, repo)
		progress(name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	alone := map[string]bool{}
	for _, sr := range res.Sessions {
		for _, k := range sr.Kept {
			alone[k.ID] = true
		}
	}
	for _, pr := range res.Projects {
		pr.Across = acrossKept(set, pr, alone)
	}
	return res, nil
}

// acrossKept are the observations of a project's repository that no
// session's own repository holds, judged as a session's are: by the labels
// of the project, a noise pattern, or a reader's verdict.
func acrossKept(set *Set, pr *ProjectResult, alone map[string]bool) []*Kept {
	if pr.Repo == nil {
		return nil
	}
	var lessons []*Lesson
	for _, s := range pr.Sessions {
		lessons = append(lessons, set.LessonsOf(s.ID)...)
	}
	var out []*Kept
	for _, o := range pr.Repo.Observations {
		if alone[o.ID] {
			continue
		}
		session := ""
		if i := slices.IndexFunc(pr.Repo.Sightings, func(sg Sighting) bool { return sg.ID == o.ID }); i >= 0 {
			session = pr.Repo.Sightings[i].Session
		}
		out = append(out, judge(set, o, session, nil, lessons))
	}
	return out
}

// judge is a kept observation with what is known of it: a noise pattern
// it matches, else the lessons of its session (mine) and of its project
// it matches, and a reader's verdict.
func judge(set *Set, o Observation, session string, mine, project []*Lesson) *Kept {
	k := &Kept{Observation: o, Session: session}
	text := o.Text()
	for _, n := range set.Noise {
		k.Noise = k.Noise || n.MatchString(text)
	}
	if !k.Noise {
		for _, l := range mine {
			if l.Matches(text) {
				k.Lessons = append(k.Lessons, l.ID)
			}
		}
		for _, l := range project {
			if l.Matches(text) {
				k.Project = append(k.Project, l.ID)
			}
		}
	}
	if v, ok := set.Judged[o.ID]; ok {
		k.Verdict = &v
	}
	return k
}

// after is the time a project's i-th session has ended by: when the next
// one started, or a day after the last one started.
func after(list []*Session, i int) string {
	if i+1 < len(list) && list[i+1].Started > list[i].Started {
		return rfc3339(list[i+1].Started, 0)
	}
	return rfc3339(list[i].Started, 24*time.Hour)
}

func rfc3339(ts string, plus time.Duration) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return t.Add(plus).UTC().Format(time.RFC3339)
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	sum := sha256.Sum256([]byte(s))
	return b.String() + "-" + hex.EncodeToString(sum[:3])
}

func scoreSession(set *Set, s *Session, repo *Repo, path string) *SessionResult {
	sr := &SessionResult{Session: s, Read: repo.Read[path], Problems: repo.Problems}
	mine := set.LessonsOf(s.ID)
	var project []*Lesson
	for _, l := range set.Lessons {
		if set.Session(l.Transcript).Project == s.Project && !slices.Contains(mine, l) {
			project = append(project, l)
		}
	}
	caught := map[string]bool{}
	seen := map[string]bool{}
	for _, o := range repo.Observations {
		if seen[o.ID] {
			continue
		}
		seen[o.ID] = true
		k := judge(set, o, s.ID, mine, project)
		for _, id := range k.Lessons {
			caught[id] = true
		}
		sr.Kept = append(sr.Kept, k)
	}
	for _, l := range mine {
		if caught[l.ID] {
			sr.Caught = append(sr.Caught, l.ID)
		}
	}
	return sr
}

func scoreProject(set *Set, name string, sessions []*Session, repo *Repo) *ProjectResult {
	pr := &ProjectResult{Project: name, Split: sessions[0].Split, Sessions: sessions, Repo: repo}
	in := map[string]bool{}
	for _, s := range sessions {
		in[s.ID] = true
	}
	var lessons []*Lesson
	for _, l := range set.Lessons {
		if in[l.Transcript] {
			lessons = append(lessons, l)
		}
	}
	labels := func(text string) []string {
		var out []string
		for _, l := range lessons {
			if l.Matches(text) {
				out = append(out, l.ID)
			}
		}
		return out
	}
	for _, l := range lessons {
		if slices.ContainsFunc(repo.Observations, func(o Observation) bool { return l.Matches(o.Text()) }) {
			pr.Caught = append(pr.Caught, l.ID)
		}
	}
	for _, l := range lessons {
		var sessionsIn []string
		for _, t := range l.Sessions() {
			if in[t] {
				sessionsIn = append(sessionsIn, t)
			}
		}
		if len(sessionsIn) < 2 {
			continue
		}
		pr.Recurring = append(pr.Recurring, l.ID)
		for _, o := range repo.Observations {
			if o.Ready() && l.Matches(o.Text()) {
				pr.Ready = append(pr.Ready, l.ID)
				break
			}
		}
		// Under which observations was it sighted, session by session?
		ids := map[string]map[string]bool{} // session -> ids
		for _, sg := range repo.Sightings {
			if slices.Contains(sessionsIn, sg.Session) && l.Matches(sg.Pattern+" "+sg.Details) {
				if ids[sg.Session] == nil {
					ids[sg.Session] = map[string]bool{}
				}
				ids[sg.Session][sg.ID] = true
			}
		}
		if len(ids) >= 2 {
			common := map[string]int{}
			for _, set := range ids {
				for id := range set {
					common[id]++
				}
			}
			joined := false
			for _, n := range common {
				joined = joined || n >= 2
			}
			if !joined {
				pr.Missed = append(pr.Missed, l.ID)
			}
		}
	}
	// Merged pairs: the first sighting of an observation in each session,
	// two by two.
	first := map[string][]Sighting{}
	for _, sg := range repo.Sightings {
		if !slices.ContainsFunc(first[sg.ID], func(x Sighting) bool { return x.Session == sg.Session }) {
			first[sg.ID] = append(first[sg.ID], sg)
		}
	}
	var ids []string
	for id := range first {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		list := first[id]
		for i := 0; i < len(list); i++ {
			for j := i + 1; j < len(list); j++ {
				p := Pair{ID: id, A: list[i], B: list[j]}
				p.Labels[0], p.Labels[1] = labels(list[i].Pattern+" "+list[i].Details), labels(list[j].Pattern+" "+list[j].Details)
				switch {
				case textkey.Normalize(p.A.Pattern) == textkey.Normalize(p.B.Pattern):
					same := true // the same words twice: one lesson
					p.Same = &same
				case len(p.Labels[0]) > 0 && len(p.Labels[1]) > 0:
					same := slices.ContainsFunc(p.Labels[0], func(x string) bool { return slices.Contains(p.Labels[1], x) })
					p.Same = &same
				default:
					if v, ok := set.Pairs[PairKey(p.A, p.B)]; ok {
						same := v.Same
						p.Same = &same
					}
				}
				pr.Pairs = append(pr.Pairs, p)
			}
		}
	}
	return pr
}

// PairKey names two sightings for a reader's verdict: their texts, in
// either order.
func PairKey(a, b Sighting) string {
	x, y := a.Pattern, b.Pattern
	if y < x {
		x, y = y, x
	}
	sum := sha256.Sum256([]byte(x + "\x00" + y))
	return "pair_" + hex.EncodeToString(sum[:8])
}
