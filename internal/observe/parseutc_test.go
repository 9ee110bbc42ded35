package observe

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// parseUTC reads what time.Parse reads, to the second, for every date of
// four-digit years (leap days and the days months do not have included),
// and refuses what it refuses.
func TestParseUTCIsTimeParse(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	check := func(s string) {
		t.Helper()
		got, ok := parseUTC(s)
		want, err := time.Parse(time.RFC3339, s)
		if ok != (err == nil) || (ok && got != want.Unix()) {
			t.Fatalf("%s: parseUTC %d %v, time.Parse %d %v", s, got, ok, want.Unix(), err)
		}
	}
	for _, y := range []int{0, 1, 4, 99, 100, 400, 1600, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 9999} {
		for mo := 1; mo <= 12; mo++ {
			for d := 1; d <= 31; d++ {
				check(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, r.Intn(24), r.Intn(60), r.Intn(60)))
			}
		}
	}
	for range 20_000 {
		check(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", r.Intn(10000), 1+r.Intn(12), 1+r.Intn(31), r.Intn(24), r.Intn(60), r.Intn(60)))
	}
}

func BenchmarkParseUTC(b *testing.B) {
	for range b.N {
		if _, ok := parseUTC("2026-04-09T12:34:56Z"); !ok {
			b.Fatal("not parsed")
		}
	}
}
