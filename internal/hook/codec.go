package hook

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
)

// Codec maps another agent's hook JSON to the one Input every handler
// reads, and the one Output they return to what that agent honours, so
// that agents differ only in their adapters (internal/agent/...).
type Codec interface {
	// Decode reads one hook input of the agent's from dec into in.
	Decode(event string, dec *jsontext.Decoder, in *Input) error
	// Encode is what the agent is to read on stdout; nil prints nothing.
	Encode(event string, o *Output) []byte
}

// JSONLine is v as an agent reads it: one JSON object, no HTML escaping
// (it would only lengthen the text), one newline.
func JSONLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.Bytes()
}
