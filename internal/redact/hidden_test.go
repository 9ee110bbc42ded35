package redact

import (
	"strings"
	"testing"
)

// A character nobody sees inside a secret must not hide it from the rules:
// the stores take such characters out afterwards and would join it again.
func TestHiddenInsideASecret(t *testing.T) {
	const pat = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	for _, h := range []string{"\u200b", "\u00ad", "\u2060", "\ufeff", "\x00", "\x7f", "\xff", "\u200d", "\u202e"} {
		in := "token " + pat[:10] + h + pat[10:] + " here"
		out := Text(in)
		if strings.Contains(out, pat[:10]) || strings.Contains(out, pat[10:]) {
			t.Errorf("%q: the token survives: %q", h, out)
		}
		if out != "token [REDACTED:github-pat] here" {
			t.Errorf("%q: got %q", h, out)
		}
	}
	in := "connect with pass\u200bword=Hunter2Secret!x9 to the db"
	if out := Text(in); strings.Contains(out, "Hunter2Secret") {
		t.Errorf("password assignment survives: %q", out)
	}
	// Where the secret stands again unsplit, it goes too.
	in = "a " + pat[:6] + "\u200b" + pat[6:] + " and " + pat
	if out := Text(in); strings.Contains(out, pat[6:]) {
		t.Errorf("echo survives: %q", out)
	}
}

// Text without a secret keeps its hidden characters: only a secret's are
// taken out with it.
func TestHiddenKeptWithoutSecret(t *testing.T) {
	for _, in := range []string{"zero\u200bwidth", "emoji 👩\u200d💻 ok", "soft\u00adhyphen", "bad \xff byte"} {
		if out := Text(in); out != in {
			t.Errorf("Text(%q) = %q, want it unchanged", in, out)
		}
		if f := Find(in); f != nil {
			t.Errorf("Find(%q) = %v", in, f)
		}
	}
}
