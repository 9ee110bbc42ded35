package hook

import (
	"bytes"
	"math"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// reflected is Input without its decoder: what decoding by reflection,
// which the hand-written decoder replaced, makes of the same input.
type reflected Input

func decodeBoth(t *testing.T, in []byte) {
	t.Helper()
	var hand Input
	errHand := hand.UnmarshalJSONFrom(jsontext.NewDecoder(bytes.NewReader(in)))
	var refl reflected
	errRefl := jsonv2.UnmarshalDecode(jsontext.NewDecoder(bytes.NewReader(in)), &refl)
	if (errHand == nil) != (errRefl == nil) {
		t.Fatalf("%q: hand-written error %v, by reflection %v", in, errHand, errRefl)
	}
	if errHand == nil && hand != Input(refl) {
		t.Fatalf("%q:\nhand-written %+v\nby reflection %+v", in, hand, refl)
	}
}

// The hand-written decoder reads every input as reflection did: the same
// fields, the same inputs refused.
func TestInputDecodesAsByReflection(t *testing.T) {
	for _, in := range []string{
		`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"toolu_1","tool_input":{"file_path":"/p/a.go","content":"package a"}}`,
		`{"prompt":"hi","source":"startup","reason":"clear","stop_hook_active":true,"last_assistant_message":"done"}`,
		`{"stop_hook_active":null,"cwd":null,"unknown":{"a":[1,2,{"b":null}]},"tool_input":[1,2]}`,
		`{"tool_input":{"command":["ls"],"file_path":7,"notebook_path":"n.ipynb"}}`,
		`{}`,
		` {"cwd":"/p"} `,
		`{"session_id": 5}`,
		`{"stop_hook_active":"yes"}`,
		`{"cwd":"/a","cwd":"/b"}`,
		`[1,2]`,
		`"text"`,
		`null`,
		`{"cwd":"/p"`,
		`{"tool_name":`,
		`{not json`,
		``,
		"{\"cwd\":\"\xff\"}",
	} {
		decodeBoth(t, []byte(in))
	}
}

func FuzzInputDecodesAsByReflection(f *testing.F) {
	for _, s := range []string{`{"cwd":"/p","tool_input":{"file_path":"a"}}`, `{"stop_hook_active":true}`, `{"session_id":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { decodeBoth(t, in) })
}

// shown is Output without its encoder: what encoding it by reflection,
// which the hand-written encoder replaced, prints.
type shown Output

func encodeBoth(t *testing.T, o Output) {
	t.Helper()
	hand := o.Encode()
	refl := JSONLine(shown(o))
	if !bytes.Equal(hand, refl) {
		t.Fatalf("%+v:\nhand-written %q\nby reflection %q", o, hand, refl)
	}
}

// Every output is printed byte for byte as encoding/json printed it.
func TestOutputEncodesAsJSONLine(t *testing.T) {
	for _, o := range []Output{
		{},
		{HookSpecificOutput: Specific{HookEventName: "PreToolUse", AdditionalContext: "devlearn: <b>x</b> & \"y\"\n\t\\z"}},
		{HookSpecificOutput: Specific{HookEventName: "PreToolUse", PermissionDecision: "ask", PermissionDecisionReason: "r\u2028s\u2029t"}},
		{HookSpecificOutput: Specific{AdditionalContext: "no event name"}},
		{Decision: "block", Reason: "gate \x00\x01\x1f\x7f failed \xff\xfe", SystemMessage: "日本語 ✓ 😀"},
		{HookSpecificOutput: Specific{HookEventName: "Stop"}, SystemMessage: "\b\f\r"},
	} {
		encodeBoth(t, o)
	}
}

func FuzzOutputEncodesAsJSONLine(f *testing.F) {
	f.Add("PreToolUse", "", "context <&>\n", "", "")
	f.Add("", "ask", "\u2028\xff", "block", "\x00")
	f.Fuzz(func(t *testing.T, event, decision, text, topDecision, msg string) {
		encodeBoth(t, Output{
			HookSpecificOutput: Specific{HookEventName: event, PermissionDecision: decision, AdditionalContext: text},
			Decision:           topDecision, Reason: text, SystemMessage: msg,
		})
	})
}

func claimBoth(t *testing.T, rec Served) {
	t.Helper()
	hand, err := rec.appendJSON([]byte("x"))
	want := bytes.TrimSuffix(JSONLine(rec), []byte("\n"))
	if err != nil {
		t.Fatalf("%+v: %v", rec, err)
	}
	if !bytes.Equal(hand[1:], want) {
		t.Fatalf("%+v:\nhand-written %s\nby reflection %s", rec, hand[1:], want)
	}
}

// A claim's record is written as encoding/json writes it (HTML escaping
// off, as every line devlearn appends).
func TestServedEncodesAsByReflection(t *testing.T) {
	for _, rec := range []Served{
		{},
		{At: "2026-05-10T09:00:00Z", Event: "pre-tool-use", Tool: "Write", ToolUseID: "toolu_1", ID: "k1", Ref: "entries/a.md#x", Path: "src/a&b<c>.go", Score: 0.8123456789, Ask: true},
		{Score: 1e-7}, {Score: -2.5e-9}, {Score: 1e21}, {Score: 123456789012}, {Score: -0.0}, {Score: 5},
		{Ref: "\u2028\xff\x00\"\\"},
	} {
		claimBoth(t, rec)
	}
	if _, err := (Served{Score: math.NaN()}).appendJSON(nil); err == nil {
		t.Fatal("a NaN score was written")
	}
}

func FuzzServedEncodesAsByReflection(f *testing.F) {
	f.Add("2026-05-10T09:00:00Z", "entries/a.md", "src/a.go", 0.5, true)
	f.Fuzz(func(t *testing.T, at, ref, path string, score float64, ask bool) {
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return
		}
		claimBoth(t, Served{At: at, Event: "pre-tool-use", Ref: ref, Path: path, Score: score, Ask: ask})
	})
}
