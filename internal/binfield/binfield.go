// Package binfield is the field encoding of devlearn's binary caches (the
// knowledge cache and the fold cache): unsigned and zigzag varints,
// strings as a uvarint length and their bytes, bools as one byte,
// little-endian fixed-width numbers.
//
// A Decoder reads from a string without allocating: the strings it returns
// are views of its input, so a cache read from a file costs one allocation
// for all of its text. Whatever the bytes, it fails rather than panics: a
// field it cannot read sets Err to ErrCorrupt and empties the input, so
// that every read after it is a cheap zero, and the caller checks Err once
// at the end. Each cache keeps its own structure (sections, records,
// states, the arenas it decodes into) and embeds these two types.
package binfield

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrCorrupt is any input that does not decode.
var ErrCorrupt = errors.New("corrupt binary fields")

// Encoder appends fields to B.
type Encoder struct{ B []byte }

func (e *Encoder) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }
func (e *Encoder) Int(v int64)   { e.B = binary.AppendVarint(e.B, v) }
func (e *Encoder) Str(s string)  { e.Uint(uint64(len(s))); e.B = append(e.B, s...) }

// Bool writes 0 or 1: the same byte as Uint(0) or Uint(1).
func (e *Encoder) Bool(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

func (e *Encoder) Float(f float64)  { e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(f)) }
func (e *Encoder) Fixed32(v uint32) { e.B = binary.LittleEndian.AppendUint32(e.B, v) }

// Decoder reads fields from S, the input not yet read.
type Decoder struct {
	S   string
	Err error
}

// Fail marks the input corrupt: nothing more is read from it.
func (d *Decoder) Fail() { d.Err = ErrCorrupt; d.S = "" }

// Done is the decoder's error, or ErrCorrupt when bytes are left over:
// whatever was written was read in full, and nothing else.
func (d *Decoder) Done() error {
	if d.Err == nil && d.S != "" {
		d.Fail()
	}
	return d.Err
}

// Uint reads a uvarint; one that overflows 64 bits is corrupt.
func (d *Decoder) Uint() uint64 {
	var v uint64
	for i := 0; i < len(d.S) && i < binary.MaxVarintLen64; i++ {
		c := d.S[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflow
			}
			d.S = d.S[i+1:]
			return v
		}
	}
	d.Fail()
	return 0
}

// Int reads a zigzag varint.
func (d *Decoder) Int() int64 {
	u := d.Uint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// Str reads a string: a view of the input, not a copy.
func (d *Decoder) Str() string {
	n := d.Uint()
	if n > uint64(len(d.S)) {
		d.Fail()
		return ""
	}
	v := d.S[:n]
	d.S = d.S[n:]
	return v
}

// Bool reads one byte, 0 or 1; any other is corrupt.
func (d *Decoder) Bool() bool {
	if len(d.S) < 1 || d.S[0] > 1 {
		d.Fail()
		return false
	}
	v := d.S[0] == 1
	d.S = d.S[1:]
	return v
}

func (d *Decoder) Float() float64 {
	if len(d.S) < 8 {
		d.Fail()
		return 0
	}
	var b [8]byte
	copy(b[:], d.S)
	d.S = d.S[8:]
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

func (d *Decoder) Fixed32() uint32 {
	if len(d.S) < 4 {
		d.Fail()
		return 0
	}
	v := uint32(d.S[0]) | uint32(d.S[1])<<8 | uint32(d.S[2])<<16 | uint32(d.S[3])<<24
	d.S = d.S[4:]
	return v
}

// Count reads a uvarint that is a count or an index of at most limit (the
// bytes left, say, when each element takes one at least): a damaged input
// never makes its reader allocate without bound.
func (d *Decoder) Count(limit int) int {
	v := d.Uint()
	if v > uint64(limit) {
		d.Fail()
		return 0
	}
	return int(v)
}
