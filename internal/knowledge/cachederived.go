package knowledge

import "strings"

// The cache's encoding of what derive.go adds to an item's triggers: how
// each glob reads as written and whether the lesson's text gave it, and
// the commands and topics. It follows the written triggers in an item's
// record (cachefile.go), so the hook ranks items on what it decodes and
// never derives triggers to rank them. An item it serves is read from its
// file again (Sources.Current, to show what it holds now), and that read
// derives them once more: BenchmarkDerive's cost per item served.

func (e *enc) derived(m *Match) {
	for _, g := range m.Files {
		shown := g.Shown
		if shown == g.Pattern {
			shown = "" // the common case costs a byte
		}
		e.Str(shown)
		e.Bool(g.Derived)
		e.Bool(g.AtRequest)
	}
	e.Uint(uint64(len(m.Commands)))
	for _, c := range m.Commands {
		e.Str(c.Verb)
		e.ss(c.Words)
		e.Bool(c.Written)
		e.Str(c.Flag)
		e.ss(c.Args)
		e.Bool(c.Outside)
	}
	e.ss(m.Topics)
}

func (d *dec) derived(m *Match) {
	for i := range m.Files {
		if shown := d.Str(); shown != "" {
			m.Files[i].Shown = shown
		} else {
			m.Files[i].Shown = m.Files[i].Pattern
		}
		m.Files[i].Derived = d.Bool()
		m.Files[i].AtRequest = d.Bool()
	}
	if n := d.Count(len(d.S)); n > 0 {
		m.Commands = make([]Command, n)
		for i := range m.Commands {
			m.Commands[i] = Command{Verb: d.Str(), Words: d.strs(), Written: d.Bool(), Flag: d.Str(), Args: d.strs(), Outside: d.Bool()}
		}
	}
	m.Topics = d.strs()
}

func cloneDerived(dst, src *Match, cl func([]string) []string) {
	for _, c := range src.Commands {
		dst.Commands = append(dst.Commands, Command{Verb: strings.Clone(c.Verb), Words: cl(c.Words), Written: c.Written, Flag: strings.Clone(c.Flag), Args: cl(c.Args), Outside: c.Outside})
	}
	dst.Topics = cl(src.Topics)
}
