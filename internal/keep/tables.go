package keep

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

//go:embed markers.yaml
var markersYAML []byte

// langTable is one language of markers.yaml, as written.
type langTable struct {
	Remember   []string `yaml:"remember"`
	Rule       []string `yaml:"rule"`
	Lead       []string `yaml:"lead"`
	NotAfter   []string `yaml:"not_after"`
	NotBefore  []string `yaml:"not_before"`
	NotLasting []string `yaml:"not_lasting"`
	Refers     []string `yaml:"refers"`
	Common     []string `yaml:"common"`
	Correction []string `yaml:"correction"`
}

// lang is a language's table, ready to match.
type lang struct {
	name                string
	rememberers, rules  []*marker
	notLasting          []*marker
	corrections         []*marker
	leads               []string // longest first
	notAfter, notBefore []string
	refers              []string
	common              map[string]bool
}

type tables struct {
	langs []*lang
	// words are every marker's words, which say nothing about what a
	// lesson is about (for Same).
	words map[string]bool
}

var (
	tablesOnce sync.Once
	loaded     *tables
)

// markers reads markers.yaml on first use: the hooks that never look for
// a request do not pay for it.
func markers() *tables {
	tablesOnce.Do(func() {
		t, err := parseTables(markersYAML)
		if err != nil {
			panic(err) // embedded: TestMarkersParse reads it
		}
		loaded = t
	})
	return loaded
}

func parseTables(data []byte) (*tables, error) {
	var raw map[string]langTable
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("keep: markers.yaml: %v", err)
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	// English first: its markers are the most common, and a mixed prompt
	// is read by them first.
	sort.SliceStable(names, func(i, j int) bool { return names[i] == "en" && names[j] != "en" })
	t := &tables{words: map[string]bool{}}
	for _, n := range names {
		r := raw[n]
		l := &lang{name: n, common: map[string]bool{}}
		for _, m := range r.Remember {
			l.rememberers = append(l.rememberers, compile(m))
		}
		for _, m := range r.Rule {
			l.rules = append(l.rules, compile(m))
		}
		byLength := func(ms []*marker) {
			sort.SliceStable(ms, func(i, j int) bool { return len(ms[i].text) > len(ms[j].text) })
		}
		byLength(l.rememberers)
		byLength(l.rules)
		l.leads = lowerAll(r.Lead)
		sort.SliceStable(l.leads, func(i, j int) bool { return len(l.leads[i]) > len(l.leads[j]) })
		l.notAfter = lowerAll(r.NotAfter)
		l.notBefore = lowerAll(r.NotBefore)
		for _, m := range r.NotLasting {
			l.notLasting = append(l.notLasting, compile(m))
		}
		for _, m := range r.Correction {
			l.corrections = append(l.corrections, compile(m))
		}
		l.refers = lowerAll(r.Refers)
		for _, w := range r.Common {
			l.common[strings.ToLower(w)] = true
		}
		for _, list := range [][]string{r.Remember, r.Rule, r.Lead, r.Refers, r.Common} {
			for _, m := range list {
				for _, w := range strings.Fields(strings.NewReplacer("…", " ", "*", " ", "^", " ").Replace(strings.ToLower(m))) {
					t.words[w] = true
				}
			}
		}
		t.langs = append(t.langs, l)
	}
	return t, nil
}

func lowerAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.ToLower(strings.TrimSpace(s))
	}
	return out
}

// marker is a phrase to find: pieces of text joined by gaps.
type marker struct {
	text   string
	pieces []string
	gaps   []gap // gaps[i] is between pieces[i] and pieces[i+1]
	anchor bool  // only where a clause starts
	latin  bool  // matched as whole words
}

type gap int

const (
	gapWords gap = iota // "…": up to a few words
	gapWord             // "*": one word
)

func compile(text string) *marker {
	m := &marker{text: text}
	s := strings.ToLower(strings.TrimSpace(text))
	if rest, ok := strings.CutPrefix(s, "^"); ok {
		m.anchor, s = true, rest
	}
	m.latin = strings.IndexFunc(s, cjk) < 0
	cur := ""
	for _, r := range s {
		switch r {
		case '…', '*':
			m.pieces = append(m.pieces, strings.TrimSpace(cur))
			if r == '…' {
				m.gaps = append(m.gaps, gapWords)
			} else {
				m.gaps = append(m.gaps, gapWord)
			}
			cur = ""
		default:
			cur += string(r)
		}
	}
	m.pieces = append(m.pieces, strings.TrimSpace(cur))
	return m
}

// maxGapWords is how many words "…" stands for; maxGapRunes the same for
// scripts without spaces.
const (
	maxGapWords = 5
	maxGapRunes = 12
)

// find returns the first place low holds the marker: low is a sentence in
// lower case, its words one space apart.
func (m *marker) find(low string, l *lang) (start, end int, ok bool) {
	first := m.pieces[0]
	for from := 0; from <= len(low); {
		i := strings.Index(low[from:], first)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		if m.latin && !boundaryBefore(low, i) {
			from = i + 1
			continue
		}
		if m.anchor && !clauseStart(low, i, l) {
			from = i + 1
			continue
		}
		if e, ok := m.rest(low, i+len(first), 1); ok {
			return i, e, true
		}
		from = i + 1
	}
	return 0, 0, false
}

// prefix reports whether a clause (lower case) starts with the marker,
// and where the marker ends.
func (m *marker) prefix(low string, l *lang) (int, bool) {
	if !strings.HasPrefix(low, m.pieces[0]) {
		return 0, false
	}
	return m.rest(low, len(m.pieces[0]), 1)
}

// rest matches pieces[k:] from at, and the word boundary after.
func (m *marker) rest(low string, at, k int) (int, bool) {
	if k == len(m.pieces) {
		if m.latin && !boundaryAfter(low, at, m.pieces[k-1]) {
			return 0, false
		}
		return at, true
	}
	next := m.pieces[k]
	switch m.gaps[k-1] {
	case gapWord:
		// One word, glued to what came before when that ends with an
		// apostrophe ("n'utilise").
		j := at
		if j < len(low) && low[j] == ' ' {
			j++
		}
		w := strings.IndexByte(low[j:], ' ')
		if w <= 0 {
			return 0, false
		}
		j += w
		if strings.HasPrefix(low[j:], " "+next) {
			return m.rest(low, j+1+len(next), k+1)
		}
		return 0, false
	default:
		if !m.latin {
			for j, n := at, 0; j <= len(low) && n <= maxGapRunes; n++ {
				if strings.HasPrefix(low[j:], next) {
					return m.rest(low, j+len(next), k+1)
				}
				if j == len(low) {
					break
				}
				_, size := utf8.DecodeRuneInString(low[j:])
				j += size
			}
			return 0, false
		}
		j := at
		for n := 0; n <= maxGapWords; n++ {
			if strings.HasPrefix(low[j:], " "+next) {
				if e, ok := m.rest(low, j+1+len(next), k+1); ok {
					return e, true
				}
			}
			w := strings.IndexByte(low[min(j+1, len(low)):], ' ')
			if w < 0 {
				return 0, false
			}
			j = min(j+1, len(low)) + w
		}
		return 0, false
	}
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !wordRune(r) || cjk(r)
}

func boundaryAfter(s string, i int, piece string) bool {
	if i >= len(s) {
		return true
	}
	if last, _ := utf8.DecodeLastRuneInString(piece); !wordRune(last) {
		return true // "remember:" ends where it ends
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !wordRune(r) || cjk(r)
}

// clauseStart reports whether i starts a clause of s, lead-ins allowed.
func clauseStart(s string, i int, l *lang) bool {
	before := strings.TrimSpace(s[:i])
	if j := lastBreak(before); j >= 0 {
		before = strings.TrimSpace(before[j:])
	}
	for before != "" {
		cut := false
		for _, lead := range l.leads {
			if rest, ok := strings.CutSuffix(before, lead); ok {
				before, cut = strings.TrimSpace(rest), true
				break
			}
		}
		if !cut {
			return false
		}
	}
	return true
}

// has reports whether word is one of list.
func (l *lang) has(list []string, word string) bool {
	for _, w := range list {
		if w == word {
			return true
		}
	}
	return false
}

// anyIn reports whether one of the markers is in low.
func (l *lang) anyIn(low string, ms []*marker) bool {
	for _, m := range ms {
		if _, _, ok := m.find(low, l); ok {
			return true
		}
	}
	return false
}

// endsWithAny reports whether s ends with one of the phrases, as words.
func (l *lang) endsWithAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if p == "" {
			continue
		}
		if strings.HasSuffix(s, p) && boundaryBefore(s, len(s)-len(p)) {
			return true
		}
	}
	return false
}

// isRef reports whether a lesson only points back ("this", "that rule").
func (l *lang) isRef(s string) bool {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), " .!。！,，"))
	if s == "" {
		return true
	}
	for _, r := range l.refers {
		if s == r {
			return true
		}
	}
	return false
}

// lowerSameLength lower-cases s rune by rune, keeping a rune whose lower
// case would be longer in UTF-8, so that offsets in the result are
// offsets in s.
func lowerSameLength(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		lr := unicode.ToLower(r)
		if utf8.RuneLen(lr) != utf8.RuneLen(r) {
			lr = r
		}
		b.WriteRune(lr)
	}
	return b.String()
}
