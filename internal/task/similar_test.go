package task

import (
	"strings"
	"testing"
)

const goFail1 = `--- FAIL: TestTotalRoundsHalfUp (0.00s)
    cart_test.go:42: total = 10.04, want 10.05
FAIL
FAIL	example.com/shop/cart	0.012s
FAIL`

// The same failure on the next attempt: other numbers, other timing.
const goFail2 = `=== RUN   TestTotalRoundsHalfUp
--- FAIL: TestTotalRoundsHalfUp (0.01s)
    cart_test.go:47: total = 10.06, want 10.05
FAIL
FAIL	example.com/shop/cart	0.015s
FAIL`

// Another test failing in another package.
const goFailOther = `--- FAIL: TestLoginRejectsEmptyPassword (0.00s)
    auth/login_test.go:18: status = 200, want 401
FAIL
FAIL	example.com/shop/auth	0.020s
FAIL`

// The same package, a compile error instead of a wrong total.
const goCompile = `# example.com/shop/cart
cart/cart.go:31:9: undefined: roundHalfUp
FAIL	example.com/shop/cart [build failed]`

const tsFail1 = `src/api/client.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.`
const tsFail2 = `src/api/client.ts(21,3): error TS2322: Type 'string' is not assignable to type 'number'.`

// Two rejections are similar when more than half their terms are shared;
// each case has a near miss on the other side.
func TestSimilarityTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    string
		similar bool
	}{
		{"same go test, other numbers and timing", goFail1, goFail2, true},
		{"other go test in another package", goFail1, goFailOther, false},
		{"same package, a compile error instead", goFail1, goCompile, false},
		{"same TypeScript error, another line", tsFail1, tsFail2, true},
		{"TypeScript error vs a Go failure", tsFail1, goFail1, false},
		{"a person's words, said again", "Tests for the login handler are missing.", "Still no tests for the login handler.", true},
		{"a person's words about another problem of the same handler", "The login handler leaks the session token in logs.", "The login handler returns 500 on empty passwords.", false},
		{"the same plan feedback, reworded", "The plan ignores cache invalidation after logout; the session store keeps stale entries.", "Again the plan says nothing about cache invalidation on logout, so the session store keeps stale entries.", true},
		{"plan feedback on the same component, other concern", "The plan ignores cache invalidation after logout.", "The plan's cache warmup runs before migrations.", false},
		{"same file, same message, different symbol", "cart/cart.go:31:9: undefined: roundHalfUp", "cart/cart.go:40:2: undefined: applyDiscount", false},
		{"same file, same symbol, moved", "cart/cart.go:31:9: undefined: roundHalfUp", "cart/cart.go:52:4: undefined: roundHalfUp", true},
		{"nothing in common", "abc", "xyz", false},
		{"empty", "", "", false},
	} {
		got, o := Similar(tc.a, tc.b, 0.5)
		if got != tc.similar {
			t.Errorf("%s: similar=%v (overlap %.2f), want %v\n a: %+v\n b: %+v", tc.name, got, o, tc.similar, ExtractTerms(tc.a), ExtractTerms(tc.b))
		}
		// Symmetric.
		if back, o2 := Similar(tc.b, tc.a, 0.5); back != got || o2 != o {
			t.Errorf("%s: not symmetric", tc.name)
		}
	}
}

// "> 50%": exactly half is not similar; the threshold is configurable.
func TestSimilarityThresholdIsStrict(t *testing.T) {
	a := "alpha bravo charlie"
	b := "alpha bravo delta"
	// Terms: alpha, bravo, charlie | alpha, bravo, delta → 2 of 4.
	ok, o := Similar(a, b, 0.5)
	if ok || o != 0.5 {
		t.Fatalf("exactly 0.5: similar=%v overlap=%v", ok, o)
	}
	if ok, _ := Similar(a, b, 0.49); !ok {
		t.Fatal("a lower threshold makes it similar")
	}
	if ok, _ := Similar(a+" echo", b+" echo", 0.5); !ok {
		t.Fatal("3 of 5 is more than half")
	}
}

func TestExtractTerms(t *testing.T) {
	got := ExtractTerms(goFail1)
	if strings.Join(got.Paths, ",") != "cart_test.go,example.com/shop/cart" {
		t.Errorf("paths %v", got.Paths)
	}
	if len(got.Messages) == 0 || strings.ContainsAny(strings.Join(got.Messages, " "), "0123456789") {
		t.Errorf("messages keep numbers: %v", got.Messages)
	}
	if !has(got.Nouns, "testtotalroundshalfup") {
		t.Errorf("nouns %v", got.Nouns)
	}
	win := ExtractTerms(`C:\src\app\main.py:12: error: bad`)
	if !has(win.Paths, "c:/src/app/main.py") {
		t.Errorf("windows path %v", win.Paths)
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestNormalizeMessage(t *testing.T) {
	for in, want := range map[string]string{
		"--- fail: testtotal (0.01s)":                  "--- fail: testtotal (#)",
		"cart_test.go:42: total = 10.04,   want 10.05": "cart_test.go:#: total = #, want #",
		"panic at 0xc000123abc in goroutine 7":         "panic at # in goroutine #",
		"coverage 42% of v2 in sha256":                 "coverage # of v2 in sha256",
		"took 120ms, 5µs, 3h":                          "took #, #, #",
	} {
		if got := normalizeMessage(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
