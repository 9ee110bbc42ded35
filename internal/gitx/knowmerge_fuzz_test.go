package gitx

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
)

// checkKnowledgeMerge asserts what every knowledge merge must hold: it
// fails only with a ConflictError; its result is in devlearn's format
// (each number and observation once); no entry a side added or kept is
// lost, and one only a side added keeps that side's text (its number
// aside); merging the result with itself changes nothing.
func checkKnowledgeMerge(t *testing.T, kind knowfile.Kind, base, ours, theirs []byte) {
	t.Helper()
	got, _, err := MergeKnowledge(kind, base, ours, theirs)
	if err != nil {
		var ce *ConflictError
		if !errors.As(err, &ce) {
			t.Fatalf("not a ConflictError: %v", err)
		}
		return
	}
	m, err := readKnowledge(kind, "the result", got)
	if err != nil {
		t.Fatalf("result not in devlearn's format: %v\n%s", err, got)
	}
	b, _ := readKnowledge(kind, "base", base)
	for _, side := range [][]byte{ours, theirs} {
		s, _ := readKnowledge(kind, "side", side)
		for _, id := range s.order {
			sec := s.byID[id]
			old := b.byID[id]
			if old != nil && old.Body == sec.Body {
				continue // unchanged here: the other side may delete it
			}
			kept := m.byID[id]
			if kept == nil {
				t.Fatalf("%s (%s) was lost\nbase:\n%s\nours:\n%s\ntheirs:\n%s\nmerged:\n%s", id, sec.Anchor, base, ours, theirs, got)
			}
			other := theirs
			if &side[0] == &theirs[0] {
				other = ours
			}
			o, _ := readKnowledge(kind, "other", other)
			if old == nil && o.byID[id] == nil && withAnchor(kept.Body, "#") != withAnchor(sec.Body, "#") {
				t.Fatalf("%s added on one side changed in the merge:\n%s\nbecame\n%s", id, sec.Body, kept.Body)
			}
		}
	}
	for _, again := range [][3][]byte{{base, got, got}, {got, got, got}} {
		x, ren, err := MergeKnowledge(kind, again[0], again[1], again[2])
		if err != nil || string(x) != string(got) || len(ren) != 0 {
			t.Fatalf("not idempotent (%v, %v):\n%s\nvs\n%s", err, ren, got, x)
		}
	}
}

// FuzzMergeKnowledge feeds arbitrary bytes as the three sides.
func FuzzMergeKnowledge(f *testing.F) {
	a1 := adr(1, "A", "obs_a", "2026-05-01")
	f.Add(decisions(a1), decisions(a1, adr(2, "O", "obs_o", "2026-05-03")), decisions(a1, adr(2, "T", "obs_t", "2026-05-02")))
	f.Add(decisions(a1), decisions(a1, adr(2, "Mine", "", "2026-05-02")), decisions(a1, adr(3, "T", "obs_t", "2026-05-02")))
	f.Add([]byte(nil), decisions(adr(1, "O", "obs_o", "d")), decisions(adr(1, "O", "obs_o", "e")))
	f.Add(decisions(a1, adr(2, "B", "obs_b", "d")), decisions(a1), decisions(strings.Replace(a1, "Accepted", "Deprecated", 1), adr(2, "B", "obs_b", "d")))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		if len(ours) == 0 || len(theirs) == 0 {
			return
		}
		checkKnowledgeMerge(t, knowfile.Decisions, base, ours, theirs)
	})
}

// FuzzMergeKnowledgeEntries builds the three sides from a program of
// small edits, so that most inputs are valid knowledge files and every
// path of the merge is taken: entries deleted, edited, added by hand or
// by devlearn, with clashing numbers, dates and observations.
func FuzzMergeKnowledgeEntries(f *testing.F) {
	f.Add([]byte{3, 0x12, 0x41, 0x83, 0x24, 0x55, 0x96})
	f.Add([]byte{2, 0x30, 0x31, 0x70, 0x71, 0xb2, 0xf3})
	f.Add([]byte{0, 0x40, 0xc0, 0x41, 0xc1})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) == 0 {
			return
		}
		var baseSecs []string
		for i := 0; i < int(prog[0]%5); i++ {
			baseSecs = append(baseSecs, adr(i+1, fmt.Sprintf("Base %d", i), fmt.Sprintf("obs_b%d", i), "2026-05-01"))
		}
		sides := [2][]string{append([]string(nil), baseSecs...), append([]string(nil), baseSecs...)}
		for _, op := range prog[1:] {
			s := &sides[op>>7]
			arg := int(op & 0x0f)
			switch (op >> 4) & 0x7 {
			case 0, 1: // add a learned entry: the next number, or a clashing one
				n := len(*s) + 1
				if op&0x10 != 0 {
					n = max(1, n-1+arg%2)
				}
				*s = append(*s, adr(n, fmt.Sprintf("Learned %d", arg), fmt.Sprintf("obs_n%d", arg%6), fmt.Sprintf("2026-05-%02d", 2+arg%3)))
			case 2: // add a hand-written entry
				*s = append(*s, adr(len(*s)+1, fmt.Sprintf("Mine %d", arg), "", "2026-05-09"))
			case 3: // delete an entry
				if len(*s) > 0 {
					i := arg % len(*s)
					*s = append((*s)[:i], (*s)[i+1:]...)
				}
			case 4, 5: // edit a line of an entry
				if len(*s) > 0 {
					i := arg % len(*s)
					(*s)[i] = strings.Replace((*s)[i], "Accepted", []string{"Superseded", "Deprecated"}[op>>4&1], 1)
				}
			case 6: // edit another line
				if len(*s) > 0 {
					i := arg % len(*s)
					(*s)[i] = strings.Replace((*s)[i], "- **Consequences**: -", fmt.Sprintf("- **Consequences**: %d", arg), 1)
				}
			case 7: // same observation, other number
				if len(*s) > 0 {
					i := arg % len(*s)
					(*s)[i] = withAnchor((*s)[i], fmt.Sprintf("ADR-%03d", 10+arg))
				}
			}
		}
		checkKnowledgeMerge(t, knowfile.Decisions, decisions(baseSecs...), decisions(sides[0]...), decisions(sides[1]...))
	})
}
