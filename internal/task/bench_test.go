package task

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// The Stop hook links this package (and gate, proc, trust): none of them
// may bring in what a hook must not initialise.
func TestImportsStayLight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, pkg := range []string{".", "../gate", "../proc", "../trust"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			switch {
			case dep == "net/http", dep == "github.com/go-git/go-git/v5", dep == "github.com/devlearn/devlearn/internal/gitx",
				strings.HasPrefix(dep, "github.com/go-git/go-git/v5/plumbing/transport"),
				strings.HasPrefix(dep, "github.com/charmbracelet/"),
				strings.HasPrefix(dep, "github.com/spf13/cobra"),
				strings.HasPrefix(dep, "github.com/modelcontextprotocol/"):
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// The similarity of two feedbacks is computed at every rejection, the
// Stop hook's included.
func BenchmarkSimilar(b *testing.B) {
	big := strings.Repeat(goFail1+"\n", 200) // a 20 KB test log
	b.SetBytes(int64(2 * len(big)))
	for b.Loop() {
		Similar(big, big+goFail2, 0.5)
	}
}

// BenchmarkReject is a rejection as the Stop hook records it: the log
// read and folded, the candidate written through the audited writer, the
// events appended.
func BenchmarkReject(b *testing.B) {
	s := newStore(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			s.Resume(ctx, "bench", "")
		}
		if _, err := s.Reject(ctx, RejectInput{Task: "bench", Stage: "implement", Feedback: goFail1}); err != nil {
			b.Fatal(err)
		}
	}
}
