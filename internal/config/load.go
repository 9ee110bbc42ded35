package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/devlearn/devlearn/internal/jsonpos"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// GlobalFile is the name of the global config inside $DEVLEARN_HOME.
const GlobalFile = "config.json"

// Error is a problem with a config file: where it is and what to do.
type Error struct {
	File string // path as given to Load
	Line int    // 1-based; 0 when unknown
	Key  string // dotted key, "" for a syntax error
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Source is one file that contributed to a Config.
type Source struct {
	Path string
	Data []byte
	// keys are the top-level keys the file sets: what is validated.
	keys []string
}

// line is the line of a dotted key in the file. Only an error needs it,
// and walking the file for it costs as much as the rest of the load, so
// it is found when asked for.
func (s Source) line(key string) (int, bool) {
	line, ok := keyLines(s.Data)[key]
	return line, ok
}

// Loaded is a Config and the files it came from, global first.
type Loaded struct {
	*Config
	Sources []Source
}

// Load reads the global file then the project file over it, key by key.
// A missing file is not an error; anything wrong inside one is, with the
// file, the line and the key.
func Load(globalPath, projectPath string) (*Loaded, error) {
	l := &Loaded{Config: Default()}
	for _, p := range []string{globalPath, projectPath} {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		src, err := apply(l.Config, p, data)
		if err != nil {
			return nil, err
		}
		l.Sources = append(l.Sources, src)
	}
	if errs := l.Config.validateSet(l.Sources); len(errs) > 0 {
		// Blame the last file that set the key: that is the value in force.
		first := errs[0]
		for i := len(l.Sources) - 1; i >= 0; i-- {
			if line, ok := l.Sources[i].line(first.Key); ok {
				first.File, first.Line = l.Sources[i].Path, line
				break
			}
		}
		if first.File == "" {
			first.File = "defaults"
		}
		return nil, first
	}
	return l, nil
}

// LoadProject is Load with devlearn's two standard places.
func LoadProject(home, root string) (*Loaded, error) {
	g := ""
	if home != "" {
		g = filepath.Join(home, GlobalFile)
	}
	p := ""
	if root != "" {
		p = filepath.Join(root, ".memory", "learning.json")
	}
	return Load(g, p)
}

// Parse checks one file on its own over the defaults, as `learn
// --configure` and `doctor` do before writing or trusting it.
func Parse(path string, data []byte) (*Config, error) {
	c := Default()
	src, err := apply(c, path, data)
	if err != nil {
		return nil, err
	}
	if errs := c.validateSet([]Source{src}); len(errs) > 0 {
		e := errs[0]
		e.File = path
		e.Line, _ = src.line(e.Key)
		return nil, e
	}
	return c, nil
}

func apply(c *Config, path string, data []byte) (Source, error) {
	src := Source{Path: path, Data: data}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		e := &Error{File: path, Msg: "not valid JSON: " + err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e.Line = lineAt(data, se.Offset)
			e.Msg = "not valid JSON: " + se.Error()
		}
		return src, e
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return src, &Error{File: path, Line: 1, Msg: "must be a JSON object ({...})"}
	}
	if err := checkKeys(reflect.TypeOf(Config{}), obj, ""); err != nil {
		err.File = path
		err.Line, _ = src.line(err.Key)
		return src, err
	}
	resetLists(reflect.ValueOf(c).Elem(), obj)
	if err := decodeKeys(c, data); err != nil {
		e := &Error{File: path, Msg: err.Error()}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			e.Key, e.Line = te.Field, lineAt(data, te.Offset)
			e.Msg = fmt.Sprintf("is %s, want %s", te.Value, kindName(te.Type))
		}
		return src, e
	}
	src.keys = make([]string, 0, len(obj))
	for k := range obj {
		src.keys = append(src.keys, k)
	}
	return src, nil
}

// decodeKeys decodes data, an object whose keys checkKeys accepted, over
// c one top-level key at a time. Decoding it whole would have
// encoding/json work out how to decode every part of the Config, on every
// hook call, for a file that usually sets one key ("enabled"); this way
// only the parts the file sets are looked at. A type error keeps its place
// in the file and its dotted key.
func decodeKeys(c *Config, data []byte) error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		start := dec.InputOffset() - int64(len(raw))
		i := fieldIndex(t, key)
		if i < 0 {
			continue // checkKeys let no such key through
		}
		if err := json.Unmarshal(raw, v.Field(i).Addr().Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				if te.Field == "" {
					te.Field = key
				} else {
					te.Field = key + "." + te.Field
				}
				te.Offset += start
			}
			return err
		}
	}
	return nil
}

// fieldIndex is the index of the field of struct t whose JSON name is
// name; -1 when none is.
func fieldIndex(t reflect.Type, name string) int {
	for i := 0; i < t.NumField(); i++ {
		if jsonName(t.Field(i)) == name {
			return i
		}
	}
	return -1
}

// checkKeys rejects keys the Config does not have, naming the ones it does.
func checkKeys(t reflect.Type, obj map[string]any, prefix string) *Error {
	fields := map[string]reflect.StructField{}
	var allowed []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := jsonName(f)
		fields[name] = f
		allowed = append(allowed, name)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := fields[k]
		path := join(prefix, k)
		if !ok {
			return &Error{Key: path, Msg: "unknown key (allowed here: " + strings.Join(allowed, ", ") + ")"}
		}
		switch {
		case f.Type.Kind() == reflect.Struct:
			sub, ok := obj[k].(map[string]any)
			if !ok {
				return &Error{Key: path, Msg: "must be an object ({...})"}
			}
			if err := checkKeys(f.Type, sub, path); err != nil {
				return err
			}
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			list, ok := obj[k].([]any)
			if !ok {
				if obj[k] == nil {
					continue
				}
				return &Error{Key: path, Msg: "must be a list ([{...}, ...])"}
			}
			for i, item := range list {
				sub, ok := item.(map[string]any)
				if !ok {
					return &Error{Key: fmt.Sprintf("%s[%d]", path, i), Msg: "must be an object ({...})"}
				}
				if err := checkKeys(f.Type.Elem(), sub, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resetLists empties the lists of objects a file sets before it is
// decoded over the config: encoding/json decodes a list into the elements
// already there, so a gate of the global file would lend the fields a
// project's gate leaves out. A file's list replaces the list before it.
func resetLists(v reflect.Value, obj map[string]any) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		val, ok := obj[jsonName(f)]
		if !ok {
			continue
		}
		switch {
		case f.Type.Kind() == reflect.Struct:
			if sub, ok := val.(map[string]any); ok {
				resetLists(v.Field(i), sub)
			}
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			v.Field(i).SetZero()
		}
	}
}

// Validate checks every value against its min, max and enum tags.
func (c *Config) Validate() []*Error {
	var errs []*Error
	validate(reflect.ValueOf(c).Elem(), "", &errs)
	return errs
}

// validateSet is Validate for the parts of c that files set (their
// top-level keys): the defaults are valid (TestDefaultsAreValid), and a
// hook that loads a config setting one key need not walk the others.
func (c *Config) validateSet(sources []Source) []*Error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	var errs []*Error
	done := map[int]bool{}
	for _, src := range sources {
		for _, k := range src.keys {
			i := fieldIndex(t, k)
			if i < 0 || done[i] {
				continue
			}
			done[i] = true
			validateField(v, i, "", &errs)
		}
	}
	// In the order Validate reports them, whatever the files' order.
	sort.SliceStable(errs, func(a, b int) bool { return fieldOf(t, errs[a].Key) < fieldOf(t, errs[b].Key) })
	return errs
}

// fieldOf is the index of the top-level field a dotted key is under.
func fieldOf(t reflect.Type, key string) int {
	top, _, _ := strings.Cut(key, ".")
	top, _, _ = strings.Cut(top, "[")
	return fieldIndex(t, top)
}

func validate(v reflect.Value, prefix string, errs *[]*Error) {
	for i := 0; i < v.NumField(); i++ {
		validateField(v, i, prefix, errs)
	}
}

// validateField checks the i-th field of struct v, and what it holds.
func validateField(v reflect.Value, i int, prefix string, errs *[]*Error) {
	f := v.Type().Field(i)
	key := join(prefix, jsonName(f))
	fv := v.Field(i)
	if f.Type.Kind() == reflect.Struct {
		validate(fv, key, errs)
		return
	}
	if fv.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
		for j := 0; j < fv.Len(); j++ {
			validate(fv.Index(j), fmt.Sprintf("%s[%d]", key, j), errs)
		}
		return
	}
	if f.Tag.Get("nonempty") == "true" && fv.Kind() == reflect.String && strings.TrimSpace(fv.String()) == "" {
		*errs = append(*errs, &Error{Key: key, Msg: "must not be empty"})
	}
	if enum := f.Tag.Get("enum"); enum != "" {
		allowed := strings.Split(enum, ",")
		switch {
		case fv.Kind() == reflect.String && !contains(allowed, fv.String()):
			*errs = append(*errs, &Error{Key: key, Msg: fmt.Sprintf("%q is not allowed (allowed: %s)", fv.String(), strings.Join(allowed, ", "))})
		case fv.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			for j := 0; j < fv.Len(); j++ {
				if item := fv.Index(j).String(); !contains(allowed, item) {
					*errs = append(*errs, &Error{Key: key, Msg: fmt.Sprintf("%q is not allowed (allowed: %s)", item, strings.Join(allowed, ", "))})
				}
			}
		}
	}
	var num float64
	switch fv.Kind() {
	case reflect.Int:
		num = float64(fv.Int())
	case reflect.Float64:
		num = fv.Float()
	default:
		return
	}
	lo, hi := f.Tag.Get("min"), f.Tag.Get("max")
	if lo == "" && hi == "" {
		return
	}
	min, _ := strconv.ParseFloat(lo, 64)
	max, _ := strconv.ParseFloat(hi, 64)
	if num < min || num > max {
		*errs = append(*errs, &Error{Key: key, Msg: fmt.Sprintf("%v is out of range (allowed: %s to %s)", num, lo, hi)})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(kindName(t.Elem()), "a ") + "s"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

// lineAt turns a byte offset into a 1-based line number.
func lineAt(data []byte, off int64) int {
	line, _ := jsonpos.At(data, off)
	return line
}

// keyLines maps every dotted key of a JSON document to the line it is on.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(prefix string) bool
	walk = func(prefix string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if _, seen := lines[prefix]; !seen && prefix != "" {
			lines[prefix] = lineAt(data, dec.InputOffset())
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return true
		}
		switch d {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				k, _ := kt.(string)
				path := join(prefix, k)
				lines[path] = lineAt(data, dec.InputOffset())
				if !walk(path) {
					return false
				}
			}
		case '[':
			// Objects in a list are named by their index, as errors
			// name them: "gates.stop[1].timeout".
			for i := 0; dec.More(); i++ {
				if !walk(fmt.Sprintf("%s[%d]", prefix, i)) {
					return false
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	walk("")
	return lines
}
