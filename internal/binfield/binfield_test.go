package binfield

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// fields writes one of each field from the fuzzer's values, in an order
// read back by readFields.
func fields(u uint64, i int64, s string, b bool, f float64, x uint32) []byte {
	e := &Encoder{}
	e.Uint(u)
	e.Int(i)
	e.Str(s)
	e.Bool(b)
	e.Float(f)
	e.Fixed32(x)
	e.Str("")
	e.Uint(uint64(len(s)))
	return e.B
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		u uint64
		i int64
		s string
		b bool
		f float64
		x uint32
	}{
		{0, 0, "", false, 0, 0},
		{1, -1, "a", true, -0.5, 1},
		{127, 63, strings.Repeat("é", 100), true, math.Inf(1), 0xdeadbeef},
		{128, -64, "\x00\xff", false, math.SmallestNonzeroFloat64, math.MaxUint32},
		{math.MaxUint64, math.MinInt64, "x", true, math.MaxFloat64, 7},
		{1 << 63, math.MaxInt64, "y", false, -math.MaxFloat64, 8},
	} {
		d := &Decoder{S: string(fields(c.u, c.i, c.s, c.b, c.f, c.x))}
		u, i, s, b, f, x, empty, n := d.Uint(), d.Int(), d.Str(), d.Bool(), d.Float(), d.Fixed32(), d.Str(), d.Count(len(c.s))
		if err := d.Done(); err != nil || u != c.u || i != c.i || s != c.s || b != c.b || f != c.f || x != c.x || empty != "" || n != len(c.s) {
			t.Fatalf("%+v read back as %v %v %q %v %v %v %q %v, %v", c, u, i, s, b, f, x, empty, n, err)
		}
	}
}

// The bytes are encoding/binary's varints and little-endian numbers, a
// bool the same byte as the uvarint 0 or 1: caches written before this
// package existed read the same.
func TestBytes(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, math.MaxUint32, math.MaxUint64} {
		e := &Encoder{}
		e.Uint(v)
		if string(e.B) != string(binary.AppendUvarint(nil, v)) {
			t.Fatalf("Uint(%d) = %x", v, e.B)
		}
		e = &Encoder{}
		e.Int(int64(v))
		if string(e.B) != string(binary.AppendVarint(nil, int64(v))) {
			t.Fatalf("Int(%d) = %x", int64(v), e.B)
		}
	}
	for _, b := range []bool{false, true} {
		e, u := &Encoder{}, &Encoder{}
		e.Bool(b)
		if b {
			u.Uint(1)
		} else {
			u.Uint(0)
		}
		if string(e.B) != string(u.B) {
			t.Fatalf("Bool(%v) = %x, Uint = %x", b, e.B, u.B)
		}
	}
	e := &Encoder{}
	e.Str("ab")
	e.Fixed32(0x04030201)
	e.Float(1)
	if got, want := string(e.B), "\x02ab\x01\x02\x03\x04"+string(binary.LittleEndian.AppendUint64(nil, math.Float64bits(1))); got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// Every way a field can be damaged is corrupt, and the failure sticks:
// what is read after it is zero, and Done reports it.
func TestCorrupt(t *testing.T) {
	overflow := "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"
	for name, read := range map[string]func(*Decoder){
		"uint, cut":           func(d *Decoder) { d.S = "\x80"; d.Uint() },
		"uint, empty":         func(d *Decoder) { d.Uint() },
		"uint, overflow":      func(d *Decoder) { d.S = overflow; d.Uint() },
		"uint, eleven bytes":  func(d *Decoder) { d.S = "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00"; d.Uint() },
		"int, overflow":       func(d *Decoder) { d.S = overflow; d.Int() },
		"str, longer":         func(d *Decoder) { d.S = "\x03ab"; d.Str() },
		"str, huge":           func(d *Decoder) { d.S = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01ab"; d.Str() },
		"bool, 2":             func(d *Decoder) { d.S = "\x02"; d.Bool() },
		"bool, varint 0":      func(d *Decoder) { d.S = "\x80\x00"; d.Bool() },
		"bool, empty":         func(d *Decoder) { d.Bool() },
		"float, cut":          func(d *Decoder) { d.S = "1234567"; d.Float() },
		"fixed32, cut":        func(d *Decoder) { d.S = "123"; d.Fixed32() },
		"count, beyond limit": func(d *Decoder) { d.S = "\x05"; d.Count(4) },
		"left over":           func(d *Decoder) { d.S = "\x01\x01"; d.Uint() },
	} {
		d := &Decoder{}
		read(d)
		if err := d.Done(); err != ErrCorrupt {
			t.Errorf("%s: %v", name, err)
		}
		if d.S != "" || d.Uint() != 0 || d.Str() != "" || d.Err != ErrCorrupt {
			t.Errorf("%s: reads on after failing", name)
		}
	}
	d := &Decoder{S: "\x05"}
	if d.Count(5) != 5 || d.Done() != nil {
		t.Fatal("a count at its limit is corrupt")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint64(300), int64(-5), "hello", true, 1.5, uint32(7), []byte("\x02ab\x01"))
	f.Add(uint64(math.MaxUint64), int64(math.MinInt64), "", false, math.NaN(), uint32(0), []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"))
	f.Add(uint64(0), int64(0), "é", false, 0.0, uint32(math.MaxUint32), []byte{})
	f.Fuzz(func(t *testing.T, u uint64, i int64, s string, b bool, fl float64, x uint32, raw []byte) {
		// Any bytes: every read returns, none panics, and the input only
		// shrinks.
		for op := 0; op < 8; op++ {
			d := &Decoder{S: string(raw)}
			for k := 0; d.Err == nil && d.S != ""; k++ {
				before := len(d.S)
				switch (op + k) % 8 {
				case 0:
					d.Uint()
				case 1:
					d.Int()
				case 2:
					if v := d.Str(); len(v) > before {
						t.Fatal("a string longer than the input")
					}
				case 3:
					d.Bool()
				case 4:
					d.Float()
				case 5:
					d.Fixed32()
				case 6:
					if n := d.Count(len(d.S)); n > before {
						t.Fatal("a count beyond its limit")
					}
				case 7:
					d.Done()
				}
				if d.Err == nil && (op+k)%8 != 7 && len(d.S) >= before {
					t.Fatal("a field read nothing")
				}
			}
		}
		// Encoded values read back as they were written, then nothing.
		d := &Decoder{S: string(fields(u, i, s, b, fl, x))}
		gu, gi, gs, gb, gf, gx, empty, n := d.Uint(), d.Int(), d.Str(), d.Bool(), d.Float(), d.Fixed32(), d.Str(), d.Count(len(s))
		if err := d.Done(); err != nil || gu != u || gi != i || gs != s || gb != b || math.Float64bits(gf) != math.Float64bits(fl) || gx != x || empty != "" || n != len(s) {
			t.Fatalf("read back %v %v %q %v %v %v %q %v, %v", gu, gi, gs, gb, gf, gx, empty, n, err)
		}
	})
}
