package textkey

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Hook scripts grow":         "hook scripts grow",
		"  a\t\nb  ":                "a b",
		"don't forget: the README!": "dont forget the readme",
		"ＦＵＬＬ　ｗｉｄｔｈ":                "full width",
		"ﬁle":                       "file",
		"...":                       "",
		"a - b":                     "a b",
		"version 1.2.3":             "version 123",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
