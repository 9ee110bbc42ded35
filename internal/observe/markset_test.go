package observe

import (
	"fmt"
	"math/rand"
	"testing"
	"unsafe"
)

// A fold holds a State per observation, in the 288-byte size class: a
// bigger class costs every path over 10,000 states (the 384-byte one took
// the bulk render 2-6% more CPU: docs/benchmarks.md, "The fold cache
// written in the order of memory"). A field more belongs behind a
// pointer, as counts are.
func TestStateStaysInItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(State{}); n > 288 {
		t.Fatalf("State is %d bytes", n)
	}
}

// A markSet is the two maps of marks and flags it replaced: whatever is
// set, in whatever order, it holds the latest of each name of each kind,
// the marks before the flags, each part by name.
func TestMarkSetIsTwoMaps(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	names := []string{markCreated, markDeprecated, markIntent, markPromoted, markRestored, FlagSoftCap, FlagStale, ""}
	for round := 0; round < 2_000; round++ {
		var ms markSet
		model := [2]map[string]mark{{}, {}}
		for i := 0; i < r.Intn(20); i++ {
			flag, name := r.Intn(2) == 1, names[r.Intn(len(names))]
			m := mark{stamp: stamp{seq: r.Intn(3), at: int64(r.Intn(3)), eid: fmt.Sprint(r.Intn(3))}, reason: fmt.Sprint(i)}
			ms.set(flag, name, m)
			k := 0
			if flag {
				k = 1
			}
			if cur, ok := model[k][name]; !ok || m.after(cur.stamp) {
				model[k][name] = m
			}
		}
		for k, part := range []markSet{ms.marks(), ms.flags()} {
			if len(part) != len(model[k]) {
				t.Fatalf("round %d: %d in part %d, want %d", round, len(part), k, len(model[k]))
			}
			for i, n := range part {
				if n.flag != (k == 1) || (i > 0 && part[i-1].name >= n.name) {
					t.Fatalf("round %d: part %d out of order: %+v", round, k, part)
				}
				got, ok := ms.get(k == 1, n.name)
				if want := model[k][n.name]; !ok || got != want || n.mark != want {
					t.Fatalf("round %d: %q is %+v, want %+v", round, n.name, got, want)
				}
			}
		}
		if _, ok := ms.get(false, "absent"); ok {
			t.Fatal("found a mark never set")
		}
	}
}
