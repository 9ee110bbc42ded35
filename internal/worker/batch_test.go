package worker

import (
	"context"
	"reflect"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// Batches grow (docs/capture.md): a batch is 3 sessions, 5 once the log holds 15 observations,
// as the last run counted them.
func TestBatchGrowsOnceTheLogHoldsEnough(t *testing.T) {
	c := &clock{day1}
	cfg := config.Worker{BatchSize: 3, LargeBatchSize: 5, LargeBatchAfter: 15, DailyCap: 10}
	r := newRunner(t, cfg, c)
	known := 0
	ingest := r.Ingest
	r.Ingest = func(ctx context.Context, batch []Entry, begin func(int)) Result {
		res := ingest(ctx, batch, begin)
		known += 6 // each run's log holds six observations more
		res.Known = known
		return res
	}
	var sizes []int
	for i := 0; i < 4; i++ {
		size := r.State.BatchSize(cfg)
		sizes = append(sizes, size)
		for j := 0; j < size-1; j++ {
			r.add(t, string(rune('a'+i))+string(rune('0'+j)))
		}
		if d, _ := r.State.Due(c.Now(), cfg); d.Start {
			t.Fatalf("run %d: due with %d of %d sessions", i+1, size-1, size)
		}
		r.add(t, string(rune('a'+i))+"last")
		if n, err := r.Run(context.Background()); err != nil || n != 1 {
			t.Fatalf("run %d: %d runs, %v", i+1, n, err)
		}
	}
	// 6 and 12 observations: 3 sessions; 18 and 24: 5.
	if !reflect.DeepEqual(sizes, []int{3, 3, 3, 5}) {
		t.Fatalf("batch sizes %v", sizes)
	}
	last, _ := r.State.Last()
	if last.Known != 24 {
		t.Fatalf("last run: %+v", last)
	}
	// A run that counted nothing (failed) keeps the count it had.
	r.Ingest = func(ctx context.Context, batch []Entry, _ func(int)) Result {
		return Result{Errs: make([]error, len(batch))}
	}
	for j := 0; j < 5; j++ {
		r.add(t, "z"+string(rune('0'+j)))
	}
	if n, _ := r.Run(context.Background()); n != 1 {
		t.Fatalf("%d runs", n)
	}
	if last, _ := r.State.Last(); last.Known != 24 || r.State.BatchSize(cfg) != 5 {
		t.Fatalf("after a run that counted nothing: %+v", last)
	}
	// Off: large_batch_after 0.
	if got := r.State.BatchSize(config.Worker{BatchSize: 3, LargeBatchSize: 5}); got != 3 {
		t.Fatalf("large_batch_after 0: %d", got)
	}
}
