package observe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// Appenders in many processes race a process that compacts in a loop. The
// lock is taken before the log is opened, so no append can land in a file
// that compaction has already replaced: every sighting must survive.
func TestAppendsSurviveConcurrentCompaction(t *testing.T) {
	if os.Getenv("OBSERVE_CHILD") != "" {
		return
	}
	dir := t.TempDir()
	env := []string{"OBSERVE_LOG=" + filepath.Join(dir, "learning-log.jsonl"), "OBSERVE_LOCK=" + filepath.Join(dir, "log.lock")}
	const appenders, each = 8, 40
	start := func(role string, n int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperObserveChild$")
		cmd.Env = append(append(os.Environ(), env...), "OBSERVE_CHILD="+role, "OBSERVE_N="+strconv.Itoa(n))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
		return cmd
	}
	compactor := start("compact", 30)
	var cmds []*exec.Cmd
	for i := 0; i < appenders; i++ {
		cmds = append(cmds, start("append"+strconv.Itoa(i), each))
	}
	for _, c := range append(cmds, compactor) {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := LoadFile(filepath.Join(dir, "learning-log.jsonl"))
	if err != nil || len(l.Problems) > 0 {
		t.Fatal(err, l.Problems)
	}
	o, ok := l.Observation(ID(Pitfall, "shared lesson"), t0, config.Default())
	if !ok || o.Count != appenders*each {
		t.Fatalf("count %d, want %d (every sighting from its own session)", o.Count, appenders*each)
	}
}

func TestHelperObserveChild(t *testing.T) {
	role := os.Getenv("OBSERVE_CHILD")
	if role == "" {
		t.Skip("only runs as a child of TestAppendsSurviveConcurrentCompaction")
	}
	st := Store{Root: filepath.Dir(os.Getenv("OBSERVE_LOG")), Path: os.Getenv("OBSERVE_LOG"), LockPath: os.Getenv("OBSERVE_LOCK")}
	n, _ := strconv.Atoi(os.Getenv("OBSERVE_N"))
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if role == "compact" {
			if _, err := st.Compact(ctx, t0, config.Default()); err != nil {
				t.Fatal(err)
			}
			continue
		}
		q := true
		s := Sighting{Type: Pitfall, Pattern: "shared lesson", QualityOK: &q}
		if err := s.Clean(nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := st.Append(ctx, ObserveEvent(s, fmt.Sprintf("%s-%d", role, i), day(float64(i%5)))); err != nil {
			t.Fatal(err)
		}
	}
}
