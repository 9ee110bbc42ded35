package knowfile

import (
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
