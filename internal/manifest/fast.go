package manifest

import (
	"strconv"
	"strings"

	"github.com/devlearn/devlearn/internal/jsonscan"
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
	p := fastParser{Scanner: jsonscan.Scanner{B: data}, s: string(data)}
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
	p.Space()
	if p.I != len(p.s) {
		return Manifest{}, false
	}
	return m, true
}

// fastParser reads data through a scanner; s is data's one copy, whose
// views the strings read are.
type fastParser struct {
	jsonscan.Scanner
	s         string
	lastComma bool
}

// eat steps over c, and the whitespace before it, when it is next.
func (p *fastParser) eat(c byte) bool {
	p.Space()
	return p.Eat(c)
}

// str reads a plain string (no escape): a view of the copy, as
// encoding/json would give it.
func (p *fastParser) str() (string, bool) {
	p.Space()
	start, end, escaped, ok := p.Str()
	if !ok || escaped {
		return "", false
	}
	return p.s[start:end], true
}

// int reads an integer written as Go writes an int: a minus sign at most,
// digits, no leading zero.
func (p *fastParser) int() (int, bool) {
	p.Space()
	start := p.I
	if p.I < len(p.s) && p.s[p.I] == '-' {
		p.I++
	}
	digits := p.I
	for p.I < len(p.s) && p.s[p.I] >= '0' && p.s[p.I] <= '9' {
		p.I++
	}
	if p.I == digits || (p.s[digits] == '0' && p.I > digits+1) {
		return 0, false
	}
	if p.I < len(p.s) {
		switch p.s[p.I] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.Atoi(p.s[start:p.I])
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
	out := make([]Entry, 0, strings.Count(p.s[p.I:], "{"))
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
