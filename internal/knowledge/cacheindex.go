package knowledge

import "strings"

// The cache's index maps keys to the items a call with that key may
// serve, so that a hook decodes a handful of items instead of all of them.
// An item can be served only with evidence beyond its tool (Breakdown.
// Evidence): a file trigger that matches, keywords that match, or no
// trigger but the tool. So it is indexed under
//
//	s:<segment>  a path segment its file glob requires ("plugin.json",
//	             "migrations"): a glob segment without wildcards matches
//	             only that exact segment;
//	e:<ending>   the ending of the file name its glob requires ("*.go"
//	             gives e:.go), when no segment is literal;
//	w:<word>     the first word of each keyword of one of its keyword
//	             triggers (actions, else context): evidence from keywords
//	             needs one of them; and of each of its topics;
//	c:<program>  the program of each of its command triggers;
//
// and among the items always scored when it has a glob with neither (such
// as "**/*version*"), or a tools trigger alone. The index is a superset:
// whatever it names is scored in full, so it only decides what is not
// worth decoding.

// itemKeys lists an item's keys; "" means the item is always scored.
func itemKeys(it *Item) []string {
	m := &it.Match
	if len(m.Files) == 0 && len(m.Actions) == 0 && len(m.Context) == 0 && len(m.Commands) == 0 && len(m.Topics) == 0 || toolsOnly(m) {
		return []string{""}
	}
	var keys []string
	for _, g := range m.Files {
		k := globKey(g.Pattern)
		if k == "" {
			return []string{""}
		}
		keys = append(keys, k)
	}
	group := m.Actions
	if len(group) == 0 {
		group = m.Context
	}
	for _, p := range group {
		first, _, _ := strings.Cut(p, " ")
		if first == "" {
			return []string{""}
		}
		keys = append(keys, "w:"+first)
	}
	for _, c := range m.Commands {
		keys = append(keys, "c:"+c.Verb)
	}
	for _, t := range m.Topics {
		first, _, _ := strings.Cut(t, " ")
		keys = append(keys, "w:"+first)
	}
	return keys
}

// globKey is the key every path a glob matches has: its last segment
// without wildcards, else the ending its last segment requires, else "".
func globKey(pattern string) string {
	if strings.ContainsAny(pattern, "{}\\") {
		return ""
	}
	segs := strings.Split(pattern, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s != "" && !strings.ContainsAny(s, "*?[]") {
			return "s:" + s
		}
	}
	last := segs[len(segs)-1]
	if end, ok := strings.CutPrefix(last, "*"); ok && end != "" && !strings.ContainsAny(end, "*?[]") {
		return "e:" + end
	}
	return ""
}

// callKeys gives the keys of a call: every segment of its paths, every
// ending of their file names, every word of its prompts and input, the
// program of each of its commands.
func callKeys(c *Call, fn func(string)) {
	for _, s := range c.Commands {
		fn("c:" + s.Verb)
	}
	for _, p := range c.FoldedPaths() {
		segs := strings.Split(p, "/")
		for _, s := range segs {
			if s != "" {
				fn("s:" + s)
			}
		}
		last := segs[len(segs)-1]
		for i := range last {
			fn("e:" + last[i:])
		}
	}
	if c.Words != nil {
		c.Words.EachDistinct(func(w string) { fn("w:" + w) })
	}
}
