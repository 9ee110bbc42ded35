package transcript

import "testing"

// A running program's log is left out of a request; what names code or a
// command stays, whoever wrote it, and a request of log lines alone is
// read whole.
func TestWithoutLogLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"the page is empty\n GET /items?page=1 200 in 329ms (compile: 9ms, proxy.ts: 20ms)\n    at ItemsPage (src/app/items/page.tsx:19:33)",
			"the page is empty\n    at ItemsPage (src/app/items/page.tsx:19:33)"},
		{"it hangs\n2026-05-10 09:00:01 INFO loading config/app.yaml\n[12:00:01] worker started\nINFO: ready", "it hangs"},
		{"run this and fix what breaks\n$ npm install date-fns", "run this and fix what breaks\n$ npm install date-fns"},
		{"here is the code\n```python\nx = open(\"data/in.csv\")\n```", "here is the code\n```python\nx = open(\"data/in.csv\")\n```"},
		{"error: src/a.go does not build", "error: src/a.go does not build"},
		{"GET /items 200 in 3ms\r\nwhy is it slow?\r\n", "why is it slow?\r\n"},
		// A request line the terminal wrapped: its status and times on a
		// line of their own. A person's count is not one.
		{"it fails\n DELETE /api/items/48d6\r\n 500 in 514ms (compile: 26ms, proxy.ts: 11ms, render: 477ms)\r\nNo se pudo eliminar", "it fails\n DELETE /api/items/48d6\r\nNo se pudo eliminar"},
		{"fix it\n200 in 30s is too slow, never call the sync client", "fix it\n200 in 30s is too slow, never call the sync client"},
		{"fix it\n200 in 30s (that was too slow) never call the sync client", "fix it\n200 in 30s (that was too slow) never call the sync client"},
		{"fix it\n200 in 30s (that was too slow", "fix it\n200 in 30s (that was too slow"},
		{"it fails\n GET /api/wraps\n 500 in 514ms (compile: 26ms, proxy.ts: 11ms, rend\ner: 477ms)\nfix it", "it fails\n GET /api/wraps\ner: 477ms)\nfix it"},
		{"it fails\n DELETE /api/items/48d6\n 500 in 514ms\nfix it", "it fails\n DELETE /api/items/48d6\nfix it"},
		// A person's sentence about an endpoint, code that sets a level,
		// and a fenced log with nothing else.
		{"fix it\nGET /api/orders 500 in production since the deploy, see src/api/orders.ts", "fix it\nGET /api/orders 500 in production since the deploy, see src/api/orders.ts"},
		{"set these\n```python\nDEBUG = True\nINFO = load(\"conf/app.yaml\")\n```", "set these\n```python\nDEBUG = True\nINFO = load(\"conf/app.yaml\")\n```"},
		{"```\nGET /items 200 in 3ms\n[12:00:01] worker started\n```", "```\nGET /items 200 in 3ms\n[12:00:01] worker started\n```"},
		{"cargo fails\nerror: could not compile `app`\n --> src/main.rs:1:5", "cargo fails\n --> src/main.rs:1:5"},
	} {
		if got := WithoutLogLines(c.in); got != c.want {
			t.Errorf("WithoutLogLines(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

// A log's size or time: digits, then at most one unit.
func TestMeasure(t *testing.T) {
	for w, want := range map[string]bool{
		"17": true, "1.2": true, "329ms": true, "4.0s": true,
		"12sm": false, "3mss": false, "ms": false, "s": false, "30m": false, "days": false,
	} {
		if got := measure(w); got != want {
			t.Errorf("measure(%q) = %v, want %v", w, got, want)
		}
	}
}
