package observe

import (
	"bytes"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// A committed log line with a null mark or flag must not stop every command
// that folds the log.
func TestNullMarksAndFlagsAreSkipped(t *testing.T) {
	log := `{"op":"snapshot","id":"obs_x","type":"decision","pattern":"d","sources":{"s":"2026-04-01T00:00:00Z"},"marks":{"created":null},"flags":{"stale":null}}` + "\n"
	l, err := Fold(bytes.NewReader([]byte(log)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Observation("obs_x", t0, config.Default()); !ok {
		t.Fatal("the observation was lost with its null mark")
	}
}
