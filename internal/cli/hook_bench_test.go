package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/hookcmd"
)

// BenchmarkRootHook is what building the whole command tree adds to every
// hook process: the tree is built, then "hook" runs with empty input.
// Well under a millisecond, so hooks are dispatched through cobra like
// every other command, and exit codes stay mapped in one place.
func BenchmarkRootHook(b *testing.B) {
	env := &Env{hookcmd.Env{Out: io.Discard, Err: io.Discard, Getenv: func(string) string { return "" }, Clock: time.Now}}
	for i := 0; i < b.N; i++ {
		env.In = strings.NewReader("")
		r := NewRoot(env)
		r.SetArgs([]string{"hook", "pre-tool-use"})
		if err := r.Execute(); err != nil {
			b.Fatal(err)
		}
	}
}
