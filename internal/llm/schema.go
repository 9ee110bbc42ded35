package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/devlearn/devlearn/internal/observe"
)

// MaxItems is how many observations one answer may hold; the rest are
// dropped (and logged), since a session worth more than this is more
// likely a model listing everything than a session full of lessons.
const MaxItems = 20

// idPattern is the observation id shape of contract 6, as observe accepts it.
const idPattern = `^obs_[a-z0-9]{6,40}$`

// schemaDoc is the JSON Schema of an answer. It is built from observe's
// own limits and types, so that what the model is told, what is validated
// and what `devlearn observe` accepts can never drift apart. The same
// document is sent to the model (--json-schema and the prompt) and used to
// validate every item it returns.
func schemaDoc() map[string]any {
	types := make([]any, len(observe.Types))
	for i, t := range observe.Types {
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

const schemaURL = "devlearn-llm-answer.json"

type compiled struct {
	text []byte             // the schema as sent to the model
	item *jsonschema.Schema // one observation
}

var schema = sync.OnceValue(func() compiled {
	doc := schemaDoc()
	text, err := json.Marshal(doc)
	if err != nil {
		panic(err) // a literal map of strings, numbers and slices
	}
	// The compiler wants the document as its own decoder reads it (numbers
	// as json.Number), so it is read back from the text sent to the model.
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, parsed); err != nil {
		panic(err)
	}
	// TestSchemaCompiles proves these cannot fail at run time.
	item, err := c.Compile(schemaURL + "#/$defs/observation")
	if err != nil {
		panic(err)
	}
	return compiled{text: text, item: item}
})

// Schema returns the JSON Schema of the answer the extractor accepts.
func Schema() []byte { return bytes.Clone(schema().text) }

// item is one observation as the model returns it, once it has validated.
type item struct {
	ID        string   `json:"id"`
	Type      string   `json:"type"`
	Pattern   string   `json:"pattern"`
	Details   string   `json:"details"`
	Evidence  []string `json:"evidence"`
	QualityOK bool     `json:"quality_ok"`
}

// validateItem checks one raw item against the schema and decodes it.
func validateItem(raw json.RawMessage) (item, error) {
	var it item
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return it, fmt.Errorf("not JSON: %v", err)
	}
	if err := schema().item.Validate(v); err != nil {
		return it, fmt.Errorf("does not match the schema: %s", validationMessage(err))
	}
	// The schema has allowed exactly these fields with these types, so
	// this cannot fail; it is checked anyway rather than trusted.
	if err := json.Unmarshal(raw, &it); err != nil {
		return it, fmt.Errorf("not an observation: %v", err)
	}
	return it, nil
}

// validationMessage flattens a validation error to one line: its leaves,
// which name the field and what was wrong, without the schema's URL.
func validationMessage(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return oneLine(err.Error())
	}
	p := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, at+": "+oneLine(e.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}
