package transcript

import "testing"

// A running program's log is left out of a request; what names code or a
// command stays, whoever wrote it, and a request of log lines alone is
// read whole.
func TestWithoutOutput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"the page is empty\n GET /items?page=1 200 in 329ms (compile: 9ms, proxy.ts: 20ms)\n    at ItemsPage (src/app/items/page.tsx:19:33)",
			"the page is empty\n    at ItemsPage (src/app/items/page.tsx:19:33)"},
		{"it hangs\n2026-05-10 09:00:01 INFO loading config/app.yaml\n[12:00:01] worker started\nINFO: ready", "it hangs"},
		{"run this and fix what breaks\n$ npm install date-fns", "run this and fix what breaks\n$ npm install date-fns"},
		{"here is the code\n```python\nx = open(\"data/in.csv\")\n```", "here is the code\n```python\nx = open(\"data/in.csv\")\n```"},
		{"error: src/a.go does not build", "error: src/a.go does not build"},
		{"GET /items 200 in 3ms\r\nwhy is it slow?\r\n", "why is it slow?\r\n"},
	} {
		if got := WithoutOutput(c.in); got != c.want {
			t.Errorf("WithoutOutput(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}
