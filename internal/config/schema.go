package config

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// SchemaID is what `devlearn init` writes as the "$schema" of a project's
// learning.json: the schema file it also writes beside it, so editors can
// complete and check keys offline.
const SchemaID = "./learning.schema.json"

// Schema returns the JSON Schema of the config file, derived from the same
// struct tags that drive defaults and validation.
func Schema() ([]byte, error) {
	s := schemaOf(reflect.TypeOf(Config{}), reflect.ValueOf(*Default()))
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = "devlearn configuration (.memory/learning.json, $DEVLEARN_HOME/config.json)"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func schemaOf(t reflect.Type, def reflect.Value) map[string]any {
	switch t.Kind() {
	case reflect.Struct:
		props := map[string]any{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			p := schemaOf(f.Type, def.Field(i))
			if d := f.Tag.Get("doc"); d != "" {
				p["description"] = d
			}
			if enum := f.Tag.Get("enum"); enum != "" {
				if f.Type.Kind() == reflect.Slice {
					p["items"].(map[string]any)["enum"] = strings.Split(enum, ",")
				} else {
					p["enum"] = strings.Split(enum, ",")
				}
			}
			if f.Tag.Get("nonempty") == "true" {
				p["minLength"] = 1
			}
			if v, err := strconv.ParseFloat(f.Tag.Get("min"), 64); err == nil {
				p["minimum"] = v
			}
			if v, err := strconv.ParseFloat(f.Tag.Get("max"), 64); err == nil {
				p["maximum"] = v
			}
			if f.Type.Kind() != reflect.Struct && jsonName(f) != "$schema" {
				if d := def.Field(i); d.Kind() == reflect.Slice && d.IsNil() {
					p["default"] = []any{}
				} else {
					p["default"] = d.Interface()
				}
			}
			props[jsonName(f)] = p
		}
		return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), reflect.Zero(t.Elem()))}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	default:
		return map[string]any{"type": "string"}
	}
}
