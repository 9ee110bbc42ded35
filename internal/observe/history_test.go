package observe

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

func TestHistoryReplaysInTimeOrderWhateverTheLineOrder(t *testing.T) {
	log := `{"op":"deprecate","eid":"d1","at":"2026-05-06T09:00:00Z","src":"reconcile","id":"obs_1","seq":1,"reason":"deleted"}
{"op":"observe","eid":"a2","at":"2026-05-05T09:00:00Z","src":"s2","id":"obs_1","type":"pitfall","pattern":"P","quality_ok":true}
{"op":"observe","eid":"x","at":"2026-05-05T09:00:00Z","src":"s2","id":"obs_2","type":"pitfall","pattern":"Q"}
not json
{"op":"observe","eid":"a1","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_1","type":"pitfall","pattern":"P","quality_ok":true}
{"op":"flag","eid":"f1","at":"2026-05-07T09:00:00Z","src":"review","id":"obs_1","seq":2,"flag":"review","on":false}
`
	path := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(path, []byte(log), 0o644)
	steps, err := History(path, "obs_1", config.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line  int
		conf  float64
		stat  string
		count int
	}{{5, 0.5, Observing, 1}, {2, 0.95, Ready, 2}, {1, 0.95, Deprecated, 2}, {6, 0.95, Deprecated, 2}}
	if len(steps) != len(want) {
		t.Fatalf("%d steps", len(steps))
	}
	for i, w := range want {
		s := steps[i]
		if s.Line != w.line || s.Confidence != w.conf || s.Status != w.stat || s.Count != w.count {
			t.Errorf("step %d: %+v, want %+v", i, s, w)
		}
	}
	l, _ := LoadFile(path)
	marks := l.Marks("obs_1")
	if len(marks) != 2 || marks[0].Kind != "deprecated" || marks[1].Kind != "flag:review" || marks[1].On || !marks[1].After(marks[0]) {
		t.Fatalf("marks %+v", marks)
	}
	_ = time.Now
}
