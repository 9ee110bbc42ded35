package knowfile

import (
	"math/rand/v2"
	"strings"
	"testing"
)

const sample = `<!-- TL;DR: 9 decisions. Key: stale -->
# Architectural Decisions

Notes the team keeps above the entries.

## ADR-001: Use Go

- **Date**: 2026-01-01
- **Status**: Accepted
- **Context**: hand-written

## Appendix: not an entry

free text

## ADR-007: Plain JSON config

- **Status**: Superseded
- **Source**: self-learning:obs_aaaaaaaaaaaa


## ADR-010: Event log

* **Status**: Proposed
- **Source**: self-learning:obs_bbbbbbbbbbbb
`

func TestParseKeepsEverythingAndReadsFields(t *testing.T) {
	d := Parse(Decisions, []byte(sample))
	if len(d.Sections) != 4 {
		t.Fatalf("%d sections", len(d.Sections))
	}
	if !strings.Contains(d.Preamble, "Notes the team keeps") || strings.Contains(d.Preamble, "TL;DR") {
		t.Fatalf("preamble %q", d.Preamble)
	}
	s := d.ByAnchor("ADR-007")
	if s == nil || s.Title != "Plain JSON config" || s.Source() != "obs_aaaaaaaaaaaa" || s.Active() {
		t.Fatalf("%+v", s)
	}
	if d.BySource("obs_bbbbbbbbbbbb").Anchor != "ADR-010" || d.BySource("obs_bbbbbbbbbbbb").Status() != "Proposed" {
		t.Fatal("BySource")
	}
	if d.Sections[1].Anchor != "" || d.Sections[1].Title != "Appendix: not an entry" {
		t.Fatalf("a heading that is not an entry is kept as it is: %+v", d.Sections[1])
	}
	if d.NextNumber() != 11 || d.ActiveCount() != 2 {
		t.Fatalf("next %d active %d", d.NextNumber(), d.ActiveCount())
	}
	// Only the TL;DR line is rebuilt; every other byte is kept.
	out := string(d.Bytes())
	if !strings.HasPrefix(out, "<!-- TL;DR: 2 decisions. Key: ADR-001, ADR-010 -->\n# Architectural Decisions\n") {
		t.Fatalf("TL;DR: %q", out[:80])
	}
	if strings.Replace(out, "\n\n\n## ADR-010", "\n\n## ADR-010", 1) != strings.Replace(strings.Replace(sample, "<!-- TL;DR: 9 decisions. Key: stale -->", "<!-- TL;DR: 2 decisions. Key: ADR-001, ADR-010 -->", 1), "\n\n\n## ADR-010", "\n\n## ADR-010", 1) {
		t.Fatalf("round trip changed the file:\n%s", out)
	}
}

// What is written and read back hashes the same (devflow defect 3), with
// CRLF line ends and trailing blank lines too.
func TestHashIsStableAcrossWriteAndRead(t *testing.T) {
	d := Parse(Pitfalls, nil)
	s := d.Append("## PF-001: X\n\n- **Area**: a\n- **Source**: self-learning:obs_1\n\n\n")
	again := Parse(Pitfalls, d.Bytes())
	if again.ByAnchor("PF-001").Hash() != s.Hash() {
		t.Fatal("hash changed on read-back")
	}
	crlf := Parse(Pitfalls, []byte(strings.ReplaceAll(string(d.Bytes()), "\n", "\r\n")))
	if crlf.ByAnchor("PF-001").Hash() != s.Hash() {
		t.Fatal("CRLF changed the hash")
	}
}

func TestEmptyFileGetsItsTitle(t *testing.T) {
	if got := string(Parse(Pitfalls, nil).Bytes()); got != "<!-- TL;DR: 0 pitfalls. -->\n# Known Pitfalls\n" {
		t.Fatalf("%q", got)
	}
}

// field is fieldRe by hand: the same matches and groups on random lines of
// bullets, stars, spaces, colons and broken UTF-8.
func TestFieldIsFieldRe(t *testing.T) {
	pieces := []string{"-", "*", "**", " ", "\t", "\f", "\r", "\v", ":", "Area", "Source", "self-learning:obs_1", "é", "\xff", "x", "**:", "- **", "* **"}
	rng := rand.New(rand.NewPCG(5, 6))
	lines := []string{"- **Area**: src/", "  * **Status**:Active", "-**Area**: x", "- ****: x", "- **a*b**: c", "- **Area**:  two spaces ", "- **Area**:"}
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		for n := rng.IntN(12); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	for _, line := range lines {
		key, value, ok := field(line)
		m := fieldRe().FindStringSubmatch(line)
		if ok != (m != nil) || (ok && (key != m[1] || value != m[2])) {
			t.Fatalf("field(%q) = %q, %q, %v; fieldRe: %q", line, key, value, ok, m)
		}
	}
}

// heading is headingRe by hand, on random first lines.
func TestHeadingIsHeadingRe(t *testing.T) {
	pieces := []string{"## ", "#", "ADR", "PF", "-", "0", "07", "123", ":", " ", "\t", "\f", "\r", "\v", "Title", "é", "\xff", "x y"}
	rng := rand.New(rand.NewPCG(7, 8))
	lines := []string{"## ADR-001: Keep JSON", "## PF-12:  spaced  title \t", "## ADR-: x", "## ADR-1:", "## ADR-1 : x", "##  ADR-1: x", "## PF-003:   "}
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		if i%2 == 0 { // mostly well-formed, one part at a time wrong
			b.WriteString(pick("## ", "## ", "##", "### "))
			b.WriteString(pick("ADR", "PF", "PF", "AD", "adr"))
			b.WriteString(pick("-", "-", "", "_"))
			b.WriteString(pick("1", "007", "123", "", "1a"))
			b.WriteString(pick(":", ":", " :", ""))
		}
		for n := rng.IntN(8); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	for _, line := range lines {
		kind, number, title, ok := heading(line)
		m := headingRe().FindStringSubmatch(line)
		if ok != (m != nil) || (ok && (kind != m[1] || number != m[2] || title != m[3])) {
			t.Fatalf("heading(%q) = %q %q %q %v; headingRe: %q", line, kind, number, title, ok, m)
		}
	}
}
