package evolve

import "testing"

// A batch finished in this boot leaves the clone settled, packed copies
// or not: reconcile then skips the lock and the read of the done marker
// (a bulk render's is 150 KB of JSON), which Unsettled tells from the
// marker's last bytes. The pack's name once came after the boot and
// every reconcile after a bulk render settled a settled batch.
func TestAFinishedBatchIsSettled(t *testing.T) {
	for _, min := range []int{1 << 30, 64} {
		func() {
			defer func(old int) { packMin = old }(packMin)
			packMin = min
			p := newProject(t)
			apply(t, p, now, bulk(80, 1)...)
			apply(t, p, now, bulk(80, 2)...)
			if bootID() == "" {
				t.Skip("this system cannot tell its boots apart")
			}
			if packs := len(packsOf(t, p)); (min == 64) != (packs > 0) {
				t.Fatalf("packMin %d: %d packs", min, packs)
			}
			if Unsettled(p) {
				t.Fatalf("packMin %d: a batch finished in this boot reads as unsettled", min)
			}
		}()
	}
}
