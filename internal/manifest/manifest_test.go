package manifest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

const devflowManifest = `{"schemaVersion":1,"entries":[
 {"observationId":"obs_g7h8i9","type":"workflow","path":"/Users/someone/project/.claude/commands/self-learning/release.md","contentHash":"1a2b3c4d","renderedAt":"2026-04-05T00:00:00Z"},
 {"observationId":"obs_a1b2c3","type":"pitfall","path":"/home/me/repo/.memory/knowledge/pitfalls.md","contentHash":"0badf00d","renderedAt":"2026-04-05T00:00:00Z","anchorId":"PF-001"},
 {"observationId":"obs_x","type":"decision","path":".memory/knowledge/decisions.md","contentHash":"ab","renderedAt":"2026-04-05T00:00:00Z","anchorId":"ADR-001"}
]}`

func TestDevflowManifestIsMigrated(t *testing.T) {
	m, migrated, err := Parse([]byte(devflowManifest), "/home/me/repo")
	if err != nil {
		t.Fatal(err)
	}
	if m.SchemaVersion != SchemaVersion || len(m.Entries) != 3 {
		t.Fatalf("%+v", m)
	}
	want := map[string]string{
		"obs_g7h8i9": ".claude/commands/self-learning/release.md",
		"obs_a1b2c3": ".memory/knowledge/pitfalls.md",
		"obs_x":      ".memory/knowledge/decisions.md",
	}
	for id, p := range want {
		if got := m.Get(id).Path; got != p {
			t.Errorf("%s: %s, want %s", id, got, p)
		}
	}
	if len(migrated) != 2 {
		t.Errorf("migrations %+v", migrated)
	}
}

func TestPutKeepsOneEntryPerObservation(t *testing.T) {
	m := &Manifest{}
	m.Put(Entry{ObservationID: "a", Path: "x", ContentHash: "1"})
	m.Put(Entry{ObservationID: "a", Path: "x", ContentHash: "2"})
	m.Put(Entry{ObservationID: "b", Path: "a"})
	if len(m.Entries) != 2 || m.Get("a").ContentHash != "2" {
		t.Fatalf("%+v", m.Entries)
	}
	if !strings.Contains(string(m.Bytes()), "\"schemaVersion\": 2") || strings.Index(string(m.Bytes()), `"b"`) > strings.Index(string(m.Bytes()), `"a"`) {
		t.Fatalf("entries must be sorted by path:\n%s", m.Bytes())
	}
}

func TestDecodeIsEncodingJSONs(t *testing.T) {
	good := []byte(devflowManifest)
	docs := []string{
		`{"SchemaVersion":2,"ENTRIES":[{"ObservationId":"a","PATH":"x"}]}`, // names matched without case
		`{"schemaVersion":2,"schemaVersion":3,"entries":[]}`,               // a name twice
		`{"schemaVersion":null,"entries":null}`,
		`{"schemaVersion":2,"entries":[{"observationId":"a\xffb","path":"\xc3"}]}`, // invalid UTF-8
		`{"schemaVersion":2.0,"entries":[]}`,
		`{"schemaVersion":"2","entries":[{"observationId":1}]}`,
		`{"schemaVersion":2,"entries":[{"observationId":"a","extra":{"x":[1,2]}}],"more":true}`,
		`{"schemaVersion":2,"entries":[{"observationId":"\ud800","path":"\u00e9\n"}]}`,
		`[]`, `null`, `{}`, `{"entries":{}}`, ` {"schemaVersion":1e2} `, `{"schemaVersion":2} x`,
		// What decodeFast takes, and what it leaves to the full decoder.
		`{"schemaVersion":2,"entries":[]}`, `{"entries":[],"schemaVersion":-0}`, "\t{ \"schemaVersion\" :\r\n2 } ",
		`{"schemaVersion":2,"entries":[{"observationId":"a","type":"t","path":"p","contentHash":"h","renderedAt":"r","anchorId":"A","sources":"s"}]}`,
		`{"schemaVersion":2,"entries":[{"observationId":"a","observationId":"b"}]}`,
		`{"schemaVersion":2,"entries":[{"observationid":"a"}]}`,
		`{"schemaVersion":2,"entries":[{"observationId":"a\u00e9\"b"}]}`,
		`{"schemaVersion":2,"entries":[{"path":"é/ü.md","type":"\u003c"}]}`,
		`{"schemaVersion":2,"entries":[{"path":"a` + "\x01" + `"}]}`,
		`{"schemaVersion":2,"entries":[{}]}`, `{"schemaVersion":2,"entries":[{"path":null}]}`,
		`{"schemaVersion":2,"entries":[{"path":"a"},]}`, `{"schemaVersion":2,"entries":[{"path":"a",}]}`,
		`{"schemaVersion":2,}`, `{"schemaVersion":2 "entries":[]}`, `{"schemaVersion":02}`, `{"schemaVersion":-}`,
		`{"schemaVersion":99999999999999999999}`, `{"schemaVersion":-9223372036854775808}`, `{"schemaVersion":2.5}`,
		`{"schemaVersion":2,"entries":null}`, `{"schemaVersion":2,"entries":[{"path":"a"}]`, `{"schemaVersion":2,"entries":[{"path":"a"}]}}`,
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		d := []byte(string(good))
		for n := rng.IntN(3) + 1; n > 0; n-- {
			at := rng.IntN(len(d))
			switch rng.IntN(3) {
			case 0:
				const junk = `{}[]":,0 aZ\-.`
				d[at] = junk[rng.IntN(len(junk))]
			case 1:
				d = append(d[:at:at], d[at+1:]...)
			default:
				d = append(d[:at:at], append([]byte(string(d[at:min(len(d), at+8)])), d[at:]...)...)
			}
		}
		docs = append(docs, string(d))
	}
	for _, doc := range docs {
		var got, want Manifest
		gotErr, wantErr := decode([]byte(doc), &got), json.Unmarshal([]byte(doc), &want)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v, %v\nwant %+v, %v", doc, got, gotErr, want, wantErr)
		}
	}
}

// The manifest devlearn writes is read by decodeFast (not by the full
// decoder after it refused), to what encoding/json reads; so is every
// copy of it with its entries' strings changed in ways the fast path
// takes or leaves (non-ASCII, escapes, control characters, invalid UTF-8).
func TestDecodeFastTakesWhatBytesWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	texts := []string{"a", "é", "<&>", "a\\b", "\"", "\n", "\x7f", "\xff", "ü/ö.md", ""}
	for round := 0; round < 500; round++ {
		m := &Manifest{}
		for i := 0; i < rng.IntN(6); i++ {
			pick := func() string { return texts[rng.IntN(len(texts))] + fmt.Sprint(rng.IntN(3)) }
			m.Put(Entry{ObservationID: pick(), Type: pick(), Path: pick(), ContentHash: pick(), RenderedAt: pick(), AnchorID: pick(), Sources: pick()})
		}
		data := m.Bytes()
		var want Manifest
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := decodeFast(data)
		plain := !strings.Contains(string(data), `\`) // Bytes escapes what is not plain, and what is not UTF-8
		if ok != plain || (ok && !reflect.DeepEqual(got, want)) {
			t.Fatalf("%s:\n fast %v %#v\nwant %#v", data, ok, got, want)
		}
	}
}
