package gitx

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
)

// adr renders a machine-made decision the way render does; src "" makes a
// hand-written one.
func adr(n int, title, src, date string) string {
	s := fmt.Sprintf("## ADR-%03d: %s\n\n- **Date**: %s\n- **Status**: Accepted\n- **Context**: c %s\n- **Decision**: %s\n- **Consequences**: -\n", n, title, date, title, title)
	if src != "" {
		s += "- **Source**: self-learning:" + src + "\n"
	}
	return s
}

func pf(n int, title, src string) string {
	s := fmt.Sprintf("## PF-%03d: %s\n\n- **Area**: a\n- **Issue**: %s\n- **Impact**: -\n- **Resolution**: -\n- **Status**: Active\n", n, title, title)
	if src != "" {
		s += "- **Source**: self-learning:" + src + "\n"
	}
	return s
}

// doc writes a knowledge file in devlearn's form.
func doc(kind knowfile.Kind, sections ...string) []byte {
	d := &knowfile.Doc{Kind: kind}
	for _, s := range sections {
		d.Append(s)
	}
	return d.Bytes()
}

func decisions(sections ...string) []byte { return doc(knowfile.Decisions, sections...) }
func pitfalls(sections ...string) []byte  { return doc(knowfile.Pitfalls, sections...) }

func TestMergeKnowledge(t *testing.T) {
	a1 := adr(1, "Keep config in JSON", "obs_a", "2026-05-01")
	tests := []struct {
		name                string
		kind                knowfile.Kind
		base, ours, theirs  []byte
		want                []byte
		renumbered          []Renumbering
		conflict, formatErr bool
	}{
		{
			name:       "both sides numbered a new entry 2: the later date is renumbered",
			kind:       knowfile.Decisions,
			base:       decisions(a1),
			ours:       decisions(a1, adr(2, "Ours", "obs_o", "2026-05-03")),
			theirs:     decisions(a1, adr(2, "Theirs", "obs_t", "2026-05-02")),
			want:       decisions(a1, adr(2, "Theirs", "obs_t", "2026-05-02"), adr(3, "Ours", "obs_o", "2026-05-03")),
			renumbered: []Renumbering{{Source: "obs_o", From: "ADR-002", To: "ADR-003"}},
		},
		{
			name:       "same date: the later observation id is renumbered, above every number any side used",
			kind:       knowfile.Decisions,
			base:       decisions(a1),
			ours:       decisions(a1, adr(2, "B", "obs_b", "2026-05-02")),
			theirs:     decisions(a1, adr(2, "C", "obs_c", "2026-05-02"), adr(3, "D", "obs_d", "2026-05-02")),
			want:       decisions(a1, adr(2, "B", "obs_b", "2026-05-02"), adr(3, "D", "obs_d", "2026-05-02"), adr(4, "C", "obs_c", "2026-05-02")),
			renumbered: []Renumbering{{Source: "obs_c", From: "ADR-002", To: "ADR-004"}},
		},
		{
			name:   "the same entry added on both sides appears once",
			kind:   knowfile.Pitfalls,
			base:   pitfalls(pf(1, "P1", "obs_1")),
			ours:   pitfalls(pf(1, "P1", "obs_1"), pf(2, "Shared", "obs_s")),
			theirs: pitfalls(pf(1, "P1", "obs_1"), pf(2, "Shared", "obs_s")),
			want:   pitfalls(pf(1, "P1", "obs_1"), pf(2, "Shared", "obs_s")),
		},
		{
			name:       "one observation rendered under two numbers keeps the lower; the clash it leaves is settled",
			kind:       knowfile.Pitfalls,
			base:       pitfalls(pf(1, "P1", "obs_1")),
			ours:       pitfalls(pf(1, "P1", "obs_1"), pf(2, "Shared", "obs_s")),
			theirs:     pitfalls(pf(1, "P1", "obs_1"), pf(2, "Other", "obs_x"), pf(3, "Shared", "obs_s")),
			want:       pitfalls(pf(1, "P1", "obs_1"), pf(2, "Shared", "obs_s"), pf(4, "Other", "obs_x")),
			renumbered: []Renumbering{{Source: "obs_x", From: "PF-002", To: "PF-004"}},
		},
		{
			name:   "one observation rendered on two days keeps the first rendering",
			kind:   knowfile.Decisions,
			base:   decisions(a1),
			ours:   decisions(a1, adr(2, "Same", "obs_s", "2026-05-09")),
			theirs: decisions(a1, adr(2, "Same", "obs_s", "2026-05-04")),
			want:   decisions(a1, adr(2, "Same", "obs_s", "2026-05-04")),
		},
		{
			name:   "an entry deleted on one side and left alone on the other is gone",
			kind:   knowfile.Decisions,
			base:   decisions(a1, adr(2, "B", "obs_b", "2026-05-02")),
			ours:   decisions(a1),
			theirs: decisions(a1, adr(2, "B", "obs_b", "2026-05-02"), adr(3, "C", "obs_c", "2026-05-03")),
			want:   decisions(a1, adr(3, "C", "obs_c", "2026-05-03")),
		},
		{
			name:   "a number freed by a deletion and reused on that side is no clash",
			kind:   knowfile.Decisions,
			base:   decisions(a1, adr(2, "B", "obs_b", "2026-05-02")),
			ours:   decisions(a1, adr(2, "B", "obs_b", "2026-05-02")),
			theirs: decisions(a1, adr(2, "C", "obs_c", "2026-05-03")),
			want:   decisions(a1, adr(2, "C", "obs_c", "2026-05-03")),
		},
		{
			name:     "deleted on one side, changed on the other: a conflict",
			kind:     knowfile.Decisions,
			base:     decisions(a1, adr(2, "B", "obs_b", "2026-05-02")),
			ours:     decisions(a1),
			theirs:   decisions(a1, strings.Replace(adr(2, "B", "obs_b", "2026-05-02"), "Accepted", "Deprecated", 1)),
			conflict: true,
		},
		{
			name:   "edits to different lines of one entry merge",
			kind:   knowfile.Decisions,
			base:   decisions(a1),
			ours:   decisions(strings.Replace(a1, "Accepted", "Superseded", 1)),
			theirs: decisions(strings.Replace(a1, "- **Consequences**: -", "- **Consequences**: fewer formats", 1)),
			want:   decisions(strings.Replace(strings.Replace(a1, "Accepted", "Superseded", 1), "- **Consequences**: -", "- **Consequences**: fewer formats", 1)),
		},
		{
			name:     "edits to the same line of one entry conflict",
			kind:     knowfile.Decisions,
			base:     decisions(a1),
			ours:     decisions(strings.Replace(a1, "Accepted", "Superseded", 1)),
			theirs:   decisions(strings.Replace(a1, "Accepted", "Deprecated", 1)),
			conflict: true,
		},
		{
			name:     "a clash with a hand-written entry is a conflict, not a renumbering",
			kind:     knowfile.Decisions,
			base:     decisions(a1),
			ours:     decisions(a1, adr(2, "Mine", "", "2026-05-02")),
			theirs:   decisions(a1, adr(2, "Learned", "obs_l", "2026-05-03")),
			conflict: true,
		},
		{
			name:   "hand-written entries are entries like any other",
			kind:   knowfile.Decisions,
			base:   decisions(a1, adr(2, "Mine", "", "2026-05-02")),
			ours:   decisions(a1, strings.Replace(adr(2, "Mine", "", "2026-05-02"), "Accepted", "Superseded", 1)),
			theirs: decisions(a1, adr(2, "Mine", "", "2026-05-02"), adr(3, "New", "obs_n", "2026-05-03")),
			want:   decisions(a1, strings.Replace(adr(2, "Mine", "", "2026-05-02"), "Accepted", "Superseded", 1), adr(3, "New", "obs_n", "2026-05-03")),
		},
		{
			name:   "both sides added the file",
			kind:   knowfile.Decisions,
			base:   nil,
			ours:   decisions(adr(1, "O", "obs_o", "2026-05-02")),
			theirs: decisions(adr(1, "T", "obs_t", "2026-05-01")),
			want:   decisions(adr(1, "T", "obs_t", "2026-05-01"), adr(2, "O", "obs_o", "2026-05-02")),
			renumbered: []Renumbering{
				{Source: "obs_o", From: "ADR-001", To: "ADR-002"},
			},
		},
		{
			name:   "the preamble merges as text and the TL;DR line is rebuilt",
			kind:   knowfile.Decisions,
			base:   decisions(a1),
			ours:   []byte(strings.Replace(string(decisions(a1)), "# Architectural Decisions\n", "# Architectural Decisions\n\nRead these first.\n", 1)),
			theirs: []byte(strings.Replace(string(decisions(a1, adr(2, "B", "obs_b", "2026-05-02"))), "<!-- TL;DR: 2 decisions. Key: ADR-001, ADR-002 -->", "<!-- TL;DR: stale -->", 1)),
			want:   []byte(strings.Replace(string(decisions(a1, adr(2, "B", "obs_b", "2026-05-02"))), "# Architectural Decisions\n", "# Architectural Decisions\n\nRead these first.\n", 1)),
		},
		{name: "a heading that is not an entry", kind: knowfile.Decisions, base: decisions(a1), ours: append(decisions(a1), "\n## Background\n\nprose\n"...), theirs: decisions(), formatErr: true},
		{name: "a PF entry in decisions.md", kind: knowfile.Decisions, base: decisions(a1), ours: decisions(a1, pf(2, "x", "obs_x")), theirs: decisions(), formatErr: true},
		{name: "one number twice", kind: knowfile.Decisions, base: decisions(a1), ours: decisions(a1, adr(1, "again", "obs_z", "d")), theirs: decisions(), formatErr: true},
		{name: "one observation twice", kind: knowfile.Decisions, base: decisions(a1), ours: decisions(a1, adr(2, "again", "obs_a", "d")), theirs: decisions(), formatErr: true},
		{name: "conflict markers", kind: knowfile.Decisions, base: decisions(a1), ours: append(decisions(a1), "<<<<<<< HEAD\n"...), theirs: decisions(), formatErr: true},
		{name: "CRLF", kind: knowfile.Decisions, base: []byte(strings.ReplaceAll(string(decisions(a1)), "\n", "\r\n")), ours: decisions(a1), theirs: decisions(), formatErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ren, err := MergeKnowledge(tt.kind, tt.base, tt.ours, tt.theirs)
			var ce *ConflictError
			switch {
			case tt.conflict || tt.formatErr:
				if !errors.As(err, &ce) || ce.Format != tt.formatErr {
					t.Fatalf("err = %v (%#v), want a conflict with Format=%v", err, ce, tt.formatErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if string(got) != string(tt.want) {
				t.Errorf("merged:\n%s\nwant:\n%s", got, tt.want)
			}
			if !slices.Equal(ren, tt.renumbered) {
				t.Errorf("renumbered %+v, want %+v", ren, tt.renumbered)
			}
		})
	}
}

// The rule does not depend on which side is ours: swapping the sides gives
// the same entries under the same numbers.
func TestMergeKnowledgeSymmetric(t *testing.T) {
	a1 := adr(1, "A", "obs_a", "2026-05-01")
	base := decisions(a1)
	ours := decisions(a1, adr(2, "O", "obs_o", "2026-05-03"), adr(3, "O2", "obs_o2", "2026-05-03"))
	theirs := decisions(a1, adr(2, "T", "obs_t", "2026-05-02"))
	x, _, err := MergeKnowledge(knowfile.Decisions, base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	y, _, err := MergeKnowledge(knowfile.Decisions, base, theirs, ours)
	if err != nil {
		t.Fatal(err)
	}
	if string(x) != string(y) {
		t.Fatalf("ours/theirs swapped:\n%s\nvs\n%s", x, y)
	}
}
