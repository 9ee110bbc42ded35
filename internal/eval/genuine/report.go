package genuine

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Tally is found over labelled.
type Tally struct {
	Lessons int `json:"lessons"`
	Found   int `json:"found"`
}

func (t *Tally) add(found bool) {
	t.Lessons++
	if found {
		t.Found++
	}
}

// Rate is Found / Lessons (0 without lessons).
func (t Tally) Rate() float64 {
	if t.Lessons == 0 {
		return 0
	}
	return float64(t.Found) / float64(t.Lessons)
}

// Breakdown is one split's figures.
type Breakdown struct {
	Sessions int               `json:"sessions"`
	Read     int               `json:"read"`   // sessions the binary read without an error
	Silent   int               `json:"silent"` // sessions read that gave no observation
	Recall   Tally             `json:"recall"`
	ByKind   map[string]*Tally `json:"by_kind"`
	ByLang   map[string]*Tally `json:"by_lang"`
	// Together is recall with each project's sessions learned together,
	// in the order they happened, as the worker learns them: a lesson is
	// found when its session alone or its project's repository holds it.
	// A repeated request can only be found so.
	Together       Tally             `json:"recall_together,omitzero"`
	TogetherByKind map[string]*Tally `json:"by_kind_together,omitempty"`
	// Kept observations (one per id and session), those matching a
	// noise pattern, and those a label or a reader calls useful, over
	// those judged at all.
	Kept     int `json:"kept"`
	Noise    int `json:"noise"`
	Useful   int `json:"useful"`
	Judged   int `json:"judged"`
	Unjudged int `json:"unjudged"`
	// Lessons taught in two sessions or more, and those that reached
	// ready in their project's repository.
	Recurring Tally `json:"recurring_ready"`
	// Pairs of sightings joined into one observation: all, the false
	// ones (two lessons), those nobody could tell; recurring lessons
	// caught in two sessions under different observations only.
	Pairs        int `json:"pairs"`
	FalsePairs   int `json:"false_pairs"`
	UnknownPairs int `json:"unknown_pairs"`
	Missed       int `json:"missed_merges"`
	CaughtTwice  int `json:"caught_twice"`
	// Across: the observations only the project's sessions together gave
	// (ProjectResult.Across), useful over judged.
	Across Precision `json:"across,omitzero"`
}

// Precision counts kept observations: all, those a label or a reader
// calls useful, those judged at all.
type Precision struct {
	Kept   int `json:"kept"`
	Useful int `json:"useful"`
	Judged int `json:"judged"`
}

func (p *Precision) add(k *Kept) {
	p.Kept++
	if k.Judged() {
		p.Judged++
		if k.Useful() {
			p.Useful++
		}
	}
}

func (p Precision) String() string {
	switch {
	case p.Kept == 0:
		return "none"
	case p.Judged == 0:
		return fmt.Sprintf("n/a (%d not judged)", p.Kept)
	}
	return fmt.Sprintf("%.2f (%d/%d, %d not judged)", float64(p.Useful)/float64(p.Judged), p.Useful, p.Judged, p.Kept-p.Judged)
}

// Precision is useful over judged.
func (b *Breakdown) Precision() float64 {
	if b.Judged == 0 {
		return 0
	}
	return float64(b.Useful) / float64(b.Judged)
}

// NoiseRate is noise over kept.
func (b *Breakdown) NoiseRate() float64 {
	if b.Kept == 0 {
		return 0
	}
	return float64(b.Noise) / float64(b.Kept)
}

// FalseMergeRate is false pairs over pairs told apart.
func (b *Breakdown) FalseMergeRate() float64 {
	if n := b.Pairs - b.UnknownPairs; n > 0 {
		return float64(b.FalsePairs) / float64(n)
	}
	return 0
}

// Report is the figures of a measurement, as saved for the next one to
// print beside its own.
type Report struct {
	Version   string                `json:"version"`
	Sessions  int                   `json:"sessions"`
	Kept      int                   `json:"kept_sessions"` // committed in the repository
	Missing   int                   `json:"missing"`       // pointer-only, not fetched
	Projects  int                   `json:"projects"`
	Languages []string              `json:"languages"`
	Lessons   int                   `json:"lessons"`
	Sets      map[string]*Breakdown `json:"sets"`
	// Loop is the closed loop's figures by split, when it ran.
	Loop map[string]LoopSummary `json:"loop,omitempty"`
	// Nudge is what the prompt hook asks the agent about, by split.
	Nudge map[string]*NudgeTally `json:"nudge,omitempty"`
	// KeptOnly is the same measure on the kept sessions alone: what a run
	// without the pointer-only sessions compares with.
	KeptOnly *Report `json:"kept_only,omitempty"`
}

// Beside returns the figures of r measured on the same sessions as rep,
// nil when r holds none: a figure on 210 sessions says nothing beside one
// on 67.
func (r *Report) Beside(rep *Report) *Report {
	switch {
	case r == nil:
		return nil
	case r.Sessions == rep.Sessions && r.Missing == rep.Missing:
		return r
	}
	return r.KeptOnly.Beside(rep)
}

// Summarize computes the report of a result.
func Summarize(set *Set, res *Result) *Report {
	rep := &Report{Version: res.Version, Missing: len(res.Missing), Sets: map[string]*Breakdown{}, Nudge: res.Nudge}
	get := func(split string) *Breakdown {
		b := rep.Sets[split]
		if b == nil {
			b = &Breakdown{ByKind: map[string]*Tally{}, ByLang: map[string]*Tally{}, TogetherByKind: map[string]*Tally{}}
			rep.Sets[split] = b
		}
		return b
	}
	together := map[string]bool{}
	for _, pr := range res.Projects {
		for _, id := range pr.Caught {
			together[id] = true
		}
	}
	langs := map[string]bool{}
	projects := map[string]bool{}
	for _, sr := range res.Sessions {
		s := sr.Session
		rep.Sessions++
		if s.Kept() {
			rep.Kept++
		}
		langs[s.Lang] = true
		projects[s.Project] = true
		for _, b := range []*Breakdown{get(s.Split), get("all")} {
			b.Sessions++
			if sr.Read {
				b.Read++
				if len(sr.Kept) == 0 {
					b.Silent++
				}
			}
			for _, l := range set.Lessons {
				if l.Transcript != s.ID {
					continue
				}
				found := false
				for _, c := range sr.Caught {
					found = found || c == l.ID
				}
				b.Recall.add(found)
				tally(b.ByKind, l.Kind).add(found)
				tally(b.ByLang, l.Lang).add(found)
				b.Together.add(found || together[l.ID])
				tally(b.TogetherByKind, l.Kind).add(found || together[l.ID])
			}
			for _, k := range sr.Kept {
				b.Kept++
				if k.Noise {
					b.Noise++
				}
				if k.Judged() {
					b.Judged++
					if k.Useful() {
						b.Useful++
					}
				} else {
					b.Unjudged++
				}
			}
		}
	}
	for _, l := range set.Lessons {
		s := set.Session(l.Transcript)
		for _, sr := range res.Sessions {
			if sr.Session == s {
				rep.Lessons++
				break
			}
		}
	}
	for _, pr := range res.Projects {
		for _, b := range []*Breakdown{get(pr.Split), get("all")} {
			for _, id := range pr.Recurring {
				ready := false
				for _, r := range pr.Ready {
					ready = ready || r == id
				}
				b.Recurring.add(ready)
			}
			for _, p := range pr.Pairs {
				b.Pairs++
				switch {
				case p.Same == nil:
					b.UnknownPairs++
				case !*p.Same:
					b.FalsePairs++
				}
			}
			b.Missed += len(pr.Missed)
			for _, k := range pr.Across {
				b.Across.add(k)
			}
		}
	}
	for l := range langs {
		rep.Languages = append(rep.Languages, l)
	}
	sort.Strings(rep.Languages)
	rep.Projects = len(projects)
	return rep
}

func tally(m map[string]*Tally, k string) *Tally {
	t := m[k]
	if t == nil {
		t = &Tally{}
		m[k] = t
	}
	return t
}

// WriteText prints the report, each figure beside the one in before when
// it is given.
func WriteText(w io.Writer, rep, before *Report) {
	fmt.Fprintf(w, "%d sessions (%d kept in the repository, %d fetched), %d projects, %d languages (%s), %d lessons\n",
		rep.Sessions, rep.Kept, rep.Sessions-rep.Kept, rep.Projects, len(rep.Languages), strings.Join(rep.Languages, " "), rep.Lessons)
	if rep.Missing > 0 {
		fmt.Fprintf(w, "%d pointer-only sessions were not fetched and are left out (scripts/genuine-fetch.sh)\n", rep.Missing)
	}
	if before != nil {
		fmt.Fprintf(w, "before: %s\n", before.Version)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	was := func(split string) *Breakdown {
		if before == nil {
			return nil
		}
		return before.Sets[split]
	}
	cell := func(now string, prev *Breakdown, f func(*Breakdown) string) string {
		if prev == nil {
			return now
		}
		return f(prev) + " → " + now
	}
	fmt.Fprintln(tw, "set\tsessions\tread\tsilent\trecall\tnoise\tprecision (judged)\tready, recurring\tfalse merges\tmissed merges")
	for _, split := range []string{Dev, Holdout, "all"} {
		b := rep.Sets[split]
		if b == nil {
			continue
		}
		p := was(split)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d\n", split, b.Sessions, b.Read, b.Silent,
			cell(ratio(b.Recall), p, func(x *Breakdown) string { return fmt.Sprintf("%.2f", x.Recall.Rate()) }),
			cell(fmt.Sprintf("%.2f (%d/%d)", b.NoiseRate(), b.Noise, b.Kept), p, func(x *Breakdown) string { return fmt.Sprintf("%.2f", x.NoiseRate()) }),
			cell(fmt.Sprintf("%.2f (%d/%d, %d not judged)", b.Precision(), b.Useful, b.Judged, b.Unjudged), p, func(x *Breakdown) string { return fmt.Sprintf("%.2f", x.Precision()) }),
			cell(ratio(b.Recurring), p, func(x *Breakdown) string { return fmt.Sprintf("%.2f", x.Recurring.Rate()) }),
			cell(fmt.Sprintf("%.3f (%d/%d, %d unknown)", b.FalseMergeRate(), b.FalsePairs, b.Pairs-b.UnknownPairs, b.UnknownPairs), p, func(x *Breakdown) string { return fmt.Sprintf("%.3f", x.FalseMergeRate()) }),
			b.Missed)
	}
	tw.Flush()
	var across []string
	for _, split := range []string{Dev, Holdout, "all"} {
		if b := rep.Sets[split]; b != nil {
			across = append(across, split+" "+b.Across.String())
		}
	}
	fmt.Fprintf(w, "Found only with a project's sessions together (repeated requests, paths not found again), precision: %s\n", strings.Join(across, "; "))
	var together []string
	for _, split := range []string{Dev, Holdout, "all"} {
		if b := rep.Sets[split]; b != nil {
			c := ratio(b.Together)
			if p := was(split); p != nil && p.Together.Lessons > 0 {
				c = fmt.Sprintf("%.2f → %s", p.Together.Rate(), c)
			}
			together = append(together, split+" "+c)
		}
	}
	fmt.Fprintf(w, "Recall with each project's sessions learned together, in the order they happened: %s\n", strings.Join(together, "; "))
	fmt.Fprintln(w)
	for _, by := range []struct {
		name string
		keys func(*Breakdown) map[string]*Tally
		list []string
	}{
		{"recall by kind", func(b *Breakdown) map[string]*Tally { return b.ByKind }, Kinds},
		{"by kind, sessions together", func(b *Breakdown) map[string]*Tally { return b.TogetherByKind }, Kinds},
		{"recall by language", func(b *Breakdown) map[string]*Tally { return b.ByLang }, nil},
	} {
		list := by.list
		if list == nil {
			seen := map[string]bool{}
			for _, b := range rep.Sets {
				for k := range by.keys(b) {
					if !seen[k] {
						seen[k] = true
						list = append(list, k)
					}
				}
			}
			sort.Strings(list)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", by.name, Dev, Holdout, "all")
		for _, k := range list {
			cells := []string{"  " + k}
			for _, split := range []string{Dev, Holdout, "all"} {
				b := rep.Sets[split]
				var t *Tally
				if b != nil {
					t = by.keys(b)[k]
				}
				if t == nil || t.Lessons == 0 {
					cells = append(cells, "-")
					continue
				}
				c := ratio(*t)
				if p := was(split); p != nil {
					if pt := by.keys(p)[k]; pt != nil && pt.Lessons > 0 {
						c = fmt.Sprintf("%.2f → %s", pt.Rate(), c)
					}
				}
				cells = append(cells, c)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func ratio(t Tally) string { return fmt.Sprintf("%.2f (%d/%d)", t.Rate(), t.Found, t.Lessons) }

// WriteNudge prints what the prompt hook asks the agent about.
func WriteNudge(w io.Writer, rep, before *Report) {
	if len(rep.Nudge) == 0 {
		return
	}
	fmt.Fprintln(w, "The prompt hook's nudge: the turns it asks the agent to state a lesson on")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tturns\tlesson turns asked about\tasks on a lesson turn")
	for _, split := range []string{Dev, Holdout, "all"} {
		t := rep.Nudge[split]
		if t == nil {
			continue
		}
		recall := fmt.Sprintf("%.2f (%d/%d)", frac(t.FlaggedTaught, t.LessonTurns), t.FlaggedTaught, t.LessonTurns)
		prec := fmt.Sprintf("%.2f (%d/%d)", frac(t.FlaggedTaught, t.Flagged), t.FlaggedTaught, t.Flagged)
		if before != nil && before.Nudge[split] != nil {
			b := before.Nudge[split]
			recall = fmt.Sprintf("%.2f → %s", frac(b.FlaggedTaught, b.LessonTurns), recall)
			prec = fmt.Sprintf("%.2f → %s", frac(b.FlaggedTaught, b.Flagged), prec)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", split, t.Turns, recall, prec)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteLoop prints the closed loop's figures.
func WriteLoop(w io.Writer, rep, before *Report) {
	if len(rep.Loop) == 0 {
		return
	}
	fmt.Fprintln(w, "Closed loop: each project's later sessions played through the hooks after learning from the earlier ones")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tmoments\tserved by then\tby relevance\tcaught earlier\tserved, of those\tby relevance, of those\tdistraction\tjudged useful, of it")
	frac := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f (%d/%d)", float64(a)/float64(b), a, b)
	}
	for _, split := range []string{Dev, Holdout, "all"} {
		s, ok := rep.Loop[split]
		if !ok || s.Moments == 0 {
			continue
		}
		served := frac(s.Served, s.Moments)
		if before != nil {
			if b, ok := before.Loop[split]; ok && b.Moments > 0 {
				served = fmt.Sprintf("%.2f → %s", float64(b.Served)/float64(b.Moments), served)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", split, s.Moments, served, frac(s.Relevant, s.Moments), frac(s.Known, s.Moments), frac(s.KnownServed, s.Known), frac(s.KnownRelevant, s.Known), frac(s.Unrelated, s.Items), frac(s.JudgedUseful, s.Unrelated))
	}
	tw.Flush()
	if s := rep.Loop["all"]; s.Problems > 0 {
		// A call that failed learned nothing: the figures are low for a
		// reason the table does not show.
		fmt.Fprintf(w, "%d calls failed during the loop, and what they would have learned is missing from the figures (-v lists them); the first: %s\n", s.Problems, cut(s.FirstProblem, 300))
	}
	fmt.Fprintln(w, "By relevance: a prompt or a tool call gave it by the moment, whether or not session start listed it. Distraction: items given by relevance that hold no labelled lesson; judged useful: of those, the ones whose observation a reader judged a useful lesson (judged.json), counted in distraction all the same.")
	// The labels name what a careful reader found in each session, not
	// every lesson there is: an item they do not hold may still bear on
	// its call. Readers judged each item at the call that gave it.
	for _, split := range []string{Dev, Holdout, "all"} {
		s, ok := rep.Loop[split]
		if !ok || s.Items == 0 {
			continue
		}
		fmt.Fprintf(w, "Judged at the call that gave it, %s: bearing on nothing there %s; not judged %d of %d items.\n", split, frac(s.NotRelevant, s.GivenJudged), s.Items-s.GivenJudged, s.Items)
	}
	// After a failed call, the failure learned before that printed the
	// same error: its lesson comes after the mistake, so it is counted
	// apart from "served by then".
	for _, split := range []string{Dev, Holdout, "all"} {
		s, ok := rep.Loop[split]
		if !ok || s.Moments == 0 {
			continue
		}
		fmt.Fprintf(w, "With the error of the call that failed, %s: the moment's lesson %s (%d of them not served by then); items given so %d, bearing on nothing there %d.\n", split, frac(s.AtFailure, s.Moments), s.AtFailureMissed, s.FailureItems, s.FailureNotRelevant)
	}
	fmt.Fprintln(w)
}

// WriteLoopDetails lists the moments not served and what was served that
// holds no lesson of its project.
func WriteLoopDetails(w io.Writer, loops []*LoopResult) {
	for _, r := range loops {
		for _, m := range r.Moments {
			if m.Served {
				how := m.Where
				if m.Start && m.Relevant {
					how = "session start, then " + m.Where
				}
				if !m.Relevant {
					how += "; not at a prompt or call [" + m.Call + "]"
				}
				fmt.Fprintf(w, "%s: %s in %s at %s: served (%s)\n", r.Project, m.Lesson, m.Session, m.At, how)
				continue
			}
			why := "not caught in an earlier session"
			switch {
			case !m.Found:
				why = "the moment is not a hook call of the session"
			case m.Known:
				why = "known, not served"
			}
			if m.Known {
				why += " [" + m.Call + "]"
			}
			fmt.Fprintf(w, "%s: %s in %s at %s: %s\n", r.Project, m.Lesson, m.Session, m.At, why)
		}
		useful := map[string]int{}
		for _, u := range r.JudgedUseful {
			useful[u]++
		}
		for _, u := range r.Unrelated {
			if useful[u] > 0 {
				useful[u]--
				fmt.Fprintf(w, "%s: unrelated (judged useful): %s\n", r.Project, u)
				continue
			}
			fmt.Fprintf(w, "%s: unrelated: %s\n", r.Project, u)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "%s: problem: %s\n", r.Project, p)
		}
	}
}

// WriteDetails lists, session by session, the lessons missed, what was
// kept that no label or reader accounts for, and the problems; then the
// pairs joined that are two lessons or unknown, and the missed merges.
func WriteDetails(w io.Writer, set *Set, res *Result) {
	for _, sr := range res.Sessions {
		var missed []string
		for _, l := range set.Lessons {
			if l.Transcript == sr.Session.ID && !contains(sr.Caught, l.ID) {
				missed = append(missed, fmt.Sprintf("    missed %s [%s, %s] %s", l.ID, l.Kind, l.Lang, l.Statement))
			}
		}
		var unjudged, useless []string
		for _, k := range sr.Kept {
			// A session alone has no status to show: it was observed once.
			line := fmt.Sprintf("    %s %s: %s", k.ID, k.Type, cut(k.Pattern, 160))
			switch {
			case !k.Judged():
				unjudged = append(unjudged, "    not judged "+line[4:])
			case !k.Useful():
				v := "noise"
				if k.Verdict != nil && !k.Noise {
					v = k.Verdict.Verdict
				}
				useless = append(useless, "    "+v+" "+line[4:])
			}
		}
		if len(missed)+len(unjudged)+len(useless)+len(sr.Problems) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%s, %s, %s): %d kept, caught %d\n", sr.Session.ID, sr.Session.Split, sr.Session.Lang, sr.Session.Agent, len(sr.Kept), len(sr.Caught))
		for _, l := range append(append(append(missed, useless...), unjudged...), prefixed("    problem: ", sr.Problems)...) {
			fmt.Fprintln(w, l)
		}
	}
	for _, pr := range res.Projects {
		for _, p := range pr.Pairs {
			if p.Same != nil && *p.Same {
				continue
			}
			what := "unknown"
			if p.Same != nil {
				what = "FALSE"
			}
			fmt.Fprintf(w, "%s merge %s (%s) %s:\n    %s: %s\n    %s: %s\n", pr.Project, what, PairKey(p.A, p.B), p.ID, p.A.Session, cut(p.A.Pattern, 160), p.B.Session, cut(p.B.Pattern, 160))
		}
		for _, id := range pr.Missed {
			fmt.Fprintf(w, "%s missed merge: %s\n", pr.Project, id)
		}
		for _, k := range pr.Across {
			switch {
			case !k.Judged():
				fmt.Fprintf(w, "%s across, not judged %s %s %s (%s): %s\n", pr.Project, k.ID, k.Type, k.Status, k.Session, cut(k.Pattern, 160))
			case !k.Useful():
				fmt.Fprintf(w, "%s across, not useful %s %s: %s\n", pr.Project, k.ID, k.Type, cut(k.Pattern, 160))
			}
		}
		for _, id := range pr.Recurring {
			if !contains(pr.Ready, id) {
				fmt.Fprintf(w, "%s not ready: %s (%s)\n", pr.Project, id, whyNotReady(set, pr, id))
			}
		}
	}
}

// whyNotReady says how far a recurring lesson got: never sighted, or
// sighted in some of its sessions, under which observations and status.
func whyNotReady(set *Set, pr *ProjectResult, id string) string {
	l := lessonByID(set, id)
	if l == nil || pr.Repo == nil {
		return "unknown"
	}
	sessions := map[string]bool{}
	for _, sg := range pr.Repo.Sightings {
		if l.Matches(sg.Pattern + " " + sg.Details) {
			sessions[sg.Session] = true
		}
	}
	var obs []string
	for _, o := range pr.Repo.Observations {
		if l.Matches(o.Text()) {
			obs = append(obs, fmt.Sprintf("%s %s×%d", o.Status, o.Type, o.Count))
		}
	}
	if len(sessions) == 0 && len(obs) == 0 {
		return "never sighted"
	}
	return fmt.Sprintf("sighted in %d of %d sessions; %s", len(sessions), len(l.Sessions()), strings.Join(obs, ", "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func prefixed(p string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = p + s
	}
	return out
}

func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
