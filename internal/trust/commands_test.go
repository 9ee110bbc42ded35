package trust

import (
	"slices"
	"testing"
)

func TestCommandsNamesWhatNeedsTrust(t *testing.T) {
	data := []byte(`{"extractor":{"command":["llm","-m","x"],"llm":true},"gates":{"stop":[{"name":"test","command":"make test"}]}}`)
	got := Commands(data)
	for _, want := range []string{
		"extractor.command = llm -m x",
		"extractor.llm = true (the LLM extractor's command runs after sessions end)",
		"gates.stop: test = make test",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Commands() = %q, missing %q", got, want)
		}
	}
	if got := Commands([]byte(`{"worker":{"batch_size":5}}`)); got != nil {
		t.Errorf("a config without commands lists %q", got)
	}
}
