// Package textkey holds the two ways lesson text becomes a key: devflow's
// slug (file names, entry keys) and the pattern normalisation observation
// ids are computed from. A leaf, so that every package keys text the same
// way without importing the packages that render or observe.
package textkey

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxSlug is devflow's slug length.
const MaxSlug = 50

// Slug is devflow's slug: lower case, every run of characters outside
// [a-z0-9] becomes one "-", trimmed, at most 50 characters. NFKC first, so
// full-width letters become their ASCII selves; other scripts and
// look-alikes become separators, so a slug is always plain ASCII.
func Slug(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > MaxSlug {
		out = strings.TrimRight(out[:MaxSlug], "-")
	}
	return out
}

// Normalize is the pattern normalisation of the observation ids rule (docs/architecture.md): NFKC, lower case,
// punctuation removed, white space collapsed.
func Normalize(pattern string) string {
	return Collapse(norm.NFKC.String(pattern), unicode.IsPunct)
}

// Collapse is s in lower case, without the runes drop reports, each run
// of white space one space, none at either end: built in one pass.
func Collapse(s string, drop func(rune) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case drop(r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Reserved reports a file name Windows keeps for a device (CON, PRN, AUX,
// NUL, COM0 to COM9, LPT0 to LPT9, CONIN$, CONOUT$), whatever its case and
// whatever extension follows: Git for Windows refuses to check such a path
// out, and the system opens the device instead of the file. A slug of
// learned text can be one ("aux", "con"), and the file named after it is
// committed, so every teammate on Windows would meet it.
func Reserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToLower(strings.TrimRight(base, " "))
	switch base {
	case "con", "prn", "aux", "nul", "conin$", "conout$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) {
		return base[3] >= '0' && base[3] <= '9'
	}
	// The superscript digits count as digits there too.
	for _, sup := range []string{"¹", "²", "³"} {
		if base == "com"+sup || base == "lpt"+sup {
			return true
		}
	}
	return false
}
