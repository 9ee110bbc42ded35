package outcome

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/observe"
)

// Row is one knowledge item's counters, as `devlearn knowledge stats`
// shows them.
type Row struct {
	ID      string `json:"id"`   // ADR-003, PF-001, an entry key, an artifact path, AGENTS.md#P001
	Type    string `json:"type"` // decision, pitfall, entry, command, skill, curated
	Title   string `json:"title"`
	Subject string `json:"subject"` // where its counters are kept (several for a curated bullet)

	Applied int `json:"applied"`
	Helpful int `json:"helpful"`
	Harmful int `json:"harmful"`
	Stale   int `json:"stale"`
	// LastApplied is when it was last applied; Since when devlearn first
	// wrote it (from the audit log), if known.
	LastApplied string `json:"last_applied,omitempty"`
	Since       string `json:"since,omitempty"`
	// Review says why a person should look at it; empty: nothing to say.
	Review []string `json:"review,omitempty"`
}

// StatItem is an item to report, with the subjects its counters are kept
// under (one, or a curated bullet's lessons).
type StatItem struct {
	ID, Type, Title string
	Subjects        []string
	Since           time.Time // zero: unknown
}

// Flags for review.
const (
	FlagHurts      = "hurts more than it helps"
	FlagNotApplied = "not applied for %d days"
	FlagNever      = "never applied in the %d days since it was made"
)

// Stats reads the counters of items from log and flags for review the
// items that hurt more than they help (harmful > helpful) and, with
// reviewAfterDays > 0, those not applied for that long (never, since they
// were made, when that is known). Nothing is changed: flagging is for a
// person to act on.
func Stats(log *observe.Log, items []StatItem, now time.Time, reviewAfterDays int) []Row {
	rows := make([]Row, 0, len(items))
	for _, it := range items {
		r := Row{ID: it.ID, Type: it.Type, Title: it.Title, Subject: strings.Join(it.Subjects, " ")}
		var last time.Time
		for _, s := range it.Subjects {
			c := log.Counters(s)
			r.Applied += c[Applied]
			r.Helpful += c[Helpful]
			r.Harmful += c[Harmful]
			r.Stale += c[Stale]
			if t := log.LastCounted(s, Applied); t.After(last) {
				last = t
			}
		}
		if !last.IsZero() {
			r.LastApplied = last.Format(time.RFC3339)
		}
		if !it.Since.IsZero() {
			r.Since = it.Since.UTC().Format(time.RFC3339)
		}
		if r.Harmful > r.Helpful {
			r.Review = append(r.Review, FlagHurts)
		}
		if reviewAfterDays > 0 {
			cut := now.Add(-time.Duration(reviewAfterDays) * 24 * time.Hour)
			switch {
			case r.Applied > 0 && last.Before(cut):
				r.Review = append(r.Review, fmt.Sprintf(FlagNotApplied, reviewAfterDays))
			case r.Applied == 0 && !it.Since.IsZero() && it.Since.Before(cut):
				r.Review = append(r.Review, fmt.Sprintf(FlagNever, reviewAfterDays))
			}
		}
		rows = append(rows, r)
	}
	// Flagged first, then the most applied.
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := cmp.Compare(len(b.Review), len(a.Review)); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Applied, a.Applied); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return rows
}
