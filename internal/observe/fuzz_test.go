package observe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// FuzzDecodeEvent: any line either folds or is reported (never a panic),
// and whatever folds survives a compaction unchanged.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"op":"observe","eid":"e1","at":"2026-04-01T09:00:00Z","src":"s1","id":"obs_aaaaaa","type":"pitfall","pattern":"p","evidence":["x"],"quality_ok":true}`,
		`{"id":"obs_a1b2c3","type":"pitfall","pattern":"P","confidence":0.95,"observations":2,"first_seen":"2026-04-19T00:00:00Z","last_seen":"2026-04-25T00:00:00Z","status":"created"}`,
		`{"op":"snapshot","id":"obs_x","type":"decision","pattern":"d","sources":{"s":"2026-04-01T00:00:00Z"},"marks":{"deprecated":{"at":"2026-04-02T00:00:00Z","eid":"e"}}}`,
		`{"op":"penalize","eid":"e","at":"2026-04-01T09:00:00Z","id":"obs_aaaaaa","factor":0.3}`,
		`{"op":"flag","id":"obs_aaaaaa","flag":"stale","on":false,"at":"2026-04-01T09:00:00Z"}`,
		`{"op":"tombstone","id":"obs_aaaaaa","at":"2026-04-01T09:00:00Z"}`,
		`{"op":"count","id":"entry:k","counter":"used","eid":"c"}`,
		`{"op":"observe","eid":"e2","at":"2026-04-02T09:00:00Z","src":"s2","id":"obs_aaaaaa","type":"pitfall","pattern":"p","weight":3}`,
		`{"op":"snapshot","id":"obs_x","type":"decision","pattern":"d","sources":{"s":"2026-04-01T00:00:00Z"},"weights":{"s":{"3":"2026-04-01T00:00:00Z"}},"counted":{"applied":"2026-04-01T00:00:00Z"}}`,
		`{"op":"snapshot","id":"obs_x","type":"decision","pattern":"d","marks":{"created":null},"flags":{"stale":null}}`,
		`{"evidence":[1,2]}`, `[]`, `null`, `{"id":""}`,
	} {
		f.Add([]byte(s))
	}
	cfg := config.Default()
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n\r") {
			return
		}
		l, err := Fold(bytes.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := l.WriteCompacted(&buf, t0, cfg); err != nil {
			t.Fatal(err)
		}
		l2, err := Fold(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(l.Observations(t0, cfg))
		b, _ := json.Marshal(l2.Observations(t0, cfg))
		if !bytes.Equal(a, b) {
			t.Fatalf("compaction changed the state of %q:\n%s\n%s", line, a, b)
		}
		if len(l.Problems) != len(l2.Problems) {
			t.Fatalf("compaction changed the problems of %q: %v vs %v", line, l.Problems, l2.Problems)
		}
	})
}

// FuzzFastDecode: the one-pass decoder of common lines decodes a line
// exactly as the tokenizing decoder does, or leaves it to it; it never
// accepts a line the tokenizer rejects.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"op":"observe","eid":"e1","at":"2026-04-01T09:00:00Z","src":"s1","id":"obs_aaaaaa","type":"pitfall","pattern":"p\u00e9 \"q\"","evidence":["x","é"],"quality_ok":true}`,
		`{"id":"obs_a1b2c3","type":"pitfall","pattern":"P","confidence":0.95,"observations":2,"first_seen":"2026-04-19T00:00:00Z","status":"created","mayBeStale":true,"x":[1]}`,
		`{"op":"penalize","eid":"e","at":"2026-04-01T09:00:00Z","id":"obs_aaaaaa","factor":3e-1,"seq":2,"on":null,"confidence":null}`,
		` { "id" : "a" , "unknown":-0.5e+3 , "k2":false} `, `{"id":"a"} x`, `{"id":"a","id":"b"}`, `{"evidence":[]}`, `{"evidence":null}`,
		`{"op":"observe","eid":"e2","at":"2026-04-01T09:00:00Z","src":"s2","id":"obs_aaaaaa","type":"pitfall","pattern":"p","weight":3}`,
		`{"weight":null}`, `{"weight":2.5}`, `{"counted":{"applied":"2026-04-01T09:00:00Z"}}`, `{"weights":{"s":{"3":"2026-04-01T09:00:00Z"}}}`,
		// Strings long enough for str to step over eight bytes at a time,
		// with what must stop it at every offset of a word.
		`{"id":"obs_0123456789abcdef","pattern":"Lesson number 12 about the \"build\" scripts, é and \u00e9 after","details":"area: scripts/hooks/12345678; issue: x"}`,
		"{\"pattern\":\"abcdefghijklmno\x01pq\"}", "{\"pattern\":\"abcdefghijklmnop\xffq\"}", `{"pattern":"abcdefghijklmnopqrstuvwxyz\\"}`,
		// Short strings, which str ends with IndexByte: what must send
		// them to the loop before the quote it finds.
		"{\"id\":\"ab\x01\"}", `{"id":"a\"b"}`, `{"id":"a\\"}`, "{\"id\":\"a\xc3\xa9\"}", "{\"id\":\"\x7f\"}",
		`{"seq":1.5}`, `{"seq":01}`, `{"pattern":"\ud800"}`, `{"pattern":"a\u0000b"}`, "{\"pattern\":\"\xff\"}", `{}`, `[]`, `{"a":}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, views := range []bool{false, true} {
			var slow, fast Event
			ds := decoder{views: views}
			ds.line = line
			ds.r.Reset(line)
			ds.dec.Reset(&ds.r, decodeOpts)
			errSlow := ds.object(func(key []byte) error { return ds.field(key, &slow) })
			if errSlow == nil {
				if _, err := ds.dec.ReadToken(); err == nil {
					errSlow = errMoreThanOne
				}
			}
			df := decoder{views: views, line: line}
			if !df.fast(line, &fast) {
				continue
			}
			if errSlow != nil {
				t.Fatalf("fast accepted %q, which the tokenizer rejects: %v", line, errSlow)
			}
			if !reflect.DeepEqual(slow, fast) {
				t.Fatalf("decoders disagree on %q:\n fast %+v\n slow %+v", line, fast, slow)
			}
		}
	})
}
