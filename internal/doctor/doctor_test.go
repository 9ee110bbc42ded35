package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
)

func TestTranscriptsAreFoundByTheirCwd(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, _ := project.Find(root)
	claude := t.TempDir()
	write := func(rel, body string) {
		path := filepath.Join(claude, "projects", rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(body), 0o644)
	}
	in := Inputs{Proj: p, ClaudeDir: claude}
	// No session yet is not a failure, but a note with the next step.
	if c := transcripts(in); !c.OK || !c.Note || !strings.Contains(c.Detail, "no sessions") || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
	write("a/s1.jsonl", `{"type":"summary"}`+"\n"+`{"type":"user","cwd":"/elsewhere"}`+"\n")
	write("b/s2.jsonl", `{"type":"user","cwd":"`+filepath.Join(root, "sub")+`"}`+"\n")
	write("b/s3.jsonl", `{"type":"user","cwd":"`+root+`"}`+"\n")
	write("c/s4.jsonl", `{"type":"user","cwd":"`+root+`-other"}`+"\n")
	if c := transcripts(in); !c.OK || c.Note || c.Detail != "2 sessions for this repository" {
		t.Fatalf("%+v", c)
	}
}

func TestOnPathAndStateChecks(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, _ := project.Find(root)
	in := Inputs{Proj: p, Now: time.Now(), LookPath: func(string) (string, error) { return "", errors.New("no") }}
	if c := onPath(in); c.OK || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
	in.LookPath = func(name string) (string, error) { return "/usr/local/bin/" + name, nil }
	if c := onPath(in); !c.OK || c.Note || c.Detail != "/usr/local/bin/devlearn" {
		t.Fatalf("%+v", c)
	}
	// Without devlearn-hook the hooks still run, through devlearn: a note.
	in.LookPath = func(name string) (string, error) {
		if name == "devlearn" {
			return "/usr/local/bin/devlearn", nil
		}
		return "", errors.New("no")
	}
	if c := onPath(in); !c.OK || !c.Note || !strings.Contains(c.Fix, "devlearn-hook") {
		t.Fatalf("%+v", c)
	}
	if c := stateWritable(in); !c.OK {
		t.Fatalf("%+v", c)
	}
	os.MkdirAll(p.Path(".memory"), 0o755)
	os.WriteFile(p.Path(project.LogFile), []byte("{bad\n"), 0o644)
	if c := logReadable(in); c.OK || c.Detail != "1 corrupt line skipped (line 1)" || c.Fix != "devlearn learn --purge" {
		t.Fatalf("%+v", c)
	}
}

// Doctor asks llm.Permit's own question: any extractor key needs trust,
// not only a command, or doctor would call a file fine that Permit refuses.
func TestConfigValidAsksWhatPermitEnforces(t *testing.T) {
	for body, needs := range map[string]bool{
		`{"enabled": true}`:                           false,
		`{"serve": {"enabled": false}}`:               false,
		`{"serve": {"read_only_tools": ["command"]}}`: false,
		`{"extractor": {"llm": true}}`:                true,
		`{"extractor": {"command": ["tool"]}}`:        true,
		`{"extractor": {"model": "haiku"}}`:           true,
	} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, ".git"), 0o755)
		p, _ := project.Find(root)
		os.MkdirAll(p.Path(".memory"), 0o755)
		os.WriteFile(p.Path(project.ConfigFile), []byte(body), 0o644)
		c := configValid(Inputs{Proj: p, Home: t.TempDir()})
		if needs && (c.OK || !strings.Contains(c.Detail, "never been trusted")) {
			t.Errorf("%s: %+v, want untrusted", body, c)
		}
		if !needs && (!c.OK || !strings.Contains(c.Detail, "nothing to trust")) {
			t.Errorf("%s: %+v, want nothing to trust", body, c)
		}
	}
}

// Doctor counts what ingest reads: a subagent's agent-*.jsonl comes with
// its session and is no session of its own, and a repository opened
// through a symlink is found by the resolved folder Claude Code records.
func TestTranscriptsCountWhatIngestReads(t *testing.T) {
	real := t.TempDir()
	os.MkdirAll(filepath.Join(real, ".git"), 0o755)
	real, _ = filepath.EvalSymlinks(real)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	p, _ := project.Find(link)
	claude := t.TempDir()
	write := func(rel, body string) {
		path := filepath.Join(claude, "projects", rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(body), 0o644)
	}
	write("b/s1.jsonl", `{"type":"user","cwd":"`+real+`"}`+"\n")
	write("b/agent-1.jsonl", `{"type":"user","cwd":"`+real+`"}`+"\n")
	if c := transcripts(Inputs{Proj: p, ClaudeDir: claude}); !c.OK || c.Note || c.Detail != "1 session for this repository" {
		t.Fatalf("%+v", c)
	}
}
