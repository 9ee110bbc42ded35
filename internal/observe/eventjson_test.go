package observe

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/jsonstr/jsonstrtest"
)

// marshalEvent writes what encoding/json writes, byte for byte, for events
// of every field it covers and of those it leaves to encoding/json: the
// ids of events derive from these bytes.
func TestMarshalEventIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	yes, no := true, false
	bools := []*bool{nil, &yes, &no}
	conf := 0.5
	for i := range 200000 {
		str := func() string {
			if r.IntN(3) == 0 {
				return ""
			}
			return jsonstrtest.Text(r, 6)
		}
		e := &Event{Op: str(), EID: str(), At: str(), Src: str(), ID: str(), Seq: r.IntN(3) - 1,
			Type: str(), Pattern: str(), Details: str(), QualityOK: bools[r.IntN(3)], Weight: r.IntN(3),
			Path: str(), Anchor: str(), Reason: str(), Flag: str(), On: bools[r.IntN(3)], Counter: str()}
		for n := r.IntN(3); n > 0; n-- {
			e.Evidence = append(e.Evidence, Evidence{Text: jsonstrtest.Text(r, 6)})
		}
		switch i % 7 { // now and then a field left to encoding/json
		case 1:
			e.Evidence = append(e.Evidence, Evidence{Text: "x", At: "2026-04-10T00:00:00Z"})
		case 2:
			e.Confidence = &conf
		case 3:
			e.Status = "ready"
		case 4:
			e.Factor = 0.8
		}
		got, err := marshalEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("event %+v:\n got %s\nwant %s", e, got, want)
		}
	}
}

// BenchmarkNewEvent records one render's intent event: what a bulk render
// does a thousand times, with its created twin.
func BenchmarkNewEvent(b *testing.B) {
	now := time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for range b.N {
		e := NewEvent(OpIntent, "obs_00002710", now, "render", func(ev *Event) {
			ev.Path, ev.Anchor, ev.Seq = ".claude/commands/self-learning/lesson-number-9980.md", "", 3
		})
		if _, err := encodeAll([]*Event{e}); err != nil {
			b.Fatal(err)
		}
	}
}

// A field added to Event is written by marshalEvent or left to
// encoding/json, never dropped: each field set alone, through reflection,
// is written as encoding/json writes it.
func TestMarshalEventCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[Event]()
	for i := range typ.NumField() {
		e := &Event{ID: "obs_1"}
		f := reflect.ValueOf(e).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("v<")
		case reflect.Int:
			f.SetInt(7)
		case reflect.Float64:
			f.SetFloat(0.25)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			v := reflect.New(f.Type().Elem())
			if v.Elem().Kind() == reflect.Float64 {
				v.Elem().SetFloat(0.5)
			}
			f.Set(v)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", typ.Field(i).Name, f.Kind())
		}
		got, err := marshalEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(e)
		if !bytes.Equal(got, want) {
			t.Errorf("field %s:\n got %s\nwant %s", typ.Field(i).Name, got, want)
		}
	}
}
