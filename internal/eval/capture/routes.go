package capture

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/llm"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// The routes beyond the offline extractors, measured on the same set:
//
//   - the agent as extractor: what the prompt hook keeps of the person's
//     requests (keep.Find: active entries at once), the nudge a prompt that
//     may be a correction gets (lang.MayBeCorrection), and, replayed, the
//     blocks agents wrote in the sessions of testdata/eval/agent;
//   - the LLM route: the turns the offline stage nominates (llm.Nominate),
//     and what a model answered about them, replayed from the recorded
//     answers of testdata/eval/llm.

// personClasses are the lesson classes a person's turn carries, which a
// nudge can reach; failure-fix and repeated carry none of their own.
var personClasses = []string{Imperative, Contrast, Rejection, Remember, Acknowledged}

// Nudge is how the prompt hook reads one set's person turns.
type Nudge struct {
	Cases int
	// Lessons of the person classes, and those whose session had a turn
	// flagged holding the lesson's words (any flagged turn, for a
	// rejection, whose object is the agent's action).
	Lessons, Nudged int
	ByClass         map[string]*[2]int // lessons, nudged
	ByLang          map[string]*[2]int
	// Turns the person wrote, and those flagged; the same in cases that
	// hold no lesson (where each flag is a nudge for nothing).
	Turns, Flagged           int
	NoiseTurns, NoiseFlagged int
	// Kept: the lessons the prompt hook keeps as active entries (a request
	// to remember or a standing rule), judged as any kept lesson.
	Kept Tally
}

// MeasureNudge reads every person turn of the cases as the prompt hook
// does.
func MeasureNudge(cases []*Case, root string, opt transcript.Options) (map[string]*Nudge, error) {
	out := map[string]*Nudge{}
	for _, set := range []string{Dev, Holdout} {
		out[set] = &Nudge{ByClass: map[string]*[2]int{}, ByLang: map[string]*[2]int{}}
	}
	kept := Score(withoutTypes(cases), root, opt, KeptAtOnce)
	for _, r := range kept {
		if r.Err != nil {
			return nil, r.Err
		}
		n := out[r.Case.Set]
		for i := range r.Case.Lessons {
			n.Kept.Lessons++
			if r.Found[i] {
				n.Kept.Found++
			}
		}
		for _, k := range r.Kept {
			n.Kept.Kept++
			if k.IsNoise() {
				n.Kept.Noise++
			}
		}
	}
	for _, c := range cases {
		n := out[c.Set]
		n.Cases++
		chs, err := Channels(c, root, opt)
		if err != nil {
			return nil, err
		}
		flagged := map[string][]string{} // session -> flagged turns, folded
		for _, ch := range chs {
			for _, u := range ch.UserSignals {
				n.Turns++
				if len(c.Lessons) == 0 {
					n.NoiseTurns++
				}
				// As the prompt hook reads a prompt: the person's own words.
				if !hook.MayTeach(u.Text) && len(keep.Find(transcript.OwnWords(u.Text))) == 0 {
					continue
				}
				n.Flagged++
				if len(c.Lessons) == 0 {
					n.NoiseFlagged++
				}
				flagged[u.SessionID] = append(flagged[u.SessionID], u.Text)
			}
		}
		for i := range c.Lessons {
			l := &c.Lessons[i]
			if !slices.Contains(personClasses, l.Class) {
				continue
			}
			hit := false
			for sid, texts := range flagged {
				if l.Session != "" {
					j := slices.IndexFunc(c.Sessions, func(s Session) bool { return s.ID == l.Session })
					if sid != SessionID(c, &c.Sessions[j]) {
						continue
					}
				}
				for _, t := range texts {
					o := extract.Observation{Pattern: t, SessionID: sid}
					if l.Class == Rejection || l.Class == Acknowledged || Names(c, &Label{Match: l.Match, Session: l.Session}, &o) {
						hit = true
					}
				}
			}
			n.Lessons++
			for _, mk := range []struct {
				m map[string]*[2]int
				k string
			}{{n.ByClass, l.Class}, {n.ByLang, c.Lang}} {
				if mk.m[mk.k] == nil {
					mk.m[mk.k] = &[2]int{}
				}
				mk.m[mk.k][0]++
				if hit {
					mk.m[mk.k][1]++
				}
			}
			if hit {
				n.Nudged++
			}
		}
	}
	return out, nil
}

// KeptAtOnce is the prompt hook's own extractor: the lessons the person
// asks to keep, stated as the hook states them (redacted first, as the hook does).
func KeptAtOnce(chs []*transcript.Channels) []extract.Observation {
	var out []extract.Observation
	for _, ch := range chs {
		for _, u := range ch.UserSignals {
			for _, q := range keep.Find(transcript.OwnWords(redact.Text(u.Text))) {
				if q.Lesson == "" {
					continue // the agent is asked to state it: the replay measures that
				}
				out = append(out, extract.Observation{Type: "decision", Pattern: q.Lesson, Evidence: []string{"user: " + q.Evidence}, SessionID: u.SessionID, Extractor: "keep"})
			}
		}
	}
	return out
}

// AgentReplay is the agent as extractor on sessions whose replies hold
// blocks: what the prompt hook keeps, and every [PROCESS_KNOWLEDGE] block
// (as the Stop hook and the worker take them), each the entry it becomes.
func AgentReplay(chs []*transcript.Channels) []extract.Observation {
	out := KeptAtOnce(chs)
	for _, ch := range chs {
		cands, _ := extract.KnowledgeCandidates(ch, extract.Options{Redact: redact.Text})
		for _, c := range cands {
			e, err := ingest.CandidateEntry(c.KnowledgeBlock, ingest.SourceStopHook)
			if err != nil {
				continue // logged by the hook, and lost: the replay counts it missed
			}
			out = append(out, extract.Observation{
				Type: "decision", Pattern: e.Summary, Details: e.Process.Text(),
				SessionID: c.SessionID, Extractor: extract.ExtractorKnowledgeBlock,
			})
		}
	}
	return out
}

// BlockTokens is the mean size of the blocks agents wrote in the replayed
// sessions, in tokens (knowledge.Tokens), and how many there were.
func BlockTokens(cases []*Case, root string, opt transcript.Options) (int, int, error) {
	total, n := 0, 0
	for _, c := range cases {
		chs, err := Channels(c, root, opt)
		if err != nil {
			return 0, 0, err
		}
		for _, ch := range chs {
			for _, p := range ch.DialogPairs {
				blocks, _ := extract.ParseKnowledgeBlocks(p.Assistant, extract.Options{})
				for _, b := range blocks {
					total += knowledge.Tokens(b.Raw)
					n++
				}
			}
		}
	}
	if n == 0 {
		return 0, 0, nil
	}
	return total / n, n, nil
}

// withoutTypes copies cases with no type on their labels: an entry has a
// kind, not an observation's type, so the routes that make entries are
// judged on the lesson's words alone.
func withoutTypes(cases []*Case) []*Case {
	out := make([]*Case, len(cases))
	for i, c := range cases {
		cc := *c
		cc.Lessons = slices.Clone(c.Lessons)
		for j := range cc.Lessons {
			cc.Lessons[j].Type = nil
		}
		out[i] = &cc
	}
	return out
}

// Nomination is how the LLM route's offline stage covers one set.
type Nomination struct {
	Sessions, Candidates int
	// Lessons, and those a candidate of their session holds the words of
	// (the model can only state what it is shown).
	Lessons, Covered int
	ByClass          map[string]*[2]int
	// PromptBytes: what the nominated turns cost to send, against the
	// whole sessions the model was sent before.
	PromptBytes, WholeBytes int
	Calls, WholeCalls       int
}

// MeasureNomination nominates the candidates of every session of the cases.
func MeasureNomination(cases []*Case, root string, opt transcript.Options) (map[string]*Nomination, error) {
	out := map[string]*Nomination{}
	for _, set := range []string{Dev, Holdout} {
		out[set] = &Nomination{ByClass: map[string]*[2]int{}}
	}
	r := &llm.Runner{Redact: redact.Text}
	for _, c := range cases {
		n := out[c.Set]
		chs, err := Channels(c, root, opt)
		if err != nil {
			return nil, err
		}
		texts := map[string][]string{}
		for _, ch := range chs {
			n.Sessions++
			cands := llm.Nominate(ch)
			n.Candidates += len(cands)
			sid := ""
			if len(ch.UserSignals) > 0 {
				sid = ch.UserSignals[0].SessionID
			}
			for _, cd := range cands {
				texts[sid] = append(texts[sid], strings.Join(append(append([]string{cd.Before, cd.Person, cd.After, cd.Failed, cd.Error}, cd.Tools...), cd.Then...), " "))
			}
			if p, ok := r.Prompt(llm.Request{Session: sid, Candidates: cands}); ok {
				n.PromptBytes += len(p)
				n.Calls++
			}
			if p, ok := r.Prompt(llm.Request{Session: sid, Signals: ch.UserSignals, Pairs: ch.DialogPairs}); ok {
				n.WholeBytes += len(p)
				n.WholeCalls++
			}
		}
		for i := range c.Lessons {
			l := &c.Lessons[i]
			hit := false
			for sid, ts := range texts {
				for _, t := range ts {
					o := extract.Observation{Pattern: t, SessionID: sid}
					if Names(c, &Label{Match: l.Match, Session: l.Session}, &o) {
						hit = true
					}
				}
			}
			n.Lessons++
			if n.ByClass[l.Class] == nil {
				n.ByClass[l.Class] = &[2]int{}
			}
			n.ByClass[l.Class][0]++
			if hit {
				n.Covered++
				n.ByClass[l.Class][1]++
			}
		}
	}
	return out, nil
}

// Recorded is the LLM route replayed from recorded answers: for each case
// that has one (dir/<case name>.json: a JSON object from the session's id
// in the case to what the model printed), the nominated turns of each
// session, and the answer read exactly as a live one is (llm.Runner.Answer:
// validated, cleaned, redacted). Cases without answers are left out.
func Recorded(cases []*Case, dir string) ([]*Case, func(c *Case) Extractor, error) {
	var with []*Case
	answers := map[string]map[string]string{}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(dir, c.Name+".json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", filepath.Join(dir, c.Name+".json"), err)
		}
		answers[c.Name] = map[string]string{}
		for sid, v := range m {
			b, _ := json.Marshal(v)
			answers[c.Name][sid] = string(b)
		}
		with = append(with, c)
	}
	x := func(c *Case) Extractor {
		return func(chs []*transcript.Channels) []extract.Observation {
			r := &llm.Runner{Redact: redact.Text}
			var out []extract.Observation
			for i, ch := range chs {
				id := fmt.Sprintf("s%d", i+1)
				if i < len(c.Sessions) {
					id = c.Sessions[i].ID
				}
				ans, ok := answers[c.Name][id]
				if !ok {
					continue
				}
				sid := ""
				if i < len(c.Sessions) {
					sid = SessionID(c, &c.Sessions[i])
				}
				obs, err := r.Answer([]byte(ans), llm.Request{Session: sid, Candidates: llm.Nominate(ch)}, "recorded answer of "+c.Name+"/"+id)
				if err != nil {
					continue
				}
				out = append(out, obs...)
			}
			return out
		}
	}
	return with, x, nil
}

// ScoreEach scores each case with its own extractor.
func ScoreEach(cases []*Case, root string, opt transcript.Options, x func(*Case) Extractor) []*Result {
	var out []*Result
	for _, c := range cases {
		out = append(out, Score([]*Case{c}, root, opt, x(c))...)
	}
	return out
}

// Routes is every figure of the routes beyond the offline extractors.
type Routes struct {
	Nudge      map[string]*Nudge      `json:"nudge"`
	Nomination map[string]*Nomination `json:"nomination"`
	Agent      *Report                `json:"agent_replay"`
	AgentCases int                    `json:"agent_replay_cases"`
	LLM        *Report                `json:"llm_recorded"`
	LLMCases   int                    `json:"llm_recorded_cases"`
	// Tokens (knowledge.Tokens, a character count over four).
	TeachTokens, NudgeTokens, BlockTokens, Blocks int
}

// MeasureRoutes measures both routes: the nudge and the nomination on the
// labelled set, the agent's blocks replayed from agentDir, the model's
// answers replayed from llmDir.
func MeasureRoutes(cases []*Case, root, agentDir, llmDir string, opt transcript.Options) (*Routes, error) {
	var err error
	rt := &Routes{TeachTokens: knowledge.Tokens(hook.TeachText), NudgeTokens: knowledge.Tokens(hook.NudgeNote)}
	if rt.Nudge, err = MeasureNudge(cases, root, opt); err != nil {
		return nil, err
	}
	if rt.Nomination, err = MeasureNomination(cases, root, opt); err != nil {
		return nil, err
	}
	replay, err := Load(agentDir)
	if err != nil {
		return nil, err
	}
	rt.AgentCases = len(replay)
	rt.Agent = Summarize(Score(withoutTypes(replay), root, opt, AgentReplay))
	if rt.BlockTokens, rt.Blocks, err = BlockTokens(replay, root, opt); err != nil {
		return nil, err
	}
	with, x, err := Recorded(cases, llmDir)
	if err != nil {
		return nil, err
	}
	rt.LLMCases = len(with)
	rt.LLM = Summarize(ScoreEach(with, root, opt, x))
	return rt, nil
}

// WriteRoutes prints the routes' section of the report.
func WriteRoutes(w io.Writer, rt *Routes) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	frac := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f (%d/%d)", float64(a)/float64(b), a, b)
	}
	sets := []string{Dev, Holdout}
	fmt.Fprintln(tw, "The agent as extractor")
	fmt.Fprintln(tw, "  the prompt hook\t"+strings.Join(sets, "\t"))
	line := func(name string, cell func(set string) string) {
		cells := []string{"  " + name}
		for _, s := range sets {
			cells = append(cells, cell(s))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	line("lessons nudged (person classes)", func(s string) string { n := rt.Nudge[s]; return frac(n.Nudged, n.Lessons) })
	for _, cl := range personClasses {
		line("  "+cl, func(s string) string {
			if v := rt.Nudge[s].ByClass[cl]; v != nil {
				return frac(v[1], v[0])
			}
			return "-"
		})
	}
	var langs []string
	for l := range rt.Nudge[Dev].ByLang {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		line("  "+l, func(s string) string {
			if v := rt.Nudge[s].ByLang[l]; v != nil {
				return frac(v[1], v[0])
			}
			return "-"
		})
	}
	line("person turns flagged", func(s string) string { n := rt.Nudge[s]; return frac(n.Flagged, n.Turns) })
	line("  in cases without a lesson", func(s string) string { n := rt.Nudge[s]; return frac(n.NoiseFlagged, n.NoiseTurns) })
	line("kept at once (active): recall", func(s string) string { k := rt.Nudge[s].Kept; return frac(k.Found, k.Lessons) })
	line("  noise rate", func(s string) string { k := rt.Nudge[s].Kept; return frac(k.Noise, k.Kept) })
	fmt.Fprintln(tw)
	a := rt.Agent.Sets[Dev]
	fmt.Fprintf(tw, "  blocks replayed (%d hand-written sessions)\trecall %s\tnoise %s\n", rt.AgentCases, frac(a.All.Found, a.All.Lessons), frac(a.All.Noise, a.All.Kept))
	fmt.Fprintf(tw, "  tokens\tteaching %d once a session\tnudge %d a flagged prompt\tblock %d a lesson (mean of %d)\n", rt.TeachTokens, rt.NudgeTokens, rt.BlockTokens, rt.Blocks)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "The LLM route")
	fmt.Fprintln(tw, "  nomination\t"+strings.Join(sets, "\t"))
	line("lessons a candidate shows", func(s string) string { n := rt.Nomination[s]; return frac(n.Covered, n.Lessons) })
	for _, cl := range LessonClasses {
		line("  "+cl, func(s string) string {
			if v := rt.Nomination[s].ByClass[cl]; v != nil {
				return frac(v[1], v[0])
			}
			return "-"
		})
	}
	line("candidates a session", func(s string) string {
		n := rt.Nomination[s]
		if n.Sessions == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f (%d/%d)", float64(n.Candidates)/float64(n.Sessions), n.Candidates, n.Sessions)
	})
	line("model calls (whole sessions before)", func(s string) string {
		n := rt.Nomination[s]
		return fmt.Sprintf("%d (%d)", n.Calls, n.WholeCalls)
	})
	line("prompt KB (whole sessions before)", func(s string) string {
		n := rt.Nomination[s]
		return fmt.Sprintf("%.0f (%.0f)", float64(n.PromptBytes)/1024, float64(n.WholeBytes)/1024)
	})
	l := rt.LLM.Sets[Dev]
	h := rt.LLM.Sets[Holdout]
	fmt.Fprintf(tw, "  recorded answers (%d cases)\trecall %s\tnoise %s\n", rt.LLMCases, frac(l.All.Found+h.All.Found, l.All.Lessons+h.All.Lessons), frac(l.All.Noise+h.All.Noise, l.All.Kept+h.All.Kept))
	return tw.Flush()
}
