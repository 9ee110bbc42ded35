package replay

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Summary aggregates the results of a set of replays.
type Summary struct {
	Set      string `json:"set"`
	Replays  int    `json:"replays"`
	Critical int    `json:"critical"`
	// CriticalServed: CRITICAL replays whose lesson was served before the
	// repeat; CriticalJustInTime: by relevance, at a prompt or a tool call.
	CriticalServed     int `json:"critical_served"`
	CriticalJustInTime int `json:"critical_just_in_time"`
	Served             int `json:"served"`
	JustInTime         int `json:"just_in_time"`
	Top3               int `json:"top3"`
	ServedItems        int `json:"served_items"`
	Unrelated          int `json:"unrelated"`
	TokensBefore       int `json:"tokens_before"`
	Tokens             int `json:"tokens"`
}

// Rate is a share, 1 for an empty set.
func Rate(n, of int) float64 {
	if of == 0 {
		return 1
	}
	return float64(n) / float64(of)
}

// CriticalRate is the share of CRITICAL replays served before the repeat.
func (s Summary) CriticalRate() float64 { return Rate(s.CriticalServed, s.Critical) }

// Top3Rate is the share of replays with a lesson served in the top 3
// before the repeat.
func (s Summary) Top3Rate() float64 { return Rate(s.Top3, s.Replays) }

// Distraction is the share of items served by relevance that had nothing
// to do with the session.
func (s Summary) Distraction() float64 {
	if s.ServedItems == 0 {
		return 0
	}
	return float64(s.Unrelated) / float64(s.ServedItems)
}

// Summarise adds up the results whose set is set ("" for all).
func Summarise(results []*Result, set string) Summary {
	s := Summary{Set: set}
	if set == "" {
		s.Set = "all"
	}
	for _, r := range results {
		if set != "" && r.Set != set {
			continue
		}
		s.Replays++
		if r.Critical {
			s.Critical++
			if r.Served {
				s.CriticalServed++
			}
			if r.JustInTime {
				s.CriticalJustInTime++
			}
		}
		if r.Served {
			s.Served++
		}
		if r.JustInTime {
			s.JustInTime++
		}
		if r.Top3 {
			s.Top3++
		}
		s.ServedItems += r.ServedItems
		s.Unrelated += len(r.Unrelated)
		s.TokensBefore += r.TokensBefore
		s.Tokens += r.Tokens
	}
	return s
}

// RunAll runs every replay.
func RunAll(ctx context.Context, replays []*Replay, o Options) ([]*Result, error) {
	var out []*Result
	for _, r := range replays {
		res, err := Run(ctx, r, o)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// Sets are the replay sets in report order.
var Sets = []string{"tune", "heldout"}

// Report prints one line per replay and a summary per set; verbose adds
// every event that served something.
func Report(w io.Writer, results []*Result, verbose bool) {
	fmt.Fprintf(w, "%-8s %-26s %-27s %-6s %-44s %4s %9s %9s\n", "set", "replay", "class", "served", "served by relevance at (else at start)", "rank", "tok<=rep", "unrelated")
	for _, r := range results {
		served := "no"
		switch {
		case r.JustInTime:
			served = "yes"
		case r.Served:
			served = "start"
		}
		if r.Critical {
			served += "!"
		}
		at, rank := "-", "-"
		switch {
		case r.JustInTime:
			at, rank = r.Lesson+" at "+r.RelevantAt, fmt.Sprint(r.RelevantRank)
		case r.Served:
			at, rank = r.Lesson+" at "+r.At, fmt.Sprint(r.Rank)
		}
		fmt.Fprintf(w, "%-8s %-26s %-27s %-6s %-44s %4s %9d %5d/%-3d\n", r.Set, cut(r.Name, 26), cut(r.Class, 27), served, cut(at, 44), rank, r.TokensBefore, len(r.Unrelated), r.ServedItems)
		if verbose {
			for _, e := range r.Events {
				if len(e.Served) > 0 || e.Repeat {
					mark := ""
					if e.Repeat {
						mark = "  <- the repeat"
					}
					fmt.Fprintf(w, "    %-48s %s (%d tok)%s\n", cut(e.Label(), 48), strings.Join(e.Served, ", "), e.Tokens, mark)
				}
			}
			if len(r.Unrelated) > 0 {
				fmt.Fprintf(w, "    unrelated: %s\n", strings.Join(r.Unrelated, ", "))
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "served: yes = by relevance at a prompt or a tool call, start = only in session start's CRITICAL items; ! = a CRITICAL lesson.")
	fmt.Fprintln(w, "tok<=rep: tokens served up to the repeat, session start included; unrelated: items served by relevance that were neither about the mistake nor acceptable.")
	fmt.Fprintln(w)
	sets := []string{}
	for _, s := range Sets {
		if slices.ContainsFunc(results, func(r *Result) bool { return r.Set == s }) {
			sets = append(sets, s)
		}
	}
	for _, set := range append(sets, "") {
		s := Summarise(results, set)
		fmt.Fprintln(w, SummaryLine(s))
	}
}

// SummaryLine is a set's figures on one line.
func SummaryLine(s Summary) string {
	name := map[string]string{"tune": "tuning", "heldout": "held out", "all": "all"}[s.Set]
	if name == "" {
		name = s.Set
	}
	return fmt.Sprintf("%-9s %2d replays: CRITICAL served before the repeat %d/%d (%.0f%%; just in time %d/%d), a lesson in the top 3 %d/%d (%.0f%%), served at all %d/%d; distraction %d/%d (%.1f%%); tokens %d up to the repeats, %d in all",
		name+":", s.Replays, s.CriticalServed, s.Critical, 100*s.CriticalRate(), s.CriticalJustInTime, s.Critical,
		s.Top3, s.Replays, 100*s.Top3Rate(), s.Served, s.Replays, s.Unrelated, s.ServedItems, 100*s.Distraction(), s.TokensBefore, s.Tokens)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
