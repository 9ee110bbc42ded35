package extract

import (
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// wrote is a session whose person said what is given, then whose agent
// wrote text into the file at p.
func wrote(said, p, text string) *transcript.Channels {
	ch := session("w", "user: "+said, "assistant: ok", "write: "+p)
	ch.Tools[0].Wrote = text
	return ch
}

// approvedWrite is wrote with the person's second turn, an approval of
// the agent's plan, before the write.
func approvedWrite(said, approval, p, text string) *transcript.Channels {
	ch := session("w", "user: "+said, "assistant: Plan: I'll record it. Go ahead?", "user: "+approval, "assistant: ok", "write: "+p)
	ch.Tools[0].Wrote = text
	return ch
}

func patterns(obs []Observation) []string {
	var out []string
	for _, o := range obs {
		out = append(out, o.Type+": "+o.Pattern)
	}
	return out
}

func TestWrittenLessons(t *testing.T) {
	memory := "/home/me/.claude/projects/-repo/memory/"
	for _, c := range []struct {
		name      string
		ch        *transcript.Channels
		want      []string
		wantClass string
	}{
		{"a rule the person asked to keep, written into CLAUDE.md", wrote("このノウハウをCLAUDE.mdに記録しておいて", "/repo/CLAUDE.md",
			"## APK\n\n- APKのアイコンを差し替えたら、必ず `zip -r -0` で無圧縮のまま詰め直す（圧縮するとインストールできない）\n"),
			[]string{"procedural: APKのアイコンを差し替えたら、必ず `zip -r -0` で無圧縮のまま詰め直す（圧縮するとインストールできない）"}, ClassWritten},
		{"the agent's memory: its description, recorded as a memory found on disk is", wrote("ok", memory+"feedback_push.md",
			"---\nname: No pushing\ndescription: Never run git push yourself; stop before it and show the steps.\ntype: feedback\n---\n\nThe person pushes by hand.\n\n**Why:** they review first.\n"),
			[]string{"pitfall: Never run git push yourself; stop before it and show the steps."}, ClassWritten},
		{"a memory of the work: a decision", wrote("ok", memory+"project_db.md",
			"---\nname: Database\ndescription: The billing service keeps its data in Postgres 16, never in the shared MySQL.\ntype: project\n---\n"),
			[]string{"decision: The billing service keeps its data in Postgres 16, never in the shared MySQL."}, ClassWritten},
		{"a memory of the person, or pointing elsewhere, stays on their machine", wrote("ok", memory+"user_role.md",
			"---\nname: Role\ndescription: The person is a data scientist new to Go and wants every step explained.\ntype: user\n---\n"), nil, ""},
		{"the memory index, or an edit of a memory, is no memory whole", wrote("ok", memory+"MEMORY.md",
			"- [No pushing](feedback_push.md) — never push yourself\n- Always use pnpm, never npm, in this repository.\n"), nil, ""},
		{"written unasked into CLAUDE.md (an overview at /init): none", wrote("/init", "/repo/CLAUDE.md",
			"# Project\n\nAlways run the tests with make test before committing.\n"), nil, ""},
		{"asked, but only an overview and code: none", wrote("remember to document the layout in CLAUDE.md", "/repo/CLAUDE.md",
			"# Layout\n\n| dir | what |\n|---|---|\n| src | code |\n\n```sh\nnever run this\n```\n├─ src/ holds the sources of the whole project\n- `get_ad_sets` - Get ad sets\n"), nil, ""},
		{"an instruction file: only its rules, at most three", wrote("always keep these in CLAUDE.md", "/repo/CLAUDE.md",
			"- [Notes](docs/notes.md) — see the notes\n✅ v7.2 done, the migration is now complete\n- Always use pnpm, never npm, in this repository.\n- Never edit the generated files in gen/ by hand.\n- Always answer the person in Korean from now on.\n- Never commit the .env file of the backend folder.\n"),
			[]string{"procedural: Always use pnpm, never npm, in this repository.", "procedural: Never edit the generated files in gen/ by hand.", "procedural: Always answer the person in Korean from now on."}, ClassWritten},
		{"asked, then the plan approved with a bare yes: the ask holds", approvedWrite("同じつまづきが起きないようにこのノウハウをCLAUDE.mdに記録しておいて", "y", "/repo/CLAUDE.md",
			"- APKのアイコンを差し替えたら、必ず `zip -r -0` で無圧縮のまま詰め直す\n"),
			[]string{"procedural: APKのアイコンを差し替えたら、必ず `zip -r -0` で無圧縮のまま詰め直す"}, ClassWritten},
		{"a task, then its plan refused: the refusal is what the agent answers", approvedWrite("set up the project", "no", "/repo/CLAUDE.md",
			"- Always run the tests with make test before committing.\n"),
			[]string{"procedural: Always run the tests with make test before committing."}, ClassWritten},
		{"a task, then its plan approved: still written unasked", approvedWrite("set up the project", "ok", "/repo/CLAUDE.md",
			"- Always run the tests with make test before committing.\n"), nil, ""},
		{"a wrapped paragraph is one lesson", wrote("put this rule in AGENTS.md please", "/repo/AGENTS.md",
			"Before implementing anything, read the matching task in tasks.md;\nif what I asked is in no task, tell me instead of coding.\n"),
			[]string{"procedural: Before implementing anything, read the matching task in tasks.md; if what I asked is in no task, tell me instead of coding."}, ClassWritten},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := writtenLessons(c.ch)
			if !slices.Equal(patterns(got), c.want) {
				t.Errorf("got  %q\nwant %q", patterns(got), c.want)
			}
			for _, o := range got {
				if o.Class != c.wantClass || o.Extractor != ExtractorWritten || !o.QualityOK {
					t.Errorf("observation %+v", o)
				}
			}
		})
	}
}

// A write that failed, that the person or the harness refused, that was
// never answered, or a subagent's, keeps nothing.
func TestWrittenLessonsNeedTheCallToPass(t *testing.T) {
	for name, spoil := range map[string]func(*transcript.ToolCall){
		"failed":     func(c *transcript.ToolCall) { c.IsError = true },
		"refused":    func(c *transcript.ToolCall) { c.IsError, c.Rejected = true, true },
		"harness":    func(c *transcript.ToolCall) { c.IsError, c.Protocol = true, true },
		"unanswered": func(c *transcript.ToolCall) { c.HasResult = false },
		"subagent":   func(c *transcript.ToolCall) { c.Sidechain = true },
	} {
		ch := wrote("remember: add it to CLAUDE.md", "/repo/CLAUDE.md", "- Always run make lint before you hand it back.\n")
		spoil(&ch.Tools[0])
		if got := writtenLessons(ch); len(got) != 0 {
			t.Errorf("%s: kept %q", name, patterns(got))
		}
	}
}

// What a write answered is the person's last turn before it, not a
// refusal's reason; words that only look like a place to keep ("a memory
// leak") ask for nothing. A patch names its instruction file wherever it
// stands among its files.
func TestWrittenLessonsAskedFor(t *testing.T) {
	rule := "- Always run make lint before you hand it back.\n"
	if got := writtenLessons(wrote("fix the memory leak in the parser", "/repo/CLAUDE.md", rule)); len(got) != 0 {
		t.Errorf("not asked, kept %q", patterns(got))
	}
	ch := wrote("put it in CLAUDE.md", "/repo/CLAUDE.md", rule)
	ch.UserSignals = append(ch.UserSignals, transcript.UserSignal{Meta: transcript.Meta{Line: 2}, Own: "just do it", Rejection: true})
	if got := writtenLessons(ch); len(got) != 1 {
		t.Errorf("a refusal's reason read as what was asked: %q", patterns(got))
	}
	ch = wrote("put it in AGENTS.md", "/repo/src/main.go", rule)
	ch.Tools[0].Paths = append(ch.Tools[0].Paths, "AGENTS.md")
	if got := writtenLessons(ch); len(got) != 1 || !strings.Contains(got[0].Details, "into AGENTS.md") {
		t.Errorf("patch of code and AGENTS.md: %+v", got)
	}
	ch = wrote("ok", "/repo/src/main.go", "---\ndescription: Never run git push yourself, the person pushes by hand.\ntype: feedback\n---\n")
	ch.Tools[0].Paths = append(ch.Tools[0].Paths, "/home/me/.claude/projects/-repo/memory/feedback_push.md")
	if got := writtenLessons(ch); len(got) != 1 {
		t.Errorf("a memory named second: %+v", got)
	}
}
