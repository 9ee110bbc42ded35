// Package outcome keeps the helpfulness counters of every knowledge item
// (the entries and counters rule, docs/architecture.md): applied, helpful, harmful, as count events in the
// observation log keyed by the item ("entry:<key>" for an entry, the
// observation id for whatever was rendered from an observation), so they
// merge across branches like every other event.
//
// They are computed where sessions are ingested (the worker, `devlearn
// ingest`), never in a hook: a hook only records what it served, as it
// always has. The rules, exactly (docs/evolution.md says the same for
// people):
//
//   - applied: once per session in which the item was served by a hook,
//     invoked (a slash command run, a skill loaded, an ADR or PF cited),
//     or fetched through an agent tool. The event id derives from the
//     session and the item, so a session counts once however many times
//     and ways it used the item, and ingesting it again adds nothing.
//   - harmful: once per session in which the item was applied and, at or
//     after the moment it was first applied, a lesson was sighted that is
//     the item's own observation or as similar to the item's text as the
//     curator's dedup threshold (curator.similarity): what it warns about
//     recurred although it was applied, or the person corrected the agent
//     on the same point, which is how contradicting it shows.
//   - helpful: one for every counters.helpful_after sessions in which the
//     item was applied and nothing recurred (applied minus harmful,
//     divided by helpful_after, rounded down). A helpful count is never
//     taken back; a later recurrence counts as harmful on its own.
package outcome

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/textsim"
)

// The counters.
const (
	Applied = "applied"
	Helpful = "helpful"
	Harmful = "harmful"
	// Stale counts the times reconcile found an item's code references
	// gone (reconcile records it with its stale flag).
	Stale = "stale"
	// Used is ingest's own counter of invocations (internal/ingest).
	Used = "used"
)

// How an item was applied.
const (
	Served  = "served"
	Invoked = "invoked"
	Fetched = "fetched"
)

// Subject is the id an item's counters are kept under, from its reference
// as the hooks record it ("entry:<key>", "obs:<id>", or a hand-written
// section's anchor): an observation's counters live on the observation
// itself, beside its other events.
func Subject(ref string) string {
	if id, ok := strings.CutPrefix(ref, "obs:"); ok {
		return id
	}
	return ref
}

// Use is one application of an item in a session.
type Use struct {
	Subject string
	Session string
	At      time.Time
	How     string
}

// Sighting is a lesson seen in a session (an extractor's observation).
type Sighting struct {
	ID      string
	Pattern string
	Session string
	At      time.Time
}

// Item is what the recurrence rule knows of a subject.
type Item struct {
	Subject     string
	Observation string // the observation it was made from, if any
	Text        string // its rule or summary
}

// Options of an assessment.
type Options struct {
	Now time.Time
	// HelpfulAfter is counters.helpful_after.
	HelpfulAfter int
	// Similarity is the recurrence threshold (curator.similarity).
	Similarity float64
}

// Verdict is what the assessment decided for one item in one session.
type Verdict struct {
	Subject string `json:"subject"`
	Session string `json:"session"`
	How     string `json:"how"`
	Outcome string `json:"outcome"` // "applied", "recurred"
	Why     string `json:"why,omitempty"`
}

// Assess turns a batch of sessions' uses and sightings into counter
// events not already in log; log is updated with them, so counts read
// from it afterwards include them. items describes a subject (false: the
// subject is unknown, and only applied is counted).
func Assess(log *observe.Log, uses []Use, sightings []Sighting, items func(subject string) (Item, bool), opt Options) ([]*observe.Event, []Verdict) {
	if opt.HelpfulAfter < 1 {
		opt.HelpfulAfter = 1
	}
	type key struct{ session, subject string }
	first := map[key]Use{}
	var order []key
	for _, u := range uses {
		if u.Subject == "" || u.Session == "" {
			continue
		}
		k := key{u.Session, u.Subject}
		cur, ok := first[k]
		if !ok {
			order = append(order, k)
		}
		if !ok || u.At.Before(cur.At) {
			first[k] = u
		}
	}
	slices.SortFunc(order, func(a, b key) int {
		if c := first[a].At.Compare(first[b].At); c != 0 {
			return c
		}
		return strings.Compare(a.session+a.subject, b.session+b.subject)
	})
	bySession := map[string][]Sighting{}
	for _, s := range sightings {
		bySession[s.Session] = append(bySession[s.Session], s)
	}

	var events []*observe.Event
	var verdicts []Verdict
	add := func(e *observe.Event) {
		if log.Counted(e.ID, e.Counter, e.EID) {
			return
		}
		if err := log.Apply(e); err != nil {
			return
		}
		events = append(events, e)
	}
	touched := map[string]bool{}
	for _, k := range order {
		u := first[k]
		at := u.At
		if at.IsZero() || at.After(opt.Now) {
			at = opt.Now
		}
		add(countEvent(Applied, k.subject, k.session, at, "", appliedID(k.session, k.subject)))
		touched[k.subject] = true
		v := Verdict{Subject: k.subject, Session: k.session, How: u.How, Outcome: Applied}
		if it, ok := items(k.subject); ok {
			if s, why := recurred(it, bySession[k.session], u.At, opt.Similarity); why != "" {
				reason := fmt.Sprintf("%s in session %s: %s", why, k.session, s.Pattern)
				add(countEvent(Harmful, k.subject, k.session, s.At, reason, observe.StableID(Harmful+"\x00"+k.session+"\x00"+k.subject)))
				v.Outcome, v.Why = "recurred", reason
			}
		}
		verdicts = append(verdicts, v)
	}
	subjects := make([]string, 0, len(touched))
	for s := range touched {
		subjects = append(subjects, s)
	}
	slices.Sort(subjects)
	for _, subj := range subjects {
		c := log.Counters(subj)
		earned := (c[Applied] - c[Harmful]) / opt.HelpfulAfter
		for n := c[Helpful] + 1; n <= earned; n++ {
			reason := fmt.Sprintf("%d sessions applied it without a recurrence", n*opt.HelpfulAfter)
			add(countEvent(Helpful, subj, "outcome", opt.Now, reason, observe.StableID(Helpful+"\x00"+subj+"\x00"+strconv.Itoa(n))))
		}
	}
	return events, verdicts
}

// recurred finds the first sighting, at or after the item was applied,
// that is the item's own lesson or one like it.
func recurred(it Item, seen []Sighting, applied time.Time, threshold float64) (Sighting, string) {
	words := textsim.Words(it.Text)
	for _, s := range seen {
		if s.At.Before(applied) {
			continue
		}
		if it.Observation != "" && s.ID == it.Observation {
			return s, "its lesson recurred"
		}
		if threshold > 0 && len(words) > 0 {
			if sim := textsim.Of(words, textsim.Words(s.Pattern)); sim >= threshold {
				return s, fmt.Sprintf("a lesson like it (similarity %.2f) recurred", sim)
			}
		}
	}
	return Sighting{}, ""
}

func countEvent(counter, subject, src string, at time.Time, reason, eid string) *observe.Event {
	e := observe.NewEvent(observe.OpCount, subject, at, src, func(e *observe.Event) {
		e.Counter, e.Reason = counter, reason
	})
	e.EID = eid
	return e
}

func appliedID(session, subject string) string {
	return observe.StableID(Applied + "\x00" + session + "\x00" + subject)
}

// AppliedEvent is the event of an item applied in a session outside the
// hooks' records (an agent tool fetching it): the same id as any other
// application in that session, so the session still counts once.
func AppliedEvent(subject, session string, at time.Time) *observe.Event {
	return countEvent(Applied, subject, session, at, "", appliedID(session, subject))
}
