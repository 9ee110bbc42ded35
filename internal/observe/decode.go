package observe

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// decoder reads log lines into Events without reflection. Folding is the
// first thing every command does, on logs of 100,000 lines, and a generic
// reflective decoder spent most of that time looking up fields; this one
// walks the tokens once. A test and a fuzz target hold it to the same
// results as encoding/json on every line.
type decoder struct {
	r   bytes.Reader
	dec jsontext.Decoder
	buf []byte
	// views makes strings without escapes views of the line, not copies:
	// the fold sets it, reads each line in place from a buffer it never
	// reuses, and copies what it keeps (Event.own, State.apply).
	views bool
	line  []byte
}

var decodeOpts = jsontext.AllowDuplicateNames(true)

func (d *decoder) decode(line []byte, e *Event) error {
	d.line = line
	before := *e
	if d.fast(line, e) {
		return nil
	}
	*e = before // what fast set is undone: the tokenizer starts afresh
	d.r.Reset(line)
	d.dec.Reset(&d.r, decodeOpts)
	if err := d.object(func(key []byte) error { return d.field(key, e) }); err != nil {
		return err
	}
	if _, err := d.dec.ReadToken(); err == nil {
		return errMoreThanOne
	}
	return nil
}

var errMoreThanOne = errors.New("more than one JSON value on the line")

// object walks one object, calling fn with each key (the bytes are only
// valid during the call).
func (d *decoder) object(fn func(key []byte) error) error {
	if k := d.dec.PeekKind(); k != '{' {
		if _, err := d.dec.ReadValue(); err != nil {
			return err
		}
		return fmt.Errorf("want an object, got %s", kindName(k))
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() != '}' {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return err
		}
		key, err := d.unquote(raw)
		if err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

func (d *decoder) array(fn func() error) error {
	if k := d.dec.PeekKind(); k != '[' {
		if _, err := d.dec.ReadValue(); err != nil {
			return err
		}
		return fmt.Errorf("want a list, got %s", kindName(k))
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() != ']' {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

func (d *decoder) unquote(raw jsontext.Value) ([]byte, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, fmt.Errorf("want a string")
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, nil
	}
	var err error
	d.buf, err = jsontext.AppendUnquote(d.buf[:0], raw)
	return d.buf, err
}

func (d *decoder) str(key string) (string, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return "", err
	}
	if raw.Kind() == 'n' {
		return "", nil
	}
	b, err := d.unquote(raw)
	if err != nil {
		return "", fmt.Errorf("%q: %v", key, err)
	}
	if d.views && len(b) == len(raw)-2 && len(b) > 0 {
		// No escapes: the same bytes are in the line, where the decoder's
		// offset says (its own buffer is reused from line to line).
		if end := int(d.dec.InputOffset()) - 1; end >= len(b) && end <= len(d.line) {
			v := d.line[end-len(b) : end]
			return unsafe.String(unsafe.SliceData(v), len(v)), nil
		}
	}
	return string(b), nil
}

func (d *decoder) num(key string) (float64, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return 0, err
	}
	if raw.Kind() == 'n' {
		return 0, nil
	}
	if raw.Kind() != '0' {
		return 0, fmt.Errorf("%q: want a number", key)
	}
	return strconv.ParseFloat(string(raw), 64)
}

func (d *decoder) int(key string) (int, error) {
	f, err := d.num(key)
	if err != nil {
		return 0, err
	}
	if f != float64(int(f)) {
		return 0, fmt.Errorf("%q: want a whole number", key)
	}
	return int(f), nil
}

func (d *decoder) boolean(key string) (*bool, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	switch raw.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		v := raw.Kind() == 't'
		return &v, nil
	}
	return nil, fmt.Errorf("%q: want true or false", key)
}

func (d *decoder) null() bool {
	if d.dec.PeekKind() == 'n' {
		d.dec.ReadValue()
		return true
	}
	return false
}

func (d *decoder) field(key []byte, e *Event) (err error) {
	switch string(key) {
	case "op":
		e.Op, err = d.str("op")
	case "eid":
		e.EID, err = d.str("eid")
	case "at":
		e.At, err = d.str("at")
	case "src":
		e.Src, err = d.str("src")
	case "id":
		e.ID, err = d.str("id")
	case "seq":
		e.Seq, err = d.int("seq")
	case "type":
		e.Type, err = d.str("type")
	case "pattern":
		e.Pattern, err = d.str("pattern")
	case "details":
		e.Details, err = d.str("details")
	case "evidence":
		e.Evidence, err = d.evidence(e.Evidence[:0])
	case "quality_ok":
		e.QualityOK, err = d.boolean("quality_ok")
	case "path":
		e.Path, err = d.str("path")
	case "anchor":
		e.Anchor, err = d.str("anchor")
	case "factor":
		e.Factor, err = d.num("factor")
	case "reason":
		e.Reason, err = d.str("reason")
	case "flag":
		e.Flag, err = d.str("flag")
	case "on":
		e.On, err = d.boolean("on")
	case "counter":
		e.Counter, err = d.str("counter")
	case "sources":
		if d.null() {
			return nil
		}
		e.Sources = map[string]string{}
		err = d.object(func(k []byte) error {
			src := string(k)
			v, err := d.str("sources")
			e.Sources[src] = v
			return err
		})
	case "weight":
		e.Weight, err = d.int("weight")
	case "weights":
		if d.null() {
			return nil
		}
		e.Weights = map[string]map[string]string{}
		err = d.object(func(k []byte) error {
			src := string(k)
			ws := map[string]string{}
			e.Weights[src] = ws
			if d.null() {
				return nil
			}
			return d.object(func(k []byte) error {
				w := string(k) // k is the decoder's buffer: copied before the value is read
				v, err := d.str("weights")
				ws[w] = v
				return err
			})
		})
	case "legacy_count":
		e.LegacyCount, err = d.int("legacy_count")
	case "text":
		if d.null() {
			return nil
		}
		e.Text = &Mark{}
		err = d.mark(e.Text)
	case "marks":
		e.Marks, err = d.marks()
	case "flags":
		e.Flags, err = d.marks()
	case "penalties":
		if d.null() {
			return nil
		}
		err = d.array(func() error {
			var m Mark
			err := d.mark(&m)
			e.Penalties = append(e.Penalties, m)
			return err
		})
	case "counters":
		if d.null() {
			return nil
		}
		e.Counters = map[string][]string{}
		err = d.object(func(k []byte) error {
			name := string(k)
			list := []string{}
			err := d.array(func() error {
				s, err := d.str("counters")
				list = append(list, s)
				return err
			})
			e.Counters[name] = list
			return err
		})
	case "counted":
		if d.null() {
			return nil
		}
		e.Counted = map[string]string{}
		err = d.object(func(k []byte) error {
			name := string(k)
			v, err := d.str("counted")
			e.Counted[name] = v
			return err
		})
	case "forgotten":
		e.Forgotten, err = d.str("forgotten")
	case "confidence":
		if d.null() {
			return nil
		}
		var c float64
		c, err = d.num("confidence")
		e.Confidence = &c
	case "observations":
		e.Observations, err = d.int("observations")
	case "first_seen":
		e.FirstSeen, err = d.str("first_seen")
	case "last_seen":
		e.LastSeen, err = d.str("last_seen")
	case "status":
		e.Status, err = d.str("status")
	case "artifact_path":
		e.ArtifactPath, err = d.str("artifact_path")
	case "mayBeStale":
		e.MayBeStale, err = d.flag("mayBeStale")
	case "staleReason":
		e.StaleReason, err = d.str("staleReason")
	case "needsReview":
		e.NeedsReview, err = d.flag("needsReview")
	case "softCapExceeded":
		e.SoftCapExceeded, err = d.flag("softCapExceeded")
	case "deprecated_at":
		e.DeprecatedAt, err = d.str("deprecated_at")
	default:
		err = d.dec.SkipValue()
	}
	return err
}

func (d *decoder) flag(key string) (bool, error) {
	b, err := d.boolean(key)
	return b != nil && *b, err
}

func (d *decoder) evidence(out Evidences) (Evidences, error) {
	if d.null() {
		return nil, nil
	}
	err := d.array(func() error {
		if d.dec.PeekKind() == '"' {
			s, err := d.str("evidence")
			out = append(out, Evidence{Text: s})
			return err
		}
		var ev Evidence
		err := d.object(func(k []byte) (err error) {
			switch string(k) {
			case "text":
				ev.Text, err = d.str("evidence.text")
			case "at":
				ev.At, err = d.str("evidence.at")
			default:
				err = d.dec.SkipValue()
			}
			return err
		})
		out = append(out, ev)
		return err
	})
	if out == nil && err == nil {
		out = Evidences{}
	}
	return out, err
}

func (d *decoder) marks() (map[string]*Mark, error) {
	if d.null() {
		return nil, nil
	}
	out := map[string]*Mark{}
	err := d.object(func(k []byte) error {
		name := string(k)
		if d.null() {
			out[name] = nil
			return nil
		}
		m := &Mark{}
		out[name] = m
		return d.mark(m)
	})
	return out, err
}

func (d *decoder) mark(m *Mark) error {
	return d.object(func(k []byte) (err error) {
		switch string(k) {
		case "seq":
			m.Seq, err = d.int("seq")
		case "at":
			m.At, err = d.str("at")
		case "eid":
			m.EID, err = d.str("eid")
		case "reason":
			m.Reason, err = d.str("reason")
		case "path":
			m.Path, err = d.str("path")
		case "anchor":
			m.Anchor, err = d.str("anchor")
		case "factor":
			m.Factor, err = d.num("factor")
		case "on":
			m.On, err = d.boolean("on")
		case "legacy_confidence":
			if d.null() {
				return nil
			}
			var c float64
			c, err = d.num("legacy_confidence")
			m.Legacy = &c
		default:
			err = d.dec.SkipValue()
		}
		return err
	})
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '[':
		return "a list"
	case '{':
		return "an object"
	}
	return "nothing"
}
