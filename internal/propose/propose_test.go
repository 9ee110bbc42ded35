package propose

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/observe"
)

func TestOf(t *testing.T) {
	for _, c := range []struct{ text, list, command string }{
		{"Run `gosec ./...` before committing", "stop", "gosec ./..."},
		{"Always run make lint before you push", "stop", "make lint"},
		{"Run go vet ./... before each commit", "stop", "go vet ./..."},
		{"run `npm audit --production` before a release", "pre.done", "npm audit --production"},
		{"Run golangci-lint run after tests", "post.verify", "golangci-lint run"},
		{"Run the tests before committing", "", ""},
		{"Run all checks before pushing", "", ""},
		{"Keep configuration in plain JSON files", "", ""},
		{"Run `rm -rf /` whenever", "", ""},
	} {
		p, ok := of(observe.Observation{ID: "obs_1", Pattern: c.text, Status: observe.Created})
		if c.list == "" {
			if ok {
				t.Errorf("%q proposed %+v", c.text, p)
			}
			continue
		}
		if !ok || p.List != c.list || p.Gate.Command != c.command || !p.Gate.Required || !strings.HasPrefix(p.ID, "gate-") {
			t.Errorf("%q: %+v %v, want %s %q", c.text, p, ok, c.list, c.command)
		}
	}
}

func TestAcceptAddsTheGateAndKeepsTheFile(t *testing.T) {
	p, _ := of(observe.Observation{ID: "obs_1", Pattern: "Run `gosec ./...` before committing"})
	in := []byte(`{"$schema": "./learning.schema.json", "enabled": true, "worker": {"batch_size": 2}}`)
	out, err := Accept(".memory/learning.json", in, p)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("x", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Gates.Stop) != 1 || cfg.Gates.Stop[0].Command != "gosec ./..." || cfg.Worker.BatchSize != 2 {
		t.Fatalf("%s", out)
	}
	// Already there: proposed no more.
	log := observe.NewLog()
	if got := Find(log, []observe.Observation{{ID: "obs_1", Pattern: "Run `gosec ./...` before committing", Status: observe.Created}}, cfg); len(got) != 0 {
		t.Fatalf("%+v", got)
	}
}
