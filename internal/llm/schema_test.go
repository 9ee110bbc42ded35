package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The hand-written validator must give the verdict a conforming JSON
// Schema implementation gives on the schema sent to the model. The library
// is used here only, in tests: linked into the binary, its start-up cost
// was paid by every hook.
func TestValidatorAgreesWithJSONSchema(t *testing.T) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("answer.json", parsed); err != nil {
		t.Fatal(err)
	}
	ref, err := c.Compile("answer.json#/$defs/observation")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	values := map[string][]string{
		"id":         {`"obs_abcdef"`, `"OBS_X"`, `"obs_"`, `1`, `"obs_0123456789ab"`, `null`},
		"type":       {`"pitfall"`, `"workflow"`, `"Pitfall"`, `"lesson"`, `3`, `null`},
		"pattern":    {`"p"`, `""`, `"   "`, `"` + strings.Repeat("a", 300) + `"`, `"` + strings.Repeat("a", 301) + `"`, `"é"`, `7`},
		"details":    {`""`, `"d"`, `"` + strings.Repeat("d", 4001) + `"`, `false`},
		"evidence":   {`[]`, `["e"]`, `[1]`, `"e"`, `["a","b","c","d","e","f","g","h","i","j","k"]`, `["` + strings.Repeat("e", 301) + `"]`},
		"quality_ok": {`true`, `false`, `"yes"`, `null`},
		"extra":      {`1`},
	}
	keys := []string{"id", "type", "pattern", "details", "evidence", "quality_ok", "extra"}
	for n := 0; n < 3000; n++ {
		var parts []string
		for _, k := range keys {
			skip := r.Intn(8) == 0
			if k == "id" || k == "extra" {
				skip = r.Intn(3) != 0
			}
			if skip {
				continue
			}
			vs := values[k]
			name := k
			if r.Intn(12) == 0 {
				name = strings.ToUpper(k) // a name in another case is another name
			}
			parts = append(parts, fmt.Sprintf("%q:%s", name, vs[r.Intn(len(vs))]))
			if k == "pattern" && r.Intn(12) == 0 {
				parts = append(parts, fmt.Sprintf("%q:%s", "patteRN", `"q"`))
			}
		}
		raw := "{" + strings.Join(parts, ",") + "}"
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		want := ref.Validate(v) == nil
		_, got := validateItem(json.RawMessage(raw))
		if (got == nil) != want {
			t.Fatalf("%s: the validator says %v, JSON Schema says valid=%v", raw, got, want)
		}
	}
}
