package genuine

import (
	"strconv"

	"github.com/devlearn/devlearn/internal/hook"
)

// The prompt hook asks the agent to state a lesson when a prompt may
// teach one (the agent understands every language the person writes).
// That helps only if it asks on the turns that teach, and not on every
// turn: Nudge counts, over the person's turns of the sessions, those a
// labelled lesson is taught at, those the hook asks about, and both.

// NudgeTally is the nudge's figures for a split.
type NudgeTally struct {
	Turns         int `json:"turns"`
	LessonTurns   int `json:"lesson_turns"`
	Flagged       int `json:"flagged"`
	FlaggedTaught int `json:"flagged_lesson_turns"`
}

// Nudge reads the person's turns of the sessions at paths (by session id)
// and counts what the prompt hook would ask about.
func Nudge(set *Set, paths map[string]string) map[string]*NudgeTally {
	at := map[string]map[string]bool{} // session -> the places lessons are taught
	for _, l := range set.Lessons {
		if l.Kind == "failure-fix" {
			continue
		}
		if at[l.Transcript] == nil {
			at[l.Transcript] = map[string]bool{}
		}
		at[l.Transcript][l.At] = true
		for _, r := range l.Recurs {
			if r.How == "prompt" {
				if at[r.Transcript] == nil {
					at[r.Transcript] = map[string]bool{}
				}
				at[r.Transcript][r.At] = true
			}
		}
	}
	out := map[string]*NudgeTally{}
	for _, s := range set.Sessions {
		file := paths[s.ID]
		if file == "" {
			continue
		}
		ch, err := readChannels(file)
		if err != nil {
			continue
		}
		for _, split := range []string{s.Split, "all"} {
			if out[split] == nil {
				out[split] = &NudgeTally{}
			}
		}
		first := true
		for _, u := range ch.UserSignals {
			if u.Rejection {
				continue // a refusal's reason is no prompt
			}
			taught := at[s.ID][u.UUID] || at[s.ID]["L"+strconv.Itoa(u.Line)] || at[s.ID]["M"+strconv.Itoa(u.Line-1)]
			flagged := hook.MayTeachAt(u.Text, first)
			first = false
			for _, split := range []string{s.Split, "all"} {
				t := out[split]
				t.Turns++
				if taught {
					t.LessonTurns++
				}
				if flagged {
					t.Flagged++
					if taught {
						t.FlaggedTaught++
					}
				}
			}
		}
	}
	return out
}
