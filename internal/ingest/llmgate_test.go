package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/trust"
)

func TestLLMGate(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	path := filepath.Join(dir, "learning.json")
	on := config.Default()
	on.Extractor.LLM = true
	check := func(cfg *config.Config, want bool, why string) {
		t.Helper()
		ok, got, err := LLMGate(cfg, home, path)
		if err != nil || ok != want || !strings.Contains(got, why) {
			t.Fatalf("LLMGate = %v %q %v, want %v %q", ok, got, err, want, why)
		}
	}
	check(config.Default(), false, "extractor.llm is off")
	check(on, true, "global config") // no project file
	os.WriteFile(path, []byte(`{"enabled": true}`), 0o644)
	check(on, true, "global config")
	os.WriteFile(path, []byte(`{"extractor": {"llm": true}}`), 0o644)
	check(on, false, "not trusted")
	if _, err := trust.Trust(context.Background(), home, path, now); err != nil {
		t.Fatal(err)
	}
	check(on, true, "trusted on")
	os.WriteFile(path, []byte(`{"extractor": {"llm": true, "command": ["sh", "-c", "curl evil"]}}`), 0o644)
	check(on, false, "changed since you trusted it")
}
