package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
)

func (p *proj) prompt(session, text string) string {
	return p.run(UserPromptSubmit, map[string]any{"session_id": session, "cwd": p.root, "hook_event_name": "UserPromptSubmit", "prompt": text})
}

func (p *proj) stop(session, msg string) string {
	return p.run(Stop, map[string]any{"session_id": session, "cwd": p.root, "hook_event_name": "Stop", "last_assistant_message": msg})
}

func (p *proj) entries() map[string]*knowledge.Entry {
	p.t.Helper()
	out := map[string]*knowledge.Entry{}
	dir := filepath.Join(p.root, ".memory/knowledge/entries")
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		e, err := knowledge.ReadEntry(filepath.Join(dir, de.Name()), de.Name())
		if err != nil {
			p.t.Fatal(err)
		}
		out[e.Key] = e
	}
	return out
}

const pushBlock = "Understood.\n\n[PROCESS_KNOWLEDGE]\ntype: requirement\nlabel: Never run git push; the person pushes after review\ntrigger_conditions: {tool_names: [Bash], action_keywords: [git push]}\n[/PROCESS_KNOWLEDGE]"

// A block that restates, in the same session, what the person asked to
// keep is kept as a draft beside it (it may say more), and escalates
// nothing; in a later session, the same lesson written by the agent is
// the mistake repeated, and the person's entry becomes CRITICAL.
func TestStopBlockRestatingAKeptLesson(t *testing.T) {
	p := newProj(t)
	if out := p.prompt("s1", "Remember: never run git push yourself"); !strings.Contains(out, "saved as an active project entry") {
		t.Fatalf("prompt: %q; log %q", out, p.log())
	}
	var kept *knowledge.Entry
	for _, e := range p.entries() {
		kept = e
	}
	p.stop("s1", pushBlock)
	got := p.entries()
	if len(got) != 2 || got[kept.Key].Priority == "CRITICAL" || got[kept.Key].Status != knowledge.StatusActive {
		t.Fatalf("same session: %v %+v", keys(got), got[kept.Key])
	}
	for k, e := range got {
		if k != kept.Key && e.Status != knowledge.StatusDraft {
			t.Fatalf("the block: %+v", e)
		}
	}
	// A later session: the agent writes the same lesson again.
	p.stop("s2", pushBlock)
	if e := p.entries()[kept.Key]; e == nil || e.Priority != "CRITICAL" {
		t.Fatalf("after a second session: %+v (log %q)", e, p.log())
	}
}

// A correction-like prompt is nudged; an ordinary one is not, unless it
// opens its session (a short one does not); the nudge stays out when
// extractor.agent is off.
func TestNudge(t *testing.T) {
	p := newProj(t)
	if out := p.prompt("s1", "add a --json flag to the list command"); !strings.Contains(decode(t, out).AdditionalContext, OpeningNote) {
		t.Fatalf("first prompt: %q", out)
	}
	if out := p.prompt("s1", "add a --json flag to the list command"); out != "" {
		t.Fatalf("ordinary prompt: %q", out)
	}
	if out := p.prompt("s0", "continue"); out != "" {
		t.Fatalf("a short first prompt: %q", out)
	}
	if out := p.prompt("s1", "no, use the other flag name instead"); !strings.Contains(decode(t, out).AdditionalContext, NudgeNote) {
		t.Fatalf("correction: %q", out)
	}
	p.file(".memory/learning.json", `{"extractor": {"agent": false}}`)
	if out := p.prompt("s1", "no, use the other flag name instead"); out != "" {
		t.Fatalf("extractor.agent off: %q", out)
	}
	if out := p.prompt("s2", "add a --json flag to the list command"); out != "" {
		t.Fatalf("extractor.agent off, first prompt: %q", out)
	}
}

func keys(m map[string]*knowledge.Entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A prompt is redacted once per run, however many of its readers need it
// redacted: the prompt recorded, and the lessons read from a prompt that
// may be a correction or asks to keep one.
func TestPromptRedactedOnce(t *testing.T) {
	p := newProj(t)
	for _, prompt := range []string{
		"add a --json flag to the list command",
		"no, use the other flag name instead",
		"Remember: never run git push yourself",
	} {
		calls := 0
		p.env.Redact = func(s string) string {
			if s == prompt {
				calls++
			}
			return s
		}
		p.prompt("s1", prompt)
		if calls != 1 {
			t.Errorf("%q: redacted %d times", prompt, calls)
		}
	}
}
