package redact

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

const corpusPath = "../../testdata/redact/corpus.txt"

type corpusLine struct {
	line      int
	secret    bool // labelled secret (else clean)
	knownMiss bool
	text      string   // as redacted: escapes, templates and marks resolved
	marks     [][2]int // the secrets in text
}

func loadCorpus(t testing.TB) []corpusLine {
	t.Helper()
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		label, text, ok := strings.Cut(raw, "|")
		if !ok || (label != "secret" && label != "clean") {
			t.Fatalf("%s:%d: want LABEL|TEXT with LABEL secret or clean", corpusPath, n)
		}
		c := corpusLine{line: n, secret: label == "secret"}
		text, c.knownMiss = strings.CutSuffix(text, " # known miss")
		text = expand(unescape(text), rand.New(rand.NewPCG(uint64(n), 0x5eed)))
		c.text, c.marks = cutMarks(text)
		if c.secret != (len(c.marks) > 0) {
			t.Fatalf("%s:%d: a secret line needs «marks», a clean line none", corpusPath, n)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cutMarks removes the «» marks from s and returns where they were.
func cutMarks(s string) (string, [][2]int) {
	var b strings.Builder
	var marks [][2]int
	for {
		i := strings.Index(s, "«")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "»")
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		start := b.Len()
		b.WriteString(s[i+len("«") : i+j])
		marks = append(marks, [2]int{start, b.Len()})
		s = s[i+j+len("»"):]
	}
	b.WriteString(s)
	return b.String(), marks
}

// covered reports whether findings cover every byte of [a, b).
func covered(found []Finding, a, b int) bool {
	for _, f := range found {
		if f.Start <= a && a < f.End {
			a = f.End
		}
	}
	return a >= b
}

// TestCorpus measures recall (marked secrets fully redacted) and false
// positives (findings outside every mark) on the labelled corpus.
//
// Floors: every secret not marked "known miss" must be found and no clean
// line may be touched, so any regression fails by name. The figures are
// asserted as well: recall may not fall below 95% (the two known misses,
// passwords with no name or operator before them, are the whole gap today,
// and a rule change that loses more should not pass), and false positives
// may not exceed 2% of clean lines (today 0; one stray rule is tolerated
// while it is being tuned, no more).
func TestCorpus(t *testing.T) {
	lines := loadCorpus(t)
	var secrets, found, clean, cleanHit, strays int
	for _, c := range lines {
		fs := Find(c.text)
		for _, f := range fs {
			inMark := false
			for _, m := range c.marks {
				if f.Start < m[1] && m[0] < f.End {
					inMark = true
				}
			}
			if !inMark {
				strays++
				t.Errorf("%s:%d: false positive %s: %q in %q", corpusPath, c.line, f.Rule, c.text[f.Start:f.End], c.text)
			}
		}
		if !c.secret {
			clean++
			if len(fs) > 0 {
				cleanHit++
			}
			continue
		}
		for _, m := range c.marks {
			secrets++
			ok := covered(fs, m[0], m[1])
			if ok {
				found++
			}
			switch {
			case !ok && !c.knownMiss:
				t.Errorf("%s:%d: missed %q in %q (found %v)", corpusPath, c.line, c.text[m[0]:m[1]], c.text, fs)
			case ok && c.knownMiss:
				t.Errorf("%s:%d: a known miss is now found: drop its mark", corpusPath, c.line)
			}
		}
	}
	recall := float64(found) / float64(secrets)
	fpRate := float64(cleanHit) / float64(clean)
	t.Logf("recall %.1f%% (%d of %d secrets); false positives: %d of %d clean lines (%.1f%%), %d findings outside marks",
		100*recall, found, secrets, cleanHit, clean, 100*fpRate, strays)
	if recall < 0.95 {
		t.Errorf("recall %.3f is under the 0.95 floor", recall)
	}
	if fpRate > 0.02 {
		t.Errorf("false-positive rate %.3f is over the 0.02 ceiling", fpRate)
	}
}
