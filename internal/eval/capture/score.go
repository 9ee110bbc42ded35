package capture

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/textkey"
	"github.com/devlearn/devlearn/internal/transcript"
)

// An Extractor turns the sessions of one case (in order) into the
// observations it would keep. Offline is the rule-based one; another route
// (the agent's blocks, a recorded model) is measured by passing its own.
type Extractor func(sessions []*transcript.Channels) []extract.Observation

// Matches is the matching rule, the one a reader audits: an observation
// is the label's lesson when
//
//   - its type is one the label lists (any, when it lists none),
//   - it was sighted in the label's session (any of the case's, when the
//     label names none), and
//   - every term of the label's match list is found in its pattern, both
//     normalised as observation ids are (textkey.Normalize: NFKC, lower
//     case, punctuation removed, white space collapsed). A term may offer
//     alternatives, "push|pushes". A term is found where it begins a word
//     (it is not preceded by a Latin letter or digit), so "npm" is not
//     found in "pnpm"; a term in Chinese or Japanese script is found
//     anywhere, since those scripts do not separate words.
func Matches(c *Case, l *Label, o *extract.Observation) bool {
	if len(l.Type) > 0 && !slices.Contains(l.Type, o.Type) {
		return false
	}
	if l.Session != "" {
		i := slices.IndexFunc(c.Sessions, func(s Session) bool { return s.ID == l.Session })
		if o.SessionID != SessionID(c, &c.Sessions[i]) {
			return false
		}
	}
	p := textkey.Normalize(o.Pattern)
	for _, term := range l.Match {
		if !slices.ContainsFunc(strings.Split(term, "|"), func(alt string) bool { return found(p, textkey.Normalize(alt)) }) {
			return false
		}
	}
	return true
}

// Names attributes noise: a kept observation that is no lesson is the
// noise of a label when the label's terms are found in what it stores (its
// pattern, details and evidence together), by the rule of Matches.
func Names(c *Case, l *Label, o *extract.Observation) bool {
	all := *o
	all.Pattern = strings.Join(append([]string{o.Pattern, o.Details}, o.Evidence...), " ")
	return Matches(c, l, &all)
}

// found reports whether term begins a word of p (anywhere in p for CJK).
func found(p, term string) bool {
	if term == "" {
		return false
	}
	if strings.IndexFunc(term, cjk) >= 0 {
		return strings.Contains(p, term)
	}
	for i := 0; ; {
		j := strings.Index(p[i:], term)
		if j < 0 {
			return false
		}
		j += i
		if j == 0 {
			return true
		}
		if r, _ := utf8.DecodeLastRuneInString(p[:j]); !latinWord(r) {
			return true
		}
		i = j + 1
	}
}

// latinWord reports a letter or digit of the Latin scripts (up to Latin
// Extended-B), which continue a word.
func latinWord(r rune) bool { return r < 0x250 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Result is what happened to one case.
type Result struct {
	Case *Case
	Kept []Kept
	// Found[i] says whether Case.Lessons[i] was found; Leaked[i] whether
	// the noise of Case.Noise[i] was kept.
	Found  []bool
	Leaked []bool
	Err    error
}

// Kept is one observation the extractor kept, with what it was judged to be.
type Kept struct {
	Obs     extract.Observation
	Lessons []int // the case's lessons it matches; none: noise
	Noise   int   // the noise label it was attributed to, or -1
}

// IsNoise reports a kept observation that is no lesson of its case.
func (k Kept) IsNoise() bool { return len(k.Lessons) == 0 }

// Score runs x on every case and judges what it kept. root is the
// repository's root (real transcripts are named against it); opt is how
// the transcripts are read.
func Score(cases []*Case, root string, opt transcript.Options, x Extractor) []*Result {
	out := make([]*Result, 0, len(cases))
	for _, c := range cases {
		r := &Result{Case: c, Found: make([]bool, len(c.Lessons)), Leaked: make([]bool, len(c.Noise))}
		out = append(out, r)
		chs, err := Channels(c, root, opt)
		if err != nil {
			r.Err = err
			continue
		}
		seen := map[string]bool{}
		for _, o := range x(chs) {
			id := o.ID
			if id == "" {
				id = observe.ID(o.Type, o.Pattern)
			}
			// The log keeps one observation per id, whatever the sessions
			// that sighted it.
			if seen[id] {
				continue
			}
			seen[id] = true
			k := Kept{Obs: o, Noise: -1}
			for i := range c.Lessons {
				if Matches(c, &c.Lessons[i], &o) {
					k.Lessons = append(k.Lessons, i)
					r.Found[i] = true
				}
			}
			if k.IsNoise() {
				for i := range c.Noise {
					if len(c.Noise[i].Match) > 0 && Names(c, &c.Noise[i], &o) {
						k.Noise = i
						r.Leaked[i] = true
						break
					}
				}
			}
			r.Kept = append(r.Kept, k)
		}
	}
	return out
}

// Channels reads a case's sessions through the transcript reader.
func Channels(c *Case, root string, opt transcript.Options) ([]*transcript.Channels, error) {
	var out []*transcript.Channels
	for i := range c.Sessions {
		ch, err := transcript.Read(bytes.NewReader(Transcript(c, i)), c.Name+"/"+c.Sessions[i].ID, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	for _, p := range c.Transcripts {
		f, err := transcript.FromPath(filepath.Join(root, p))
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		ch, err := transcript.ReadFiles(f.All(), opt)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}

// Tally counts lessons found and observations kept.
type Tally struct {
	Lessons int `json:"lessons"`
	Found   int `json:"found"`
	Kept    int `json:"kept"`
	Noise   int `json:"noise"` // kept, and no lesson
}

// Recall is found / lessons (1 when there is no lesson to find).
func (t Tally) Recall() float64 { return ratio(t.Found, t.Lessons, 1) }

// NoiseRate is noise / kept (0 when nothing was kept).
func (t Tally) NoiseRate() float64 { return ratio(t.Noise, t.Kept, 0) }

func ratio(a, b int, none float64) float64 {
	if b == 0 {
		return none
	}
	return float64(a) / float64(b)
}

// Leak counts the noise labels of a class and how many were kept.
type Leak struct {
	Labelled int `json:"labelled"`
	Kept     int `json:"kept"`
}

// Breakdown is one set's figures.
type Breakdown struct {
	Cases   int               `json:"cases"`
	All     Tally             `json:"all"`
	ByClass map[string]*Tally `json:"by_class"` // lessons by class; kept: those matching a lesson of the class
	ByLang  map[string]*Tally `json:"by_lang"`
	Leaks   map[string]*Leak  `json:"leaks"` // noise labels by class
	// Unattributed is noise kept that no noise label names.
	Unattributed int `json:"unattributed"`
}

// Report is the figures of each set.
type Report struct {
	Sets map[string]*Breakdown `json:"sets"`
}

// Summarize adds up the results by set, class and language.
func Summarize(results []*Result) *Report {
	rep := &Report{Sets: map[string]*Breakdown{}}
	for _, set := range []string{Dev, Holdout} {
		rep.Sets[set] = &Breakdown{ByClass: map[string]*Tally{}, ByLang: map[string]*Tally{}, Leaks: map[string]*Leak{}}
	}
	for _, r := range results {
		b := rep.Sets[r.Case.Set]
		b.Cases++
		lang := b.ByLang[r.Case.Lang]
		if lang == nil {
			lang = &Tally{}
			b.ByLang[r.Case.Lang] = lang
		}
		for i, l := range r.Case.Lessons {
			cl := b.ByClass[l.Class]
			if cl == nil {
				cl = &Tally{}
				b.ByClass[l.Class] = cl
			}
			for _, t := range []*Tally{&b.All, lang, cl} {
				t.Lessons++
				if r.Found[i] {
					t.Found++
				}
			}
		}
		for i, l := range r.Case.Noise {
			lk := b.Leaks[l.Class]
			if lk == nil {
				lk = &Leak{}
				b.Leaks[l.Class] = lk
			}
			lk.Labelled++
			if r.Leaked[i] {
				lk.Kept++
			}
		}
		for _, k := range r.Kept {
			for _, t := range []*Tally{&b.All, lang} {
				t.Kept++
				if k.IsNoise() {
					t.Noise++
				}
			}
			if k.IsNoise() && k.Noise < 0 {
				b.Unattributed++
			}
			classes := map[string]bool{}
			for _, i := range k.Lessons {
				classes[r.Case.Lessons[i].Class] = true
			}
			for cl := range classes {
				b.ByClass[cl].Kept++
			}
		}
	}
	return rep
}
