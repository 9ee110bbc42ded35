package task

// Task statuses.
const (
	StatusActive  = "active"
	StatusBlocked = "blocked"
	StatusDone    = "done"   // finished, its branch kept (auto_merge off)
	StatusMerged  = "merged" // finished and merged into its base
)

// KindConflict is a merge refused for its conflicts (gitx.KindConflict).
const KindConflict = "conflict"

// Why a task is blocked (ClawFlow's pause_reason).
const (
	BlockedBreaker     = "circuit_breaker"
	BlockedConflict    = "merge_conflict"
	BlockedMergeFailed = "merge_failed"
)

// KindFailed is a merge that failed for another reason than a conflict.
const KindFailed = "failed"

// State is a task as its events say it is now.
type State struct {
	Task     string `json:"task"`
	Title    string `json:"title,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Base     string `json:"base,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	// AutoMerge is the task's own choice; nil leaves it to tasks.auto_merge.
	AutoMerge *bool  `json:"auto_merge,omitempty"`
	Stage     string `json:"stage,omitempty"`
	Status    string `json:"status"`
	// BlockedBy is BlockedBreaker, BlockedConflict or BlockedMergeFailed
	// when blocked.
	BlockedBy string `json:"blocked_by,omitempty"`
	// Entering is the stage whose pre gates refused the task last, while
	// it has not entered it: the task stays at Stage.
	Entering string `json:"entering,omitempty"`
	// Attempts is the number of the attempt under way at the current
	// stage: its rejections since the task last resumed, plus one.
	Attempts int `json:"attempts"`
	// Strikes counts the rejections at the current stage since the task
	// last resumed; the breaker trips at tasks.breaker_after.
	Strikes int `json:"strikes"`
	// TwoStrike is the Two-Strike Protocol addendum the next attempt at
	// the current stage gets, when it applies.
	TwoStrike string `json:"two_strike,omitempty"`
	// LastGates is the last run of gates.
	LastGates *GateRun `json:"last_gates,omitempty"`
	// Rejections are every rejection, oldest first.
	Rejections []Rejection `json:"rejections"`
	// Lessons are the keys of the candidate entries its rejections made.
	Lessons []string `json:"lessons"`
	// Merge is the last merge, or the last merge refused.
	Merge *Merge `json:"merge,omitempty"`
	// Started and Updated are the times of its first and last events.
	Started string `json:"started,omitempty"`
	Updated string `json:"updated,omitempty"`
	Events  int    `json:"events"`

	// strikes and addenda per stage, for the stage asked about.
	strikes map[string][]*Event
	addenda map[string]string
	// blockedAt is the stage whose rejections tripped the breaker.
	blockedAt string
}

// GateRun is one run of gates.
type GateRun struct {
	When  string       `json:"when"`
	Stage string       `json:"stage,omitempty"`
	At    string       `json:"at"`
	Gates []GateRecord `json:"gates"`
}

// Passed reports whether every required gate of the run passed.
func (g *GateRun) Passed() bool {
	for _, r := range g.Gates {
		if r.Required && !r.OK {
			return false
		}
	}
	return true
}

// Rejection is one rejection of a stage.
type Rejection struct {
	EID       string `json:"eid"`
	At        string `json:"at"`
	Stage     string `json:"stage"`
	From      string `json:"from"`
	Summary   string `json:"summary"`
	Candidate string `json:"candidate,omitempty"`
}

// Merge is the outcome of the task's merge.
type Merge struct {
	Kind      string     `json:"kind"`
	Commit    string     `json:"commit,omitempty"`
	Base      string     `json:"base,omitempty"`
	At        string     `json:"at"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Reason and Next: why a merge failed, and what to do (KindFailed).
	Reason string `json:"reason,omitempty"`
	Next   string `json:"next,omitempty"`
}

// entersStage reports whether an event says the task is at its stage: a
// stage's pre gates that failed, and the rejection they made, say it was
// refused entry; the two-strike and breaker events follow a rejection and
// say nothing of their own. The done stage is the task's end: only its
// finish (done, merged) or a person (start, stage) puts it there, never
// the gates 'task done' runs before a merge that may still fail.
func entersStage(ev *Event) bool {
	switch ev.Op {
	case OpSuggestGlobal, OpTwoStrike, OpBreaker:
		return false
	case OpGate, OpReject:
		if ev.Stage == "done" {
			return false
		}
	}
	switch ev.Op {
	case OpGate:
		return ev.When != "pre" || (&GateRun{Gates: ev.Gates}).Passed()
	case OpReject:
		return ev.When != "pre"
	}
	return true
}

// Fold computes a task's state from its events, in order. A task with no
// events is a new task at no stage.
func Fold(name string, evs []*Event) *State {
	s := &State{Task: name, Status: StatusActive, Rejections: []Rejection{}, Lessons: []string{},
		strikes: map[string][]*Event{}, addenda: map[string]string{}}
	for _, ev := range evs {
		s.Events++
		if s.Started == "" {
			s.Started = ev.At
		}
		s.Updated = ev.At
		if ev.Stage != "" && entersStage(ev) {
			s.Stage = ev.Stage
			if s.Entering == ev.Stage || ev.Op == OpStage || ev.Op == OpStart {
				s.Entering = ""
			}
		} else if ev.Op == OpGate && ev.When == "pre" {
			s.Entering = ev.Stage
		}
		switch ev.Op {
		case OpStart:
			s.Title = firstOf(ev.Title, s.Title)
			s.Branch = firstOf(ev.Branch, s.Branch)
			s.Base = firstOf(ev.Base, s.Base)
			s.Worktree = firstOf(ev.Worktree, s.Worktree)
			if ev.AutoMerge != nil {
				v := *ev.AutoMerge
				s.AutoMerge = &v
			}
		case OpStage:
			delete(s.addenda, ev.Stage)
		case OpGate:
			run := &GateRun{When: ev.When, Stage: ev.Stage, At: ev.At, Gates: ev.Gates}
			s.LastGates = run
			if run.Passed() && ev.Stage != "" {
				// A passing run is a new attempt that went well: the
				// addendum has done its job.
				delete(s.addenda, ev.Stage)
			}
		case OpReject:
			s.strikes[ev.Stage] = append(s.strikes[ev.Stage], ev)
			delete(s.addenda, ev.Stage)
			s.Rejections = append(s.Rejections, Rejection{EID: ev.EID, At: ev.At, Stage: ev.Stage, From: ev.From, Summary: ev.Summary, Candidate: ev.Candidate})
			if ev.Candidate != "" && !contains(s.Lessons, ev.Candidate) {
				s.Lessons = append(s.Lessons, ev.Candidate)
			}
		case OpTwoStrike:
			s.addenda[ev.Stage] = s.addendumOf(ev)
		case OpBreaker:
			s.Status, s.BlockedBy = StatusBlocked, BlockedBreaker
			s.blockedAt = ev.Stage
		case OpResume:
			s.strikes = map[string][]*Event{}
			s.addenda = map[string]string{}
			if s.Status == StatusBlocked {
				s.Status, s.BlockedBy = StatusActive, ""
			}
		case OpDone:
			s.Status, s.BlockedBy = StatusDone, ""
		case OpMerged:
			// The merge writes no stage: merged is the end of the done stage.
			s.Stage, s.Entering = "done", ""
			s.Status, s.BlockedBy = StatusMerged, ""
			s.Merge = &Merge{Kind: ev.Kind, Commit: ev.Commit, Base: ev.Base, At: ev.At}
		case OpMergeBlocked:
			s.Status, s.BlockedBy = StatusBlocked, BlockedConflict
			s.Merge = &Merge{Kind: KindConflict, Base: ev.Base, At: ev.At, Conflicts: ev.Conflicts}
		case OpMergeFailed:
			// Blocked as a conflict blocks it: 'task done' again is the
			// way on, once what the event says is done.
			s.Status, s.BlockedBy = StatusBlocked, BlockedMergeFailed
			s.Merge = &Merge{Kind: KindFailed, Base: ev.Base, At: ev.At, Reason: ev.Reason, Next: ev.Next}
		}
	}
	s.Strikes = len(s.strikes[s.Stage])
	s.Attempts = s.Strikes + 1
	s.TwoStrike = s.addenda[s.Stage]
	return s
}

// Merges reports whether 'task done' merges the task: its own choice, else
// the project's default.
func (s *State) Merges(def bool) bool {
	if s.AutoMerge != nil {
		return *s.AutoMerge
	}
	return def
}

// StrikesAt is the number of rejections at stage since the task last
// resumed.
func (s *State) StrikesAt(stage string) int { return len(s.strikes[stage]) }

// TwoStrikeAt is the addendum the next attempt at stage gets, if any.
func (s *State) TwoStrikeAt(stage string) string { return s.addenda[stage] }

// lastRejection is the last rejection at stage since the task resumed.
func (s *State) lastRejection(stage string) *Event {
	r := s.strikes[stage]
	if len(r) == 0 {
		return nil
	}
	return r[len(r)-1]
}

// addendumOf writes the addendum of a two-strike event from the two
// rejections it names.
func (s *State) addendumOf(ev *Event) string {
	var sums []string
	for _, r := range s.strikes[ev.Stage] {
		if contains(ev.Rejections, r.EID) {
			sums = append(sums, r.Summary)
		}
	}
	if len(sums) != 2 {
		return ""
	}
	return Addendum(sums[0], sums[1])
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
