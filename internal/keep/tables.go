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

//go:embed standing.yaml
var standingYAML []byte

// extraTable is one language of standing.yaml, as written.
type extraTable struct {
	Standing []string `yaml:"standing"`
	Lead     []string `yaml:"lead"`
	NotAfter []string `yaml:"not_after"`
	Common   []string `yaml:"common"`
}

// extra is a language's additions to capture's phrase table, ready to
// match.
type extra struct {
	code     string
	standing []*marker // longest first
	leads    []string  // longest first
	notAfter []string
	common   map[string]bool
}

var (
	extrasOnce sync.Once
	extras     map[string]*extra
	common     map[string]bool
)

// extrasByCode reads standing.yaml on first use: the hooks that never look
// for a request do not pay for it.
func extrasByCode() map[string]*extra {
	extrasOnce.Do(func() {
		x, err := parseExtras(standingYAML)
		if err != nil {
			panic(err) // embedded: TestStandingParses reads it
		}
		extras = x
		common = map[string]bool{}
		for _, e := range x {
			for w := range e.common {
				common[w] = true
			}
		}
	})
	return extras
}

func parseExtras(data []byte) (map[string]*extra, error) {
	var raw map[string]extraTable
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("keep: standing.yaml: %v", err)
	}
	out := map[string]*extra{}
	for code, r := range raw {
		x := &extra{code: code, common: map[string]bool{}}
		for _, m := range r.Standing {
			x.standing = append(x.standing, compile(m))
		}
		sort.SliceStable(x.standing, func(i, j int) bool { return len(x.standing[i].text) > len(x.standing[j].text) })
		x.leads = lowerAll(r.Lead)
		sort.SliceStable(x.leads, func(i, j int) bool { return len(x.leads[i]) > len(x.leads[j]) })
		x.notAfter = lowerAll(r.NotAfter)
		for _, w := range r.Common {
			x.common[strings.ToLower(w)] = true
		}
		out[code] = x
	}
	return out, nil
}

func lowerAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.ToLower(strings.TrimSpace(s))
	}
	return out
}

// marker is a standing word: pieces of text, one word ("*") between two.
type marker struct {
	text   string
	pieces []string
}

func compile(text string) *marker {
	m := &marker{text: text}
	for _, p := range strings.Split(strings.ToLower(strings.TrimSpace(text)), "*") {
		m.pieces = append(m.pieces, strings.TrimSpace(p))
	}
	return m
}

// prefix reports whether a clause (lower case, words one space apart)
// starts with the marker, and where the marker ends.
func (m *marker) prefix(low string) (int, bool) {
	if !strings.HasPrefix(low, m.pieces[0]) {
		return 0, false
	}
	at := len(m.pieces[0])
	for _, next := range m.pieces[1:] {
		// One word, glued to what came before when that ends with an
		// apostrophe ("n'utilise").
		j := at
		if j < len(low) && low[j] == ' ' {
			j++
		}
		w := strings.IndexByte(low[j:], ' ')
		if w <= 0 || !strings.HasPrefix(low[j+w:], " "+next) {
			return 0, false
		}
		at = j + w + 1 + len(next)
	}
	if latin := strings.IndexFunc(m.text, cjk) < 0; latin && at < len(low) {
		if r, _ := utf8.DecodeRuneInString(low[at:]); wordRune(r) {
			return 0, false
		}
	}
	return at, true
}

// lowerSameLength lower-cases s rune by rune, keeping a rune whose lower
// case would be longer in UTF-8, so that offsets in the result are
// offsets in s.
func lowerSameLength(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			// A byte that is no UTF-8 stays itself: written as U+FFFD it
			// would take three, and every offset after it would be off.
			b.WriteByte(s[i])
			i++
			continue
		}
		lr := unicode.ToLower(r)
		if utf8.RuneLen(lr) != n {
			lr = r
		}
		b.WriteRune(lr)
		i += n
	}
	return b.String()
}
