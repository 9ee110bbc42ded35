package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
)

// MaxItems is how many observations one answer may hold; the rest are
// dropped (and logged), since a session worth more than this is more
// likely a model listing everything than a session full of lessons.
const MaxItems = 20

// idPattern is the observation id shape (the observation ids rule, docs/architecture.md), as observe accepts it.
const idPattern = observe.IDPattern

// schemaDoc is the JSON Schema of an answer. It is built from observe's
// own limits and types, so that what the model is told, what is validated
// and what `devlearn observe` accepts can never drift apart. The same
// document is sent to the model (--json-schema and the prompt) and used to
// validate every item it returns.
func schemaDoc() map[string]any {
	types := make([]any, len(lesson.Names()))
	for i, t := range lesson.Names() {
		types[i] = t
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"observations"},
		"properties": map[string]any{
			"observations": map[string]any{
				"type":     "array",
				"maxItems": MaxItems,
				"items":    map[string]any{"$ref": "#/$defs/observation"},
			},
		},
		"$defs": map[string]any{
			"observation": map[string]any{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []any{"type", "pattern", "details", "evidence", "quality_ok"},
				"properties": map[string]any{
					"id":   map[string]any{"type": "string", "pattern": idPattern},
					"type": map[string]any{"enum": types},
					"pattern": map[string]any{
						"type": "string", "minLength": 1, "maxLength": observe.MaxPatternRunes,
						// At least one character that is not white space.
						"pattern": `\S`,
					},
					"details": map[string]any{"type": "string", "maxLength": observe.MaxDetailsRunes},
					"evidence": map[string]any{
						"type": "array", "maxItems": observe.MaxEvidence,
						"items": map[string]any{"type": "string", "maxLength": observe.MaxEvidenceRunes},
					},
					"quality_ok": map[string]any{"type": "boolean"},
				},
			},
		},
	}
}

// schemaText is the schema as sent to the model.
var schemaText = sync.OnceValue(func() []byte {
	text, err := json.Marshal(schemaDoc())
	if err != nil {
		panic(err) // a literal map of strings, numbers and slices
	}
	return text
})

// Schema returns the JSON Schema of the answer the extractor accepts.
func Schema() []byte { return bytes.Clone(schemaText()) }

// item is one observation as the model returns it, once it has validated.
type item struct {
	ID        string   `json:"id"`
	Type      string   `json:"type"`
	Pattern   string   `json:"pattern"`
	Details   string   `json:"details"`
	Evidence  []string `json:"evidence"`
	QualityOK bool     `json:"quality_ok"`
}

// validateItem checks one raw item against the schema of schemaDoc and
// decodes it. The checks are written out rather than run by a JSON Schema
// library: the one that passed the official suite compiles its
// meta-schemas when the program starts, 6.6 ms that every hook paid. A
// test holds these checks to that library's verdicts on the same schema.
func validateItem(raw json.RawMessage) (item, error) {
	var it item
	var in struct {
		ID        *string   `json:"id"`
		Type      *string   `json:"type"`
		Pattern   *string   `json:"pattern"`
		Details   *string   `json:"details"`
		Evidence  *[]string `json:"evidence"`
		QualityOK *bool     `json:"quality_ok"`
	}
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		return it, fmt.Errorf("not JSON")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return it, fmt.Errorf("does not match the schema: /: want object")
	}
	// The schema's names exactly, and no null: encoding/json matches field
	// names whatever their case ("TYPE", or "patteRN" after "pattern"
	// overriding it) and reads null as absent, where the schema refuses
	// both.
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &keys); err != nil {
		return it, fmt.Errorf("not an observation: %v", err)
	}
	for k, v := range keys {
		switch k {
		case "id", "type", "pattern", "details", "evidence", "quality_ok":
		default:
			return it, fmt.Errorf("does not match the schema: /: additional properties are not allowed (unknown field %q)", k)
		}
		if string(bytes.TrimSpace(v)) == "null" {
			return it, fmt.Errorf("does not match the schema: /%s: got null", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			at := "/" + strings.ReplaceAll(te.Field, ".", "/")
			if strings.HasPrefix(te.Field, "evidence") {
				at = "/evidence/0" // the decoder does not say which item
			}
			return it, fmt.Errorf("does not match the schema: %s: got %s, want %s", at, te.Value, te.Type)
		case strings.Contains(err.Error(), "unknown field"):
			return it, fmt.Errorf("does not match the schema: /: additional properties are not allowed (%s)", strings.TrimPrefix(err.Error(), "json: "))
		}
		return it, fmt.Errorf("not an observation: %v", err)
	}
	var problems []string
	bad := func(at, why string) { problems = append(problems, at+": "+why) }
	for _, f := range []struct {
		name string
		set  bool
	}{{"type", in.Type != nil}, {"pattern", in.Pattern != nil}, {"details", in.Details != nil}, {"evidence", in.Evidence != nil}, {"quality_ok", in.QualityOK != nil}} {
		if !f.set {
			bad("/", "missing property '"+f.name+"'")
		}
	}
	if len(problems) > 0 {
		return it, fmt.Errorf("does not match the schema: %s", strings.Join(problems, "; "))
	}
	if !observe.ValidType(*in.Type) {
		bad("/type", fmt.Sprintf("%q is not one of %s", *in.Type, strings.Join(lesson.Names(), ", ")))
	}
	if n := utf8.RuneCountInString(*in.Pattern); n < 1 || n > observe.MaxPatternRunes || strings.TrimSpace(*in.Pattern) == "" {
		bad("/pattern", fmt.Sprintf("must hold 1 to %d characters, not all white space", observe.MaxPatternRunes))
	}
	if utf8.RuneCountInString(*in.Details) > observe.MaxDetailsRunes {
		bad("/details", fmt.Sprintf("longer than %d characters", observe.MaxDetailsRunes))
	}
	if len(*in.Evidence) > observe.MaxEvidence {
		bad("/evidence", fmt.Sprintf("more than %d items", observe.MaxEvidence))
	}
	for i, e := range *in.Evidence {
		if utf8.RuneCountInString(e) > observe.MaxEvidenceRunes {
			bad(fmt.Sprintf("/evidence/%d", i), fmt.Sprintf("longer than %d characters", observe.MaxEvidenceRunes))
		}
	}
	if in.ID != nil && !observe.ValidID(*in.ID) {
		bad("/id", "does not match "+idPattern)
	}
	if len(problems) > 0 {
		return it, fmt.Errorf("does not match the schema: %s", strings.Join(problems, "; "))
	}
	it = item{Type: *in.Type, Pattern: *in.Pattern, Details: *in.Details, Evidence: *in.Evidence, QualityOK: *in.QualityOK}
	if in.ID != nil {
		it.ID = *in.ID
	}
	return it, nil
}
