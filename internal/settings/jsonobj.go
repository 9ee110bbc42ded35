package settings

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/devlearn/devlearn/internal/jsonpos"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// SyntaxError is a settings file that is not the JSON object Claude Code
// reads: where, and what is wrong. The file is never written when it is
// returned.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var readOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// member is one top-level member of the settings object and where its
// bytes are, so that it can be replaced or removed while every other byte
// of the file stays exactly as the person (or another tool) wrote it.
type member struct {
	key                        string
	keyStart, valStart, valEnd int
}

// object is the top-level object of a settings file.
type object struct {
	data        []byte
	open, close int // offsets of '{' and '}'
	members     []member
}

func parseObject(name string, data []byte) (*object, error) {
	o := &object{data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), readOpts...)
	if k := dec.PeekKind(); k != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return nil, syntaxError(name, data, err)
		}
		return nil, &SyntaxError{File: name, Line: 1, Col: 1, Msg: "must be a JSON object ({...})"}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntaxError(name, data, err)
	}
	o.open = int(dec.InputOffset()) - 1
	for dec.PeekKind() != '}' {
		k, err := dec.ReadValue()
		if err != nil {
			return nil, syntaxError(name, data, err)
		}
		keyEnd := int(dec.InputOffset())
		var key string
		if err := jsonUnquote(k, &key); err != nil {
			return nil, syntaxError(name, data, err)
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil, syntaxError(name, data, err)
		}
		end := int(dec.InputOffset())
		o.members = append(o.members, member{key: key, keyStart: keyEnd - len(k), valStart: end - len(v), valEnd: end})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntaxError(name, data, err)
	}
	o.close = int(dec.InputOffset()) - 1
	if rest := bytes.TrimLeft(data[o.close+1:], " \t\r\n"); len(rest) > 0 {
		line, col := jsonpos.At(data, int64(len(data)-len(rest)))
		return nil, &SyntaxError{File: name, Line: line, Col: col, Msg: "more than one JSON value in the file"}
	}
	return o, nil
}

func jsonUnquote(raw jsontext.Value, dst *string) error {
	b, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return err
	}
	*dst = string(b)
	return nil
}

func syntaxError(name string, data []byte, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		line, col := jsonpos.At(data, se.ByteOffset)
		msg := se.Err.Error()
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			msg = "the file ends too early"
		}
		return &SyntaxError{File: name, Line: line, Col: col, Msg: "not valid JSON: " + msg}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		line, col := jsonpos.At(data, int64(len(data)))
		return &SyntaxError{File: name, Line: line, Col: col, Msg: "not valid JSON: the file ends too early"}
	}
	return &SyntaxError{File: name, Msg: "not valid JSON: " + err.Error()}
}

func (o *object) get(key string) (jsontext.Value, bool) {
	for _, m := range o.members {
		if m.key == key {
			return jsontext.Value(o.data[m.valStart:m.valEnd]), true
		}
	}
	return nil, false
}

// indentUnit guesses the file's indentation from its first member: the
// white space between the start of its line and its key. Two spaces when
// there is nothing to go by.
func (o *object) indentUnit() string {
	if len(o.members) == 0 {
		return "  "
	}
	start := o.members[0].keyStart
	i := start
	for i > 0 && (o.data[i-1] == ' ' || o.data[i-1] == '\t') {
		i--
	}
	if i == start || i == 0 || o.data[i-1] != '\n' {
		return "  "
	}
	return string(o.data[i:start])
}

// with returns the file's bytes with key set to value (value nil removes
// it). The value is indented as the file is; every other byte is kept.
func (o *object) with(key string, value jsontext.Value) []byte {
	unit := o.indentUnit()
	var val []byte
	if value != nil {
		v := value.Clone()
		if err := v.Indent(jsontext.WithIndentPrefix(unit), jsontext.WithIndent(unit)); err == nil {
			val = v
		} else {
			val = value
		}
	}
	data := o.data
	if len(bytes.TrimSpace(data)) == 0 {
		if val == nil {
			return data
		}
		return fmt.Appendf(nil, "{\n%s%s: %s\n}\n", unit, quote(key), val)
	}
	for i, m := range o.members {
		if m.key != key {
			continue
		}
		switch {
		case val != nil:
			return splice(data, m.valStart, m.valEnd, val)
		case i > 0:
			// Drop ",<space>"key": value" after the previous member.
			return splice(data, o.members[i-1].valEnd, m.valEnd, nil)
		case len(o.members) > 1:
			return splice(data, m.keyStart, o.members[1].keyStart, nil)
		default:
			return splice(data, o.open+1, o.close, []byte("\n"))
		}
	}
	if val == nil {
		return data
	}
	if n := len(o.members); n > 0 {
		ins := fmt.Appendf(nil, ",\n%s%s: %s", unit, quote(key), val)
		return splice(data, o.members[n-1].valEnd, o.members[n-1].valEnd, ins)
	}
	return splice(data, o.open+1, o.close, fmt.Appendf(nil, "\n%s%s: %s\n", unit, quote(key), val))
}

func splice(data []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(with))
	out = append(out, data[:from]...)
	out = append(out, with...)
	return append(out, data[to:]...)
}

func quote(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}

// kv is one member of a nested object, kept raw so that members devlearn
// does not own are written back as they were.
type kv struct {
	key string
	val jsontext.Value
}

type orderedObj []kv

func decodeObj(v jsontext.Value) (orderedObj, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), readOpts...)
	if dec.PeekKind() != '{' {
		return nil, errors.New("not an object")
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	var out orderedObj
	for dec.PeekKind() != '}' {
		k, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		var key string
		if err := jsonUnquote(k, &key); err != nil {
			return nil, err
		}
		val, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		out = append(out, kv{key, val.Clone()})
	}
	_, err := dec.ReadToken()
	return out, err
}

func decodeArray(v jsontext.Value) ([]jsontext.Value, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), readOpts...)
	if dec.PeekKind() != '[' {
		return nil, errors.New("not a list")
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	var out []jsontext.Value
	for dec.PeekKind() != ']' {
		val, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		out = append(out, val.Clone())
	}
	_, err := dec.ReadToken()
	return out, err
}

func (o orderedObj) get(key string) (jsontext.Value, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

func (o orderedObj) set(key string, val jsontext.Value) orderedObj {
	for i := range o {
		if o[i].key == key {
			o[i].val = val
			return o
		}
	}
	return append(o, kv{key, val})
}

func (o orderedObj) encode() jsontext.Value {
	var b []byte
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = jsontext.AppendQuote(b, m.key)
		b = append(b, ':')
		b = append(b, m.val...)
	}
	return append(b, '}')
}

func encodeArray(vals []jsontext.Value) jsontext.Value {
	var b []byte
	b = append(b, '[')
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

func stringValue(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	var s string
	if jsonUnquote(v, &s) != nil {
		return "", false
	}
	return s, true
}

func strValue(s string) jsontext.Value { return jsontext.Value(quote(s)) }
