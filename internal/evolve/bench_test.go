package evolve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
)

// BenchmarkApply is the one writer's cost for a batch that replaces n
// small files (a render's artifacts, the Stop hook's candidate entries):
// the lock, the copies kept of what is replaced and written, the
// temporary files, one sync (which also makes the previous batch's last
// steps durable), the audit entry. new=500 is a bulk render's batch: 500
// files created in a new project. Beside the wall time, cpu-ns/op is the
// process's CPU time (user and system) in Apply: the wall time of its
// syncfs is whatever else the disk holds dirty. replace=500 replaces the
// 500 files of such a render in a project of their own: 1,000 copies
// (what each held and holds), both bulk batches keeping theirs in a pack.
func BenchmarkApply(b *testing.B) {
	for _, c := range []struct {
		n              int
		fresh, replace bool
	}{{1, false, false}, {10, false, false}, {500, true, false}, {500, true, true}} {
		name := fmt.Sprintf("files=%d", c.n)
		switch {
		case c.replace:
			name = fmt.Sprintf("replace=%d", c.n)
		case c.fresh:
			name = fmt.Sprintf("new=%d", c.n)
		}
		b.Run(name, func(b *testing.B) {
			base := b.TempDir()
			var p *project.Project
			ctx := context.Background()
			at := time.Date(2026, 5, 9, 9, 0, 0, 0, time.UTC)
			batch := func(version int) []Change {
				changes := make([]Change, c.n)
				for j := range changes {
					changes[j] = Change{Path: fmt.Sprintf(".claude/commands/self-learning/f%d.md", j), Data: []byte(fmt.Sprintf("---\nkey: f%d\n---\nversion %d of a small artifact\n", j, version))}
				}
				return changes
			}
			setup := func(i int) {
				root := filepath.Join(base, fmt.Sprint(i))
				os.MkdirAll(filepath.Join(root, ".git"), 0o755)
				var err error
				if p, err = project.Find(root); err != nil {
					b.Fatal(err)
				}
				if c.replace {
					if _, err := New(p, at, Trigger{Command: "bench"}).Apply(ctx, Reason{Text: "bench"}, batch(-1)...); err != nil {
						b.Fatal(err)
					}
				}
			}
			setup(0)
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if c.fresh && i > 0 {
					setup(i)
				}
				changes := batch(i)
				b.StartTimer()
				start := cpuTime()
				if _, err := New(p, at, Trigger{Command: "bench"}).Apply(ctx, Reason{Text: "bench"}, changes...); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
