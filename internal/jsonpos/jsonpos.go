// Package jsonpos turns the byte offsets JSON decoders report into the
// line and column a person finds in an editor, so that every "not valid
// JSON" error devlearn prints names the same place the same way.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/go-json-experiment/json/jsontext"
)

// At returns the 1-based line and column of the byte at offset off in
// data (the end of data if off is beyond it).
func At(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Of returns where in data a decoder's syntax error is, if err is one:
// encoding/json's SyntaxError (its offset is just past the offending
// byte) or jsontext's SyntacticError (its offset is at it).
func Of(data []byte, err error) (line, col int, ok bool) {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col = At(data, se.Offset-1)
		return line, col, true
	}
	var te *jsontext.SyntacticError
	if errors.As(err, &te) {
		line, col = At(data, te.ByteOffset)
		return line, col, true
	}
	return 0, 0, false
}
