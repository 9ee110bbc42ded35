package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// fuzzKeys are self-contained secrets: their rules need no name or
// operator around them, so any text may surround them.
var fuzzKeys = []string{
	"ghp_{{alnum 36}}",
	"AKIA{{base32 16}}",
	"xoxb-{{digits 12}}-{{digits 12}}-{{alnum 24}}",
	"sk_live_{{alnum 24}}",
	"AIza{{b64url 35}}",
	"npm_{{lalnum 36}}",
	"sk-ant-api03-{{b64url 93}}AA",
	"glpat-{{b64url 20}}",
	"dop_v1_{{hex 64}}",
	"eyJ{{alnum 30}}.eyJ{{alnum 40}}.{{b64url 43}}",
	"-----BEGIN RSA PRIVATE KEY-----\n{{pem 6}}\n-----END RSA PRIVATE KEY-----",
	"-----BEGIN OPENSSH PRIVATE KEY-----\n{{pem 3}}",
}

// FuzzText: Text never panics, is idempotent, returns ordered disjoint
// findings, and a generated key placed anywhere in arbitrary text is
// redacted (it is set off by spaces, which every key format allows).
func FuzzText(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.text, uint64(c.line), uint8(c.line))
	}
	f.Add("", uint64(0), uint8(0))
	f.Add("[REDACTED:github-pat] -----BEGIN", uint64(1), uint8(10))
	f.Add("password: ", uint64(2), uint8(3))
	f.Fuzz(func(t *testing.T, s string, seed uint64, kind uint8) {
		check(t, s)

		key := expand(fuzzKeys[int(kind)%len(fuzzKeys)], rand.New(rand.NewPCG(seed, 2)))
		half := len(s) / 2
		in := s[:half] + " " + key + " " + s[half:]
		at := half + 1
		if !covered(Find(in), at, at+len(key)) {
			t.Fatalf("key %q not redacted in %q: %v", key, in, Find(in))
		}
		out := check(t, in)
		if !strings.Contains(s, key) && strings.Contains(out, key) {
			t.Fatalf("the key survives in %q", out)
		}
	})
}

// check asserts the invariants of Find and Text on s and returns Text(s).
func check(t *testing.T, s string) string {
	t.Helper()
	fs := Find(s)
	for i, f := range fs {
		if f.Start < 0 || f.End > len(s) || f.Start >= f.End {
			t.Fatalf("finding %v out of range of %q", f, s)
		}
		if i > 0 && fs[i-1].End > f.Start {
			t.Fatalf("findings %v and %v overlap in %q", fs[i-1], f, s)
		}
	}
	out := Text(s)
	if again := Text(out); again != out {
		t.Fatalf("Text is not idempotent on %q:\nonce  %q\ntwice %q", s, out, again)
	}
	if len(fs) == 0 && out != s {
		t.Fatalf("Text changed %q without findings: %q", s, out)
	}
	return out
}
