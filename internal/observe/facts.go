package observe

import (
	"math"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/lesson"
)

// statusFacts is what an observation's status is worked out from, taken
// from its state alone: neither the time nor the configuration enters it.
// The status at a moment under a configuration is then a few comparisons
// (statusAt), so the fold cache stores the facts of every state beside it
// and a caller that wants the few ready observations of a long log decides
// every status without decoding a state (see Log.WithStatus). view works
// from the same facts, so the two cannot disagree.
type statusFacts struct {
	typ         uint8 // index in the lesson table plus one; 0 for a type devlearn does not know
	visible     bool  // a known type, a pattern and a sighting after the tombstone
	quality     bool  // quality confirmed after the tombstone
	decided     uint8 // the latest live decisive mark: one of the decided* below
	hasLegacy   bool  // a devflow stored confidence is in force
	count       int   // live sightings: devflow's count and one per source
	weighted    int   // the same, a source weighing its weight
	legacyCount int
	first, last int64   // the span of the live sightings
	penalty     float64 // the product of the live penalties in force but devflow's
	legacy      float64 // devflow's stored confidence, when hasLegacy
}

const (
	decidedNone = iota
	decidedCreated
	decidedDeprecated
	decidedRestored
	decidedPromoted
)

// decisive lists the marks that decide the status, by their decided* value.
var decisive = [...]string{decidedCreated: markCreated, decidedDeprecated: markDeprecated, decidedRestored: markRestored, decidedPromoted: markPromoted}

// typeCode is t's index in the lesson table plus one, 0 when it is none
// of them. The fold cache stores it, so a new type is added at the
// table's end.
func typeCode(t string) uint8 { return uint8(lesson.Index(t) + 1) }

// thresholds lists cfg's rule of every type by typeCode, looked up once
// per call rather than once per observation.
func thresholds(cfg *config.Config) (ths []config.Threshold, known []bool) { // by typeCode
	types := lesson.All()
	ths, known = make([]config.Threshold, len(types)+1), make([]bool, len(types)+1)
	for i, t := range types {
		ths[i+1], known[i+1] = cfg.Thresholds.For(t.Name)
	}
	return ths, known
}

func (s *State) live(st stamp) bool { return st.set() && st.at > s.tomb }

// facts takes the status facts of s.
func (s *State) facts() statusFacts {
	f := statusFacts{typ: typeCode(s.Type), quality: s.live(s.quality), legacyCount: s.legacyCount, penalty: 1}
	see := func(sp span) {
		if sp.first != 0 && (f.first == 0 || sp.first < f.first) {
			f.first = sp.first
		}
		if sp.last > f.last {
			f.last = sp.last
		}
	}
	if s.legacyCount > 0 && s.legacy.last > s.tomb {
		f.count += s.legacyCount
		sp := s.legacy
		if sp.first <= s.tomb {
			sp.first = sp.last // only what came after the tombstone counts
		}
		see(sp)
	}
	f.weighted = f.count // devflow's count, each sighting weighing 1
	for src, at := range s.sources {
		if at > s.tomb {
			f.count++
			f.weighted += s.weightOf(src)
			see(span{at, at})
		}
	}
	f.visible = f.typ != 0 && s.Pattern != "" && f.count > 0
	if !f.visible {
		return statusFacts{typ: f.typ}
	}
	var latest mark
	for k := decidedCreated; k <= decidedPromoted; k++ {
		m, ok := s.mark(decisive[k])
		if ok && s.live(m.stamp) && (f.decided == decidedNone || m.after(latest.stamp)) {
			f.decided, latest = uint8(k), m
		}
	}
	restored, _ := s.mark(markRestored)
	for _, p := range s.penalties {
		if !s.live(p.stamp) || (s.live(restored.stamp) && !p.after(restored.stamp)) {
			continue
		}
		if p.legacy != nil { // one at most: penaltyKey keeps the latest
			f.hasLegacy, f.legacy = true, *p.legacy
			continue
		}
		f.penalty *= p.factor
	}
	return f
}

// status is the status statusAt decides, worked out only as far as it
// takes: of a long log most observations are still observing, and most
// of those plainly so.
//
// An observation no mark decided whose quality is not confirmed misses
// the rule (unmetQuality) whatever the rest. One whose base confidence is
// below the threshold misses it too once its confidence is no more than
// the base (unmetCount): that holds when its penalties other than
// devflow's multiply to at most 1, since devflow's factor (legacyFactor)
// and the decay are at most 1, a product of floats by factors at most 1
// is at most the float itself, and rounding to four places keeps the base
// (a whole percentage) as it is and keeps the order. Anything else, and
// the penalty checked here being NaN or above 1 or devflow's stored
// confidence NaN, is worked out in full.
func (f *statusFacts) status(now time.Time, th config.Threshold, d config.Decay) string {
	switch f.decided {
	case decidedDeprecated:
		return Deprecated
	case decidedCreated:
		return Created
	case decidedRestored, decidedPromoted:
		return Ready
	}
	if !f.quality {
		return Observing
	}
	if f.penalty <= 1 && !math.IsNaN(f.legacy) {
		counted := f.count // as Observation.counted
		if f.weighted != f.count && f.weighted > 0 {
			counted = f.weighted
		}
		if BaseConfidence(counted, th.Required) < th.Promote-1e-9 {
			return Observing
		}
	}
	var o Observation
	f.statusAt(&o, now, th, d)
	return o.Status
}

// statusAt fills in o what the facts decide at now under th and d: the
// count, the span, the quality, the penalty, the decay, the confidence and
// the status (Ready when the promotion rule is met, else Observing, for
// an observation no mark decided). It returns the base confidence.
//
// Of its inputs only the decay depends on now, and it only ever lowers the
// confidence as now goes on: every other condition of the rule and every
// status a mark sets are facts of the state.
func (f *statusFacts) statusAt(o *Observation, now time.Time, th config.Threshold, d config.Decay) float64 {
	o.QualityOK, o.Count = f.quality, f.count
	if f.weighted != f.count {
		o.Weighted = f.weighted
	}
	o.FirstSeen, o.LastSeen = time.Unix(f.first, 0).UTC(), time.Unix(f.last, 0).UTC()
	base := BaseConfidence(o.counted(), th.Required)
	o.Penalty = f.penalty
	if f.hasLegacy {
		o.Penalty *= legacyFactor(f.legacy, f.legacyCount, th.Required)
	}
	o.Decay = decayFactor(now, o.LastSeen, d)
	o.Confidence = round4(base * o.Penalty * o.Decay)
	o.Penalty = round4(o.Penalty)
	o.Decay = round4(o.Decay)
	switch f.decided {
	case decidedDeprecated:
		o.Status = Deprecated
	case decidedCreated:
		o.Status = Created
	case decidedRestored, decidedPromoted:
		o.Status = Ready
	default:
		o.Status = Observing
		if unmet(o, th, base) == 0 {
			o.Status = Ready
		}
	}
	return base
}
