package gitx

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/knowfile"
)

// ConflictError is a merge of one of devlearn's files that cannot be done
// by meaning. Format is true when a side is not in devlearn's format (a
// person rewrote it): the file is then merged as plain text, as git would,
// which may still be clean. Otherwise the conflict is in the content (an
// entry changed on both sides, a number taken by a hand-written entry) and
// stays a conflict whatever the plain-text merge says.
type ConflictError struct {
	Reason string
	Format bool
}

func (e *ConflictError) Error() string { return e.Reason }

func formatErr(side, format string, args ...any) *ConflictError {
	return &ConflictError{Reason: side + " is not in devlearn's format: " + fmt.Sprintf(format, args...), Format: true}
}

func contentErr(format string, args ...any) *ConflictError {
	return &ConflictError{Reason: fmt.Sprintf(format, args...)}
}

// Renumbering is a knowledge entry that a merge gave a new number, because
// the other side had used its number for another new entry.
type Renumbering struct {
	Path   string `json:"path,omitempty"`
	Source string `json:"observation"` // the entry's observation id
	From   string `json:"from"`        // ADR-004
	To     string `json:"to"`          // ADR-006
}

// MergeKnowledge merges decisions.md or pitfalls.md by entry. Entries are
// identified by their Source observation id (the sections-by-observation-id rule, docs/architecture.md), hand-written ones
// by their number. Each entry is merged three ways on its own: an entry one
// side deleted and the other left alone is gone, entries either side added
// are kept, an entry both sides added for the same observation appears once
// (the earlier rendering), and an entry both sides edited is merged line by
// line. When both sides gave a new entry the same number, the one with the
// later (date, observation id) takes the next number unused on any side;
// a number clash involving a hand-written entry is a conflict. Entries
// that were in the base keep their place (ours' order); new ones follow,
// in number order. The TL;DR line is rebuilt.
func MergeKnowledge(kind knowfile.Kind, base, ours, theirs []byte) ([]byte, []Renumbering, error) {
	b, err := readKnowledge(kind, "the base", base)
	if err != nil {
		return nil, nil, err
	}
	o, err := readKnowledge(kind, "ours", ours)
	if err != nil {
		return nil, nil, err
	}
	t, err := readKnowledge(kind, "theirs", theirs)
	if err != nil {
		return nil, nil, err
	}
	pre, clean := MergeText([]byte(b.doc.Preamble), []byte(o.doc.Preamble), []byte(t.doc.Preamble))
	if !clean {
		return nil, nil, contentErr("the text before the first entry was changed differently on both sides")
	}

	// Every identity once: ours' order, then theirs' new ones, then the
	// base's (deleted on both sides, or deleted on one and changed on the
	// other).
	var ids []string
	seen := map[string]bool{}
	for _, k := range [][]string{o.order, t.order, b.order} {
		for _, id := range k {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	var kept []*mergedEntry
	for _, id := range ids {
		e, err := mergeEntry(id, b.byID[id], o.byID[id], t.byID[id])
		if err != nil {
			return nil, nil, err
		}
		if e != nil {
			e.isNew = b.byID[id] == nil
			kept = append(kept, e)
		}
	}

	ren, err := renumber(kind, kept, b, o, t)
	if err != nil {
		return nil, nil, err
	}

	// The base's entries where ours has them, then the new ones by number.
	var old, added []*mergedEntry
	for _, e := range kept {
		if e.isNew {
			added = append(added, e)
		} else {
			old = append(old, e)
		}
	}
	slices.SortStableFunc(added, func(x, y *mergedEntry) int {
		if c := cmp.Compare(x.sec.Number, y.sec.Number); c != 0 {
			return c
		}
		return compareAge(x.sec, y.sec)
	})
	out := &knowfile.Doc{Kind: kind, Preamble: string(pre)}
	for _, e := range append(old, added...) {
		out.Sections = append(out.Sections, e.sec) // parsed already
	}
	return out.Bytes(), ren, nil
}

// knowSide is one side of a knowledge merge: its sections by identity.
type knowSide struct {
	doc   *knowfile.Doc
	order []string
	byID  map[string]*knowfile.Section
}

// sectionID identifies a section across the sides of a merge: the
// observation it was made from, or for a hand-written entry its number.
func sectionID(s *knowfile.Section) string {
	if src := s.Source(); src != "" {
		return "src:" + src
	}
	return "num:" + s.Anchor
}

// readKnowledge parses one side and checks that it is in devlearn's format:
// LF line endings, no conflict markers, every "## " section a numbered
// entry of this file's kind, no number and no observation twice.
func readKnowledge(kind knowfile.Kind, side string, data []byte) (*knowSide, error) {
	if bytes.Contains(data, []byte("\r\n")) {
		return nil, formatErr(side, "it has CRLF line endings")
	}
	if HasMarkers(data) {
		return nil, formatErr(side, "it has conflict markers")
	}
	doc := knowfile.Parse(kind, data)
	k := &knowSide{doc: doc, byID: map[string]*knowfile.Section{}}
	anchors := map[string]bool{}
	for _, s := range doc.Sections {
		heading, _, _ := strings.Cut(s.Body, "\n")
		if s.Anchor == "" || !strings.HasPrefix(s.Anchor, kind.Prefix+"-") {
			return nil, formatErr(side, "%q is not a numbered entry (## %s-NNN: title)", heading, kind.Prefix)
		}
		if anchors[s.Anchor] {
			return nil, formatErr(side, "%s is used by two entries", s.Anchor)
		}
		anchors[s.Anchor] = true
		id := sectionID(s)
		if k.byID[id] != nil {
			return nil, formatErr(side, "two entries come from %s", s.Source())
		}
		k.byID[id] = s
		k.order = append(k.order, id)
	}
	return k, nil
}

type mergedEntry struct {
	sec   *knowfile.Section
	isNew bool
}

// mergeEntry merges one entry three ways; nil means it is gone.
func mergeEntry(id string, b, o, t *knowfile.Section) (*mergedEntry, error) {
	body := func(s *knowfile.Section) string {
		if s == nil {
			return ""
		}
		return s.Body
	}
	pick := func(s *knowfile.Section) (*mergedEntry, error) {
		if s == nil {
			return nil, nil
		}
		return &mergedEntry{sec: s}, nil
	}
	switch {
	case body(o) == body(t):
		return pick(o)
	case b == nil && o == nil:
		return pick(t)
	case b == nil && t == nil:
		return pick(o)
	case b == nil:
		// Added on both sides: the same observation rendered on each.
		if sameRendering(o, t) {
			if compareRendering(t, o) < 0 {
				return pick(t)
			}
			return pick(o)
		}
		return nil, contentErr("%s was added on both sides with different text", describe(o))
	case body(o) == b.Body:
		return pick(t)
	case body(t) == b.Body:
		return pick(o)
	case o == nil || t == nil:
		return nil, contentErr("%s was deleted on one side and changed on the other", describe(b))
	}
	merged, clean := MergeText([]byte(b.Body), []byte(o.Body), []byte(t.Body))
	if !clean {
		return nil, contentErr("%s was changed on both sides in the same lines", describe(b))
	}
	d := knowfile.Parse(knowfile.Kind{}, merged)
	if len(d.Sections) != 1 || strings.TrimSpace(d.Preamble) != "" || sectionID(d.Sections[0]) != id || d.Sections[0].Anchor == "" {
		return nil, contentErr("%s was changed on both sides and the line merge no longer reads as one entry", describe(b))
	}
	return pick(d.Sections[0])
}

func describe(s *knowfile.Section) string {
	if src := s.Source(); src != "" {
		return fmt.Sprintf("%s (%s)", s.Anchor, src)
	}
	return s.Anchor + " (hand-written)"
}

// withAnchor returns a section's text with its heading renumbered.
func withAnchor(body, anchor string) string { return knowfile.WithAnchor(body, anchor) }

// sameRendering reports whether two sections differ at most in their
// number and date: one observation rendered on two branches.
func sameRendering(a, b *knowfile.Section) bool {
	return withoutDate(withAnchor(a.Body, "#")) == withoutDate(withAnchor(b.Body, "#"))
}

func withoutDate(body string) string {
	lines := strings.Split(body, "\n")
	out := lines[:0]
	for _, l := range lines {
		if m := fieldLine(l); m != "" && strings.EqualFold(m, "Date") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

var fieldKeyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*[-*]\s+\*\*([^*]+)\*\*:`) })

func fieldLine(l string) string {
	if m := fieldKeyRe().FindStringSubmatch(l); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// compareRendering orders two renderings of one observation: the earlier
// date, then the lower number, comes first.
func compareRendering(a, b *knowfile.Section) int {
	if c := strings.Compare(a.Field("Date"), b.Field("Date")); c != 0 {
		return c
	}
	return cmp.Compare(a.Number, b.Number)
}

// compareAge orders entries by (date, observation id), the order in which
// a number clash is settled: the earlier keeps the number.
func compareAge(a, b *knowfile.Section) int {
	if c := strings.Compare(a.Field("Date"), b.Field("Date")); c != 0 {
		return c
	}
	if c := strings.Compare(a.Source(), b.Source()); c != 0 {
		return c
	}
	return strings.Compare(a.Body, b.Body)
}

// renumber settles the numbers used by more than one kept entry. An entry
// that was in the base keeps its number; among new ones the earliest by
// (date, observation id) keeps it; the others take numbers above every
// number any side used, so that no number ever means two entries.
func renumber(kind knowfile.Kind, kept []*mergedEntry, sides ...*knowSide) ([]Renumbering, error) {
	next := 1
	for _, s := range sides {
		next = max(next, s.doc.NextNumber())
	}
	for _, e := range kept {
		next = max(next, e.sec.Number+1)
	}
	byNum := map[int][]*mergedEntry{}
	var nums []int
	for _, e := range kept {
		if len(byNum[e.sec.Number]) == 0 {
			nums = append(nums, e.sec.Number)
		}
		byNum[e.sec.Number] = append(byNum[e.sec.Number], e)
	}
	slices.Sort(nums)
	var out []Renumbering
	for _, n := range nums {
		group := byNum[n]
		if len(group) < 2 {
			continue
		}
		for _, e := range group {
			if e.sec.Source() == "" {
				return nil, contentErr("%s is used by a hand-written entry and by another entry; renumber one of them by hand", kind.Anchor(n))
			}
		}
		slices.SortStableFunc(group, func(x, y *mergedEntry) int {
			if x.isNew != y.isNew {
				if !x.isNew {
					return -1
				}
				return 1
			}
			return compareAge(x.sec, y.sec)
		})
		for _, e := range group[1:] {
			from := e.sec.Anchor
			to := kind.Anchor(next)
			next++
			d := knowfile.Parse(kind, []byte(withAnchor(e.sec.Body, to)))
			e.sec = d.Sections[0]
			out = append(out, Renumbering{Source: e.sec.Source(), From: from, To: to})
		}
	}
	return out, nil
}
