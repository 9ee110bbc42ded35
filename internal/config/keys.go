package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Key is one settable leaf of the Config, as `learn --configure` offers it.
type Key struct {
	Path string // dotted: "extractor.model"
	Kind string // bool, int, number, string, list
	Doc  string
	Min  string
	Max  string
	Enum []string
}

// Keys lists every settable key of the Config, in struct order.
func Keys() []Key {
	var out []Key
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if name == "$schema" {
				continue
			}
			path := join(prefix, name)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, path)
				continue
			}
			k := Key{Path: path, Doc: f.Tag.Get("doc"), Min: f.Tag.Get("min"), Max: f.Tag.Get("max")}
			if e := f.Tag.Get("enum"); e != "" {
				k.Enum = strings.Split(e, ",")
			}
			switch f.Type.Kind() {
			case reflect.Bool:
				k.Kind = "bool"
			case reflect.Int:
				k.Kind = "int"
			case reflect.Float64:
				k.Kind = "number"
			case reflect.String:
				k.Kind = "string"
			case reflect.Slice:
				k.Kind = "list"
				if f.Type.Elem().Kind() == reflect.Struct {
					k.Kind = "json" // a list of objects, such as gates
				}
			}
			out = append(out, k)
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	return out
}

// LookupKey finds a key by its dotted path.
func LookupKey(path string) (Key, bool) {
	for _, k := range Keys() {
		if k.Path == path {
			return k, true
		}
	}
	return Key{}, false
}

// Get returns the value of a key in c, formatted as Set accepts it.
func (c *Config) Get(path string) string {
	v := reflect.ValueOf(c).Elem()
	for _, part := range strings.Split(path, ".") {
		found := false
		for i := 0; i < v.Type().NumField(); i++ {
			if jsonName(v.Type().Field(i)) == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return ""
		}
	}
	if v.Kind() == reflect.Slice {
		b, _ := json.Marshal(v.Interface())
		return string(b)
	}
	return fmt.Sprint(v.Interface())
}

// ParseValue turns the text of a value (as typed after --set key=) into
// the JSON value of the key's kind. A list is a JSON array or items
// separated by commas.
func (k Key) ParseValue(s string) (any, error) {
	switch k.Kind {
	case "bool":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("key %q: %q is not true or false", k.Path, s)
		}
		return b, nil
	case "int":
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("key %q: %q is not a whole number", k.Path, s)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("key %q: %q is not a number", k.Path, s)
		}
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), nil
	case "json":
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("key %q: %q is not JSON (a list of objects: [{...}])", k.Path, s)
		}
		return json.RawMessage(s), nil
	case "list":
		if strings.HasPrefix(strings.TrimSpace(s), "[") {
			var list []string
			if err := json.Unmarshal([]byte(s), &list); err != nil {
				return nil, fmt.Errorf("key %q: %q is not a JSON list of strings", k.Path, s)
			}
			return list, nil
		}
		list := []string{}
		for _, item := range strings.Split(s, ",") {
			if item = strings.TrimSpace(item); item != "" {
				list = append(list, item)
			}
		}
		return list, nil
	}
	return s, nil
}

// SetIn returns the JSON document data with key set to value, keeping
// every other key; numbers are kept as written. data may be empty.
func SetIn(data []byte, path string, value any) ([]byte, error) {
	root := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&root); err != nil {
			return nil, err
		}
	}
	parts := strings.Split(path, ".")
	m := root
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = value
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
