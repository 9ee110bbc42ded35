package capture

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report: overall, by class, by language, each set
// apart; with before, each figure is followed by the one it replaces.
func WriteText(w io.Writer, rep, before *Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	sets := []string{Dev, Holdout}
	was := func(set string) *Breakdown {
		if before == nil {
			return nil
		}
		return before.Sets[set]
	}
	head := "set\tcases\trecall\t(found/lessons)\tnoise rate\t(noise/kept)"
	if before != nil {
		head += "\tbefore: recall\tnoise rate"
	}
	fmt.Fprintln(tw, head)
	for _, set := range sets {
		b := rep.Sets[set]
		line := fmt.Sprintf("%s\t%d\t%.3f\t(%d/%d)\t%.3f\t(%d/%d)", set, b.Cases, b.All.Recall(), b.All.Found, b.All.Lessons, b.All.NoiseRate(), b.All.Noise, b.All.Kept)
		if p := was(set); p != nil {
			line += fmt.Sprintf("\t%.3f\t%.3f", p.All.Recall(), p.All.NoiseRate())
		}
		fmt.Fprintln(tw, line)
	}
	fmt.Fprintln(tw)

	fmt.Fprintln(tw, "recall by class\t"+strings.Join(sets, "\t\t"))
	for _, cl := range LessonClasses {
		cells := []string{"  " + cl}
		for _, set := range sets {
			cells = append(cells, tallyCell(rep.Sets[set].ByClass[cl], was(set), func(b *Breakdown) *Tally { return b.ByClass[cl] }, false)...)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	fmt.Fprintln(tw)

	fmt.Fprintln(tw, "noise kept by class (kept/labelled)\t"+strings.Join(sets, "\t\t"))
	for _, cl := range NoiseClasses {
		cells := []string{"  " + cl}
		for _, set := range sets {
			cells = append(cells, leakCell(rep.Sets[set].Leaks[cl], was(set), cl)...)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	cells := []string{"  other (no noise label names it)"}
	for _, set := range sets {
		c := fmt.Sprint(rep.Sets[set].Unattributed)
		if p := was(set); p != nil {
			c += fmt.Sprintf(" (was %d)", p.Unattributed)
		}
		cells = append(cells, c, "")
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
	fmt.Fprintln(tw)

	var langs []string
	for _, set := range sets {
		for l := range rep.Sets[set].ByLang {
			if !slices.Contains(langs, l) {
				langs = append(langs, l)
			}
		}
	}
	sort.Strings(langs)
	fmt.Fprintln(tw, "by language\t"+strings.Join(sets, " recall\tnoise\t")+" recall\tnoise")
	for _, l := range langs {
		cells := []string{"  " + l}
		for _, set := range sets {
			cells = append(cells, tallyCell(rep.Sets[set].ByLang[l], was(set), func(b *Breakdown) *Tally { return b.ByLang[l] }, true)...)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// tallyCell is recall (and noise) with its counts, and what it was.
func tallyCell(t *Tally, before *Breakdown, pick func(*Breakdown) *Tally, noise bool) []string {
	if t == nil {
		t = &Tally{}
	}
	var p *Tally
	if before != nil {
		p = pick(before)
	}
	r := "-"
	if t.Lessons > 0 {
		r = fmt.Sprintf("%.2f (%d/%d)", t.Recall(), t.Found, t.Lessons)
		if p != nil && p.Lessons > 0 {
			r += fmt.Sprintf(" was %.2f", p.Recall())
		}
	}
	if !noise {
		return []string{r, ""}
	}
	n := "-"
	if t.Kept > 0 {
		n = fmt.Sprintf("%.2f (%d/%d)", t.NoiseRate(), t.Noise, t.Kept)
	}
	if p != nil && p.Kept > 0 {
		n += fmt.Sprintf(" was %.2f", p.NoiseRate())
	}
	return []string{r, n}
}

func leakCell(l *Leak, before *Breakdown, cl string) []string {
	if l == nil {
		return []string{"-", ""}
	}
	c := fmt.Sprintf("%d/%d", l.Kept, l.Labelled)
	if before != nil && before.Leaks[cl] != nil {
		c += fmt.Sprintf(" (was %d/%d)", before.Leaks[cl].Kept, before.Leaks[cl].Labelled)
	}
	return []string{c, ""}
}

// WriteDetails lists, case by case, the lessons missed and the noise kept:
// what a person reads to see why a figure is what it is.
func WriteDetails(w io.Writer, results []*Result) {
	for _, r := range results {
		c := r.Case
		var lines []string
		if r.Err != nil {
			lines = append(lines, "  error: "+r.Err.Error())
		}
		for i, l := range c.Lessons {
			if !r.Found[i] {
				lines = append(lines, fmt.Sprintf("  missed %-12s %q  (match %s)", l.Class, l.Lesson, strings.Join(l.Match, ", ")))
			}
		}
		for _, k := range r.Kept {
			switch {
			case !k.IsNoise():
				lines = append(lines, fmt.Sprintf("  found  %-12s %s %q", c.Lessons[k.Lessons[0]].Class, k.Obs.Type, k.Obs.Pattern))
			case k.Noise >= 0:
				lines = append(lines, fmt.Sprintf("  noise  %-12s %s %q", c.Noise[k.Noise].Class, k.Obs.Type, k.Obs.Pattern))
			default:
				lines = append(lines, fmt.Sprintf("  noise  %-12s %s %q", "other", k.Obs.Type, k.Obs.Pattern))
			}
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s/%s [%s]\n%s\n", c.Set, c.Name, c.Lang, strings.Join(lines, "\n"))
	}
}
