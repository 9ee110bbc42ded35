package hook

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
)

// BenchmarkSessionEnd is the SessionEnd hook's own work, in process: find
// the project, load the config, spool the session, check the batch (the
// names in the spool, the run counter, the lock), start the worker when
// one is due (a starter that does nothing here: scripts/benchtable
// times the real one).
func BenchmarkSessionEnd(b *testing.B) {
	for _, c := range []struct{ name, config string }{
		{"spooled", `{"worker": {"batch_size": 1000}}`},
		{"due", `{"worker": {"batch_size": 1, "daily_cap": 1000}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			root := sessionEndRoot(b, c.config)
			started := 0
			env := Env{Dir: root, Now: time.Now, StartWorker: func(*project.Project) error { started++; return nil }}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Each session is new and finds the spool empty, as most do.
				b.StopTimer()
				emptySpool(b, root)
				b.StartTimer()
				Run(context.Background(), SessionEnd, env, bytes.NewReader(sessionEndInput(root, i)), io.Discard)
			}
			b.StopTimer()
			if (started > 0) != (c.name == "due") {
				b.Fatalf("%d workers started", started)
			}
		})
	}
}
