package hook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/worker"
)

// sessionEnd is SessionEnd's input, as Claude Code sends it.
func (p *proj) sessionEnd(id string) map[string]any {
	return map[string]any{
		"session_id": id, "transcript_path": filepath.Join(p.root, ".home/.claude/projects/-repo/"+id+".jsonl"),
		"cwd": p.root, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "permission_mode": "default",
	}
}

func (p *proj) starts() *[]string {
	var started []string
	p.env.StartWorker = func(pr *project.Project) error {
		started = append(started, pr.Root)
		return nil
	}
	return &started
}

func (p *proj) waiting() int {
	p.t.Helper()
	pr, _ := project.Find(p.root)
	n, err := worker.For(pr).Waiting()
	if err != nil {
		p.t.Fatal(err)
	}
	return n
}

func TestSessionEndSpoolsAndStartsAWorkerPerBatch(t *testing.T) {
	p := newProj(t)
	started := p.starts()
	for i, id := range []string{"s1", "s2"} {
		if out := p.run(SessionEnd, p.sessionEnd(id)); out != "" {
			t.Fatalf("session end printed %q", out)
		}
		if p.waiting() != i+1 || len(*started) != 0 {
			t.Fatalf("after %s: %d waiting, %d started", id, p.waiting(), len(*started))
		}
	}
	p.run(SessionEnd, p.sessionEnd("s3")) // the default batch size is 3
	if len(*started) != 1 || (*started)[0] != p.root {
		t.Fatalf("started %v", *started)
	}
	pr, _ := project.Find(p.root)
	data, _ := os.ReadFile(filepath.Join(worker.For(pr).Dir, "spool", "s3.json"))
	var e worker.Entry
	if json.Unmarshal(data, &e) != nil || e.Root != p.root || e.Reason != "prompt_input_exit" || !strings.HasSuffix(e.TranscriptPath, "/s3.jsonl") || e.EndedAt != "2026-05-10T09:00:00Z" {
		t.Fatalf("spool entry: %s", data)
	}
	if l := p.log(); l != "" {
		t.Fatalf("log: %s", l)
	}
}

func TestSessionEndWhileAWorkerRuns(t *testing.T) {
	p := newProj(t)
	p.file(".memory/learning.json", `{"worker": {"batch_size": 1}}`)
	started := p.starts()
	pr, _ := project.Find(p.root)
	unlock, ok, err := jsonl.TryLock(worker.For(pr).LockPath())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	p.run(SessionEnd, p.sessionEnd("s1"))
	if len(*started) != 0 || p.waiting() != 1 {
		t.Fatalf("started %d beside a running worker; %d waiting", len(*started), p.waiting())
	}
	unlock()
	p.run(SessionEnd, p.sessionEnd("s2"))
	if len(*started) != 1 || p.waiting() != 2 {
		t.Fatalf("started %d; %d waiting", len(*started), p.waiting())
	}
}

func TestSessionEndOverTheCapLogsAndKeeps(t *testing.T) {
	p := newProj(t)
	p.file(".memory/learning.json", `{"worker": {"batch_size": 1, "daily_cap": 0}}`)
	started := p.starts()
	p.run(SessionEnd, p.sessionEnd("s1"))
	if len(*started) != 0 || p.waiting() != 1 || !strings.Contains(p.log(), "worker.daily_cap is 0, so no worker starts: 1 session waits") {
		t.Fatalf("started %d, %d waiting, log %q", len(*started), p.waiting(), p.log())
	}
}

func TestSessionEndFailingToStartKeepsTheSpool(t *testing.T) {
	p := newProj(t)
	p.file(".memory/learning.json", `{"worker": {"batch_size": 1}}`)
	p.env.StartWorker = func(*project.Project) error { return errors.New("fork: resource temporarily unavailable") }
	if out := p.run(SessionEnd, p.sessionEnd("s1")); out != "" {
		t.Fatal(out)
	}
	if p.waiting() != 1 || !strings.Contains(p.log(), "starting the worker: fork: resource temporarily unavailable (nothing is lost: the spool keeps every ended session for the next try)") {
		t.Fatalf("%d waiting; log %q", p.waiting(), p.log())
	}
}

func TestSessionEndQuietCases(t *testing.T) {
	for name, setup := range map[string]func(p *proj){
		"silenced": func(p *proj) { p.env.Silenced = true },
		"disabled": func(p *proj) { p.file(".memory/learning.json", `{"enabled": false}`) },
		"no .memory": func(p *proj) {
			os.RemoveAll(filepath.Join(p.root, ".memory"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := newProj(t)
			p.file(".memory/learning.json", `{"worker": {"batch_size": 1}}`)
			setup(p)
			started := p.starts()
			p.run(SessionEnd, p.sessionEnd("s1"))
			if len(*started) != 0 || p.waiting() != 0 {
				t.Fatalf("started %d, %d waiting", len(*started), p.waiting())
			}
		})
	}
	p := newProj(t)
	p.run(SessionEnd, `{"cwd": "`+p.root+`", "hook_event_name": "SessionEnd"}`)
	if p.waiting() != 0 || !strings.Contains(p.log(), "no session_id") {
		t.Fatalf("log %q", p.log())
	}
}

const block = "Done.\n\n[PROCESS_KNOWLEDGE]\nsummary: Regenerate the mocks after changing an interface\nkind: checklist\npriority: HIGH\ntriggers:\n  tools: [Edit]\n  files: [\"internal/**/*.go\"]\nbody: |\n  - [ ] go generate ./...\n  - [ ] token ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y stays out\n[/PROCESS_KNOWLEDGE]\n"

func (p *proj) candidates() []string {
	p.t.Helper()
	ents, _ := os.ReadDir(filepath.Join(p.root, ".memory/knowledge/entries"))
	var out []string
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(p.root, ".memory/knowledge/entries", e.Name()))
		out = append(out, e.Name()+"\n"+string(data))
	}
	return out
}

func stopInput(p *proj, msg, transcript string, active bool) map[string]any {
	in := map[string]any{"session_id": "s1", "cwd": p.root, "hook_event_name": "Stop", "stop_hook_active": active, "transcript_path": transcript}
	if msg != "" {
		in["last_assistant_message"] = msg
	}
	return in
}

func TestStopSavesABlockAsADraft(t *testing.T) {
	p := newProj(t)
	p.env.Redact = redact.Text
	if out := p.run(Stop, stopInput(p, block, "", false)); out != "" {
		t.Fatalf("the Stop hook printed %q (it never blocks)", out)
	}
	got := p.candidates()
	if len(got) != 1 || !strings.HasPrefix(got[0], "regenerate-the-mocks-after-changing-an-interface-") ||
		!strings.Contains(got[0], "status: draft") || !strings.Contains(got[0], "source: stop-hook") || strings.Contains(got[0], "ghp_R8s9") {
		t.Fatalf("candidates: %q; log %q", got, p.log())
	}
	audit, _ := os.ReadFile(filepath.Join(p.root, evolve.LogPath))
	if !strings.Contains(string(audit), `"command":"hook stop"`) || !strings.Contains(string(audit), `"session":"s1"`) {
		t.Fatalf("audit: %s", audit)
	}
	// The same block again (the worker reading the transcript, or a second
	// Stop): one file.
	p.run(Stop, stopInput(p, block, "", false))
	pr, _ := project.Find(p.root)
	blocks, _ := extract.ParseKnowledgeBlocks(block, extract.Options{Redact: redact.Text})
	st := ingestStore(pr)
	if sc, err := ingest.SaveCandidate(context.Background(), st, blocks[0], ingest.SourceTranscript, "worker"); err != nil || sc.Created {
		t.Fatalf("the worker wrote a second candidate: %+v %v", sc, err)
	}
	if len(p.candidates()) != 1 {
		t.Fatalf("candidates: %d", len(p.candidates()))
	}
}

func TestStopReadsTheTranscriptTailWithoutLastMessage(t *testing.T) {
	p := newProj(t)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	rec := func(typ, uuid string, content any) string {
		b, _ := json.Marshal(map[string]any{"type": typ, "uuid": uuid, "sessionId": "s1", "cwd": p.root, "timestamp": "2026-05-10T08:59:00Z",
			"message": map[string]any{"role": typ, "content": content}})
		return string(b)
	}
	lines := []string{
		rec("user", "u1", "Refactor the store"),
		rec("assistant", "a1", []map[string]any{{"type": "text", "text": "Earlier turn, no block."}}),
		rec("user", "u2", "And the mocks?"),
		rec("assistant", "a2", []map[string]any{{"type": "text", "text": "Regenerated."}}),
		rec("assistant", "a3", []map[string]any{{"type": "text", "text": block}}),
	}
	os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	p.run(Stop, stopInput(p, "", tr, false))
	if got := p.candidates(); len(got) != 1 || !strings.Contains(got[0], "go generate") {
		t.Fatalf("candidates %q; log %q", got, p.log())
	}
}

func TestStopQuietCases(t *testing.T) {
	p := newProj(t)
	p.run(Stop, stopInput(p, block, "", true)) // stop_hook_active
	p.run(Stop, stopInput(p, "All done, nothing to record.", "", false))
	p.run(Stop, stopInput(p, "Emit a [PROCESS_KNOWLEDGE] block next time.", "", false)) // prose, not a block
	p.run(Stop, stopInput(p, "", filepath.Join(t.TempDir(), "missing.jsonl"), false))
	if got := p.candidates(); len(got) != 0 {
		t.Fatalf("candidates: %q", got)
	}
	if !strings.Contains(p.log(), "missing.jsonl") {
		t.Fatalf("a missing transcript was not logged: %q", p.log())
	}
	// A FIFO as the transcript: opening it would wait for a writer for ever.
	if fifo := filepath.Join(t.TempDir(), "fifo.jsonl"); mkfifo(fifo) == nil {
		done := make(chan struct{})
		go func() { p.run(Stop, stopInput(p, "", fifo, false)); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the stop hook hangs on a FIFO transcript")
		}
		if !strings.Contains(p.log(), "not a regular file") {
			t.Fatalf("not logged: %q", p.log())
		}
	}
	p.run(Stop, stopInput(p, "[PROCESS_KNOWLEDGE]\nsummary: [unclosed\n[/PROCESS_KNOWLEDGE]", "", false))
	if got := p.candidates(); len(got) != 0 || !strings.Contains(p.log(), "knowledge block at line 1") {
		t.Fatalf("candidates %q, log %q", got, p.log())
	}
}

func ingestStore(p *project.Project) *entrystore.Store {
	return entrystore.Project(p, evolve.New(p, now, evolve.Trigger{Command: "worker"}))
}

// Error lines quote learned text; a secret in it is redacted before the
// line reaches the log.
func TestTheLogIsRedacted(t *testing.T) {
	p := newProj(t)
	p.env.Redact = redact.Text
	p.run(Stop, stopInput(p, "[PROCESS_KNOWLEDGE]\nsummary: deploy keys\nAKIA454ML6LG4TJFCZ4K: 1\n[/PROCESS_KNOWLEDGE]", "", false))
	log := p.log()
	if !strings.Contains(log, "unknown key") || strings.Contains(log, "AKIA454ML6LG4TJFCZ4K") {
		t.Fatalf("log: %q", log)
	}
}
