package task

import (
	"context"
	"strings"
	"testing"
)

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
