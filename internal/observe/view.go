package observe

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

// The statuses of an observation. The machine is observing → ready →
// created → deprecated, and restore (a person's "yes after all") takes a
// deprecated observation back to ready.
const (
	Observing  = "observing"
	Ready      = "ready"
	Created    = "created"
	Deprecated = "deprecated"
)

// Observation is the state of one observation at a moment: what `learn
// --list` shows and what render, reconcile and the index work from.
type Observation struct {
	ID        string   `json:"id"`
	Type      string   `json:"type"`
	Pattern   string   `json:"pattern"`
	Details   string   `json:"details,omitempty"`
	Evidence  []string `json:"evidence,omitempty"`
	QualityOK bool     `json:"quality_ok"`
	Count     int      `json:"count"`
	// Weighted is what the sightings count toward the thresholds when a
	// bug or feedback session counts more than once (classify.weight);
	// 0 when it is Count.
	Weighted   int       `json:"weighted,omitempty"`
	FirstSeen  time.Time `json:"first_seen"`
	LastSeen   time.Time `json:"last_seen"`
	Confidence float64   `json:"confidence"`
	Status     string    `json:"status"`
	// Why lists what keeps an observing observation from being ready.
	Why []string `json:"why_not_ready,omitempty"`

	Artifact string `json:"artifact,omitempty"` // path of the created artifact
	Anchor   string `json:"anchor,omitempty"`   // ADR-003, PF-001 for knowledge sections
	// Intent is a render that was announced but not confirmed: a crash
	// between the two leaves it, and the next render adopts the file.
	Intent           *Target `json:"intent,omitempty"`
	DeprecatedReason string  `json:"deprecated_reason,omitempty"`
	Penalty          float64 `json:"penalty"` // product of the penalties in force (1 = none)
	// Seq is the latest decision's sequence: an event that decides
	// something about this observation carries Seq+1 (see NextSeq).
	Seq   int     `json:"seq"`
	Decay float64 `json:"decay"` // time decay factor at this moment (1 = none)

	Stale       string         `json:"stale,omitempty"` // why it may be stale
	SoftCap     bool           `json:"soft_cap,omitempty"`
	NeedsReview bool           `json:"needs_review,omitempty"`
	Counters    map[string]int `json:"counters,omitempty"`
}

// Target is where an artifact goes.
type Target struct {
	Path   string `json:"path"`
	Anchor string `json:"anchor,omitempty"`
}

// Observations returns every observation as it stands at now, by
// confidence (highest first), then most recently seen, then id.
func (l *Log) Observations(now time.Time, cfg *config.Config) []Observation {
	states := l.all()
	now = l.clock(now)
	out := make([]Observation, 0, len(states))
	for _, s := range states {
		if o, ok := s.view(now, cfg); ok {
			out = append(out, o)
		}
	}
	SortByConfidence(out)
	return out
}

// WithStatus returns the observations whose status at now is one of
// statuses, in no particular order; only those are worked out in full.
// render-ready asks for the ready ones, reconcile for those with an
// artifact or about to have one: of a long log, a few. A log read from
// the fold cache decides the status of the states it has not decoded from
// their facts (see statusFacts), and decodes only those that match.
func (l *Log) WithStatus(now time.Time, cfg *config.Config, statuses ...string) []Observation {
	ths, known := thresholds(cfg)
	now = l.clock(now)
	match := func(f *statusFacts) bool {
		return f.visible && known[f.typ] && slices.Contains(statuses, f.status(now, ths[f.typ], cfg.Decay))
	}
	lazy := l.lazy != nil
	l.decodeMatching(match)
	// The matches first, then their views in a slice of their size: an
	// Observation is 320 bytes, and growing a slice of a thousand of them
	// allocated three times that, each page of it a fault on a fresh
	// process's heap (reconcile after a bulk render). The matches too are
	// made room for at once where the log was read through the fold cache:
	// only its decoded states can match, and those are about the ones
	// asked for (the lines joined since, and the matches just decoded).
	type hit struct {
		s *State
		f statusFacts
	}
	var hits []hit
	if lazy {
		hits = make([]hit, 0, len(l.states))
	}
	l.eachDecoded(func(s *State, f *statusFacts) {
		if match(f) {
			hits = append(hits, hit{s, *f})
		}
	})
	if len(hits) == 0 {
		return nil
	}
	out := make([]Observation, len(hits))
	for i := range hits {
		h := &hits[i]
		out[i] = h.s.viewFacts(&h.f, now, ths[h.f.typ], cfg.Decay)
	}
	return out
}

// SortByConfidence orders observations as `learn --list` shows them.
func SortByConfidence(obs []Observation) {
	slices.SortFunc(obs, func(a, b Observation) int {
		if c := cmp.Compare(b.Confidence, a.Confidence); c != 0 {
			return c
		}
		if c := b.LastSeen.Compare(a.LastSeen); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Observation returns one observation by id.
func (l *Log) Observation(id string, now time.Time, cfg *config.Config) (Observation, bool) {
	s, ok := l.get(id)
	if !ok {
		return Observation{}, false
	}
	return s.view(l.clock(now), cfg)
}

// clock is the time confidence decays to: now, or the latest sighting in
// the log when that is earlier. Decay is for a lesson the project went on
// working without; a project nobody worked on for months, or a backlog of
// sessions ingested long after, has not forgotten what it learned. It is
// the only input of a status that depends on the time.
func (l *Log) clock(now time.Time) time.Time {
	if !l.clocked {
		l.clocked = true // cleared again if a damaged cache refolds the log meanwhile
		l.latest = l.latestSighting()
	}
	if l.latest == 0 || l.latest >= now.Unix() {
		return now
	}
	return time.Unix(l.latest, 0).UTC()
}

// latestSighting is the time of the latest sighting of a state a view
// shows, 0 when there is none: the states left to decode answer from the
// fold cache's facts, and are decoded only where it has none.
func (l *Log) latestSighting() int64 {
	var latest int64
	see := func(f *statusFacts) {
		if f.visible && f.last > latest {
			latest = f.last
		}
	}
	l.decodeMatching(func(f *statusFacts) bool {
		see(f)
		return false
	})
	l.eachDecoded(func(_ *State, f *statusFacts) { see(f) })
	return latest
}

// decodeMatching decodes the states left to decode whose facts in the
// fold cache match, and those whose facts it does not hold; facts that do
// not decode have every state decoded.
func (l *Log) decodeMatching(match func(*statusFacts) bool) {
	z := l.lazy
	if z == nil {
		return
	}
	picked, ok := z.pick(match)
	if !ok {
		l.all()
	}
	for _, i := range picked {
		if l.lazy != z {
			break // the log was folded afresh (a damaged cache)
		}
		l.decode(i)
	}
}

// eachDecoded shows f every decoded state with its status facts: those
// the fold cache was written with while nothing changed since, else
// worked out.
func (l *Log) eachDecoded(f func(*State, *statusFacts)) {
	if m := l.facts; m != nil && l.lazy == nil {
		for i := range m.facts {
			f(m.states[i], &m.facts[i])
		}
		return
	}
	var fs statusFacts // one for all, as in pick
	for _, s := range l.states {
		fs = s.facts()
		f(s, &fs)
	}
}

// Counters returns the counters of a subject ("obs_…" or "entry:<key>").
func (l *Log) Counters(subject string) map[string]int {
	s, ok := l.get(subject)
	if !ok {
		return nil
	}
	return s.counterView()
}

// Flag reports whether a subject's flag is on, and its reason: for flags
// the view of an observation does not show (a declined gate proposal).
func (l *Log) Flag(subject, name string) (on bool, reason string) {
	s, ok := l.get(subject)
	if !ok {
		return false, ""
	}
	f, ok := s.flag(name)
	if !ok || !f.on || f.at <= s.tomb {
		return false, ""
	}
	return true, f.reason
}

// LastCounted is the time of the latest event of a subject's counter
// (when an item was last applied); zero when it has none.
func (l *Log) LastCounted(subject, counter string) time.Time {
	s, ok := l.get(subject)
	if !ok || s.counts == nil || s.counts.at[counter] == 0 {
		return time.Time{}
	}
	return time.Unix(s.counts.at[counter], 0).UTC()
}

func (s *State) counterView() map[string]int {
	if s.counts == nil || len(s.counts.sets) == 0 {
		return nil
	}
	out := make(map[string]int, len(s.counts.sets))
	for c, set := range s.counts.sets {
		out[c] = len(set)
	}
	return out
}

// BaseConfidence is devflow's count-based confidence:
// min(floor(count × 100 / required), 95) / 100.
func BaseConfidence(count, required int) float64 {
	if required < 1 {
		required = 1
	}
	pct := count * 100 / required
	if pct > 95 {
		pct = 95
	}
	return float64(pct) / 100
}

// needed words the count an observation needs to be ready. The config's
// "required" (devflow's name, kept so its configs read the same) is the
// count of full confidence, not this one: where they differ, it says how
// this one follows from it.
func needed(th config.Threshold) string {
	n := sightingsNeeded(th)
	if n == th.Required {
		return fmt.Sprintf("%d needed", n)
	}
	return fmt.Sprintf("%d needed (required %d × promote %.2f)", n, th.Required, th.Promote)
}

// sightingsNeeded is the smallest count whose base confidence reaches promote.
func sightingsNeeded(th config.Threshold) int {
	for n := 1; n <= th.Required; n++ {
		if BaseConfidence(n, th.Required) >= th.Promote-1e-9 {
			return n
		}
	}
	return th.Required
}

// view computes the observation at now. Penalties and decay are applied
// here, every time from the stored facts, so they can never compound.
func (s *State) view(now time.Time, cfg *config.Config) (Observation, bool) {
	th, known := cfg.Thresholds.For(s.Type)
	f := s.facts()
	if !known || !f.visible {
		return Observation{}, false // a counter subject, a line from a newer devlearn, forgotten or never sighted
	}
	return s.viewFacts(&f, now, th, cfg.Decay), true
}

// viewFacts is view, s's facts already taken.
func (s *State) viewFacts(f *statusFacts, now time.Time, th config.Threshold, d config.Decay) Observation {
	o := Observation{ID: s.ID, Type: s.Type, Pattern: s.Pattern, Counters: s.counterView()}
	if s.live(s.details) {
		o.Details = s.Details
	}
	for _, ev := range s.evidenceByAge() {
		if ev.at > s.tomb {
			o.Evidence = append(o.Evidence, ev.text)
		}
	}
	for _, m := range s.marks { // and the flags
		o.Seq = max(o.Seq, m.seq)
	}
	for _, m := range s.penalties {
		o.Seq = max(o.Seq, m.seq)
	}
	base := f.statusAt(&o, now, th, d)
	var latest mark
	if f.decided != decidedNone {
		latest, _ = s.mark(decisive[f.decided])
	}
	switch f.decided {
	case decidedDeprecated:
		o.DeprecatedReason = latest.reason
	case decidedCreated:
		o.Artifact, o.Anchor = latest.path, latest.anchor
	case decidedNone:
		o.Why = whyNotReady(&o, th, base)
	}
	if o.Status == Ready {
		if in, ok := s.mark(markIntent); ok && s.live(in.stamp) && (f.decided == decidedNone || in.after(latest.stamp)) {
			o.Intent = &Target{Path: in.path, Anchor: in.anchor}
		}
	}
	for _, fl := range s.marks.flags() {
		if !fl.on || !s.live(fl.stamp) {
			continue
		}
		switch fl.name {
		case FlagStale:
			o.Stale = fl.reason
			if o.Stale == "" {
				o.Stale = "a file it refers to is gone"
			}
		case FlagSoftCap:
			o.SoftCap = true
		case FlagReview:
			o.NeedsReview = true
		}
	}
	o.NeedsReview = o.NeedsReview || o.Stale != "" || o.SoftCap
	return o
}

// MinSources is the fewest sources (sessions) whose evidence makes an
// observation ready, whatever its thresholds say: what one session shows
// may be that session's accident, and promotion is for what recurs. A
// lesson the person asks to keep is not promoted at all: it becomes an
// active entry at once.
const MinSources = 2

// The conditions an observation may miss: devflow's promotion rule, and
// devlearn's own floor (evidence from more than one session).
const (
	unmetQuality = 1 << iota
	unmetCount
	unmetPenalised
	unmetFaded
	unmetSpread
	unmetSources
)

// unmet is the set of conditions o misses (0 when it is ready by them).
func unmet(o *Observation, th config.Threshold, base float64) int {
	u := 0
	if !o.QualityOK {
		u |= unmetQuality
	}
	if o.Confidence < th.Promote-1e-9 {
		switch {
		case base < th.Promote-1e-9:
			u |= unmetCount
		case o.Penalty < 1:
			u |= unmetPenalised
		default:
			u |= unmetFaded
		}
	}
	if spread := o.LastSeen.Sub(o.FirstSeen).Hours() / 24; spread < th.SpreadDays-1e-9 {
		u |= unmetSpread
	}
	if o.Count < MinSources && base >= th.Promote-1e-9 {
		u |= unmetSources
	}
	return u
}

// whyNotReady words the unmet conditions of devflow's promotion rule, and
// devlearn's own floor.
func whyNotReady(o *Observation, th config.Threshold, base float64) []string {
	u := unmet(o, th, base)
	var why []string
	if u&unmetQuality != 0 {
		why = append(why, "quality not confirmed")
	}
	switch {
	case u&unmetCount != 0 && o.Weighted > 0:
		why = append(why, fmt.Sprintf("count %d (weighing %d: bug or feedback sessions count more) of %s", o.Count, o.Weighted, needed(th)))
	case u&unmetCount != 0:
		why = append(why, fmt.Sprintf("count %d of %s", o.Count, needed(th)))
	case u&unmetPenalised != 0:
		why = append(why, fmt.Sprintf("confidence %.2f below %.2f (penalised)", o.Confidence, th.Promote))
	case u&unmetFaded != 0:
		why = append(why, fmt.Sprintf("confidence %.2f below %.2f (faded: not seen since %s)", o.Confidence, th.Promote, o.LastSeen.Format("2006-01-02")))
	}
	if u&unmetSpread != 0 {
		spread := o.LastSeen.Sub(o.FirstSeen).Hours() / 24
		why = append(why, fmt.Sprintf("spread %s of %s days", trimFloat(spread), trimFloat(th.SpreadDays)))
	}
	if u&unmetSources != 0 {
		why = append(why, fmt.Sprintf("seen in %d session; ready needs at least %d, whatever the thresholds", o.Count, MinSources))
	}
	return why
}

// legacyFactor turns devflow's stored confidence into the penalty it
// carried, so the stored value is read as it is.
func legacyFactor(stored float64, count, required int) float64 {
	base := BaseConfidence(count, required)
	if base <= 0 || stored >= base {
		return 1
	}
	if stored <= 0 {
		return 0.01
	}
	return stored / base
}

// decayFactor halves confidence every HalfLifeDays once an observation has
// gone AfterDays without a sighting.
func decayFactor(now, last time.Time, d config.Decay) float64 {
	if d.HalfLifeDays <= 0 {
		return 1
	}
	idle := now.Sub(last).Hours()/24 - d.AfterDays
	if idle <= 0 {
		return 1
	}
	return math.Pow(0.5, idle/d.HalfLifeDays)
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}

// counted is what the sightings count toward the thresholds.
func (o Observation) counted() int {
	if o.Weighted > 0 {
		return o.Weighted
	}
	return o.Count
}

// NextSeq is the sequence of an event that decides something about o after
// seeing its current state.
func (o Observation) NextSeq() int { return o.Seq + 1 }
