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

func TestReserved(t *testing.T) {
	for _, name := range []string{"con", "CON", "aux.md", "Nul.txt", "com1", "LPT9.md", "com0", "conin$", "prn.tar.gz", "com¹"} {
		if !Reserved(name) {
			t.Errorf("Reserved(%q) = false", name)
		}
	}
	for _, name := range []string{"console", "con-1", "auxiliary.md", "com10", "comx", "lpt", "my-nul", "a.con", "", "nul-check"} {
		if Reserved(name) {
			t.Errorf("Reserved(%q) = true", name)
		}
	}
}
