package manifest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeFast reads the manifest as devlearn writes it (Bytes): an object
// of schemaVersion and entries, each entry an object of Entry's names
// spelled as its tags spell them, every value a plain string (no escape,
// no control character, valid UTF-8) or, for schemaVersion, an integer.
// For such a document, encoding/json's answer is the one read here, so
// ok is false for anything else (another spelling or case of a name, a
// name twice, a name it does not know, an escape, null, a number that is
// not a plain integer...) and the caller decodes with a full decoder.
// Reconcile reads the manifest at every full check: a thousand entries
// decoded by reflection took 2 ms of a run right after a bulk render.
func decodeFast(data []byte) (m Manifest, ok bool) {
	// One copy for every string of it, not one per value.
	p := fastParser{s: string(data)}
	if !p.eat('{') {
		return Manifest{}, false
	}
	var seenVersion, seenEntries bool
	for first := true; ; first = false {
		if p.eat('}') {
			if first || p.lastComma {
				// "{}" and a trailing comma: the one is for the full
				// decoder, the other not JSON.
				return Manifest{}, false
			}
			break
		}
		if !first && !p.lastComma {
			return Manifest{}, false
		}
		name, ok := p.str()
		if !ok || !p.eat(':') {
			return Manifest{}, false
		}
		switch {
		case name == "schemaVersion" && !seenVersion:
			seenVersion = true
			if m.SchemaVersion, ok = p.int(); !ok {
				return Manifest{}, false
			}
		case name == "entries" && !seenEntries:
			seenEntries = true
			if m.Entries, ok = p.entries(); !ok {
				return Manifest{}, false
			}
		default:
			return Manifest{}, false
		}
		p.lastComma = p.eat(',')
	}
	p.space()
	if p.i != len(p.s) {
		return Manifest{}, false
	}
	return m, true
}

type fastParser struct {
	s         string
	i         int
	lastComma bool
}

// space steps over JSON's whitespace.
func (p *fastParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// eat steps over c, and the whitespace before it, when it is next.
func (p *fastParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a plain string: a view of the copy, as encoding/json would
// give it.
func (p *fastParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	ascii := true
	for ; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			v := p.s[start:p.i]
			p.i++
			if !ascii && !utf8.ValidString(v) {
				return "", false // encoding/json replaces what is not UTF-8
			}
			return v, true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// int reads an integer written as Go writes an int: a minus sign at most,
// digits, no leading zero.
func (p *fastParser) int() (int, bool) {
	p.space()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || (p.s[digits] == '0' && p.i > digits+1) {
		return 0, false
	}
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	return n, err == nil
}

// entries reads the array of entries ("[]" is an empty, non-nil slice,
// as encoding/json makes it).
func (p *fastParser) entries() ([]Entry, bool) {
	if !p.eat('[') {
		return nil, false
	}
	if p.eat(']') {
		return []Entry{}, true
	}
	// As many as there are objects left at most: one allocation, where
	// growing the slice entry by entry allocated twice its size.
	out := make([]Entry, 0, strings.Count(p.s[p.i:], "{"))
	for {
		e, ok := p.entry()
		if !ok {
			return nil, false
		}
		out = append(out, e)
		if p.eat(']') {
			return out, true
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}

// entry reads one entry: each of its names once at most.
func (p *fastParser) entry() (Entry, bool) {
	var e Entry
	if !p.eat('{') || p.eat('}') {
		return e, false // "{}" is for the full decoder
	}
	var seen uint8
	for {
		name, ok := p.str()
		if !ok || !p.eat(':') {
			return e, false
		}
		v, ok := p.str()
		if !ok {
			return e, false
		}
		var bit uint8
		switch name {
		case "observationId":
			e.ObservationID, bit = v, 1
		case "type":
			e.Type, bit = v, 2
		case "path":
			e.Path, bit = v, 4
		case "contentHash":
			e.ContentHash, bit = v, 8
		case "renderedAt":
			e.RenderedAt, bit = v, 16
		case "anchorId":
			e.AnchorID, bit = v, 32
		case "sources":
			e.Sources, bit = v, 64
		default:
			return e, false
		}
		if seen&bit != 0 {
			return e, false
		}
		seen |= bit
		if p.eat('}') {
			return e, true
		}
		if !p.eat(',') {
			return e, false
		}
	}
}
