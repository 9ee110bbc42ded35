package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/templates"
)

// Preset is a named bundle of gates.
type Preset struct {
	Name        string       `json:"name"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Gates       config.Gates `json:"gates"`
	raw         json.RawMessage
}

// Presets lists the built-in presets, by name.
func Presets() ([]*Preset, error) {
	names, err := fs.Glob(templates.GatePresets, "gates/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Preset
	for _, n := range names {
		data, err := templates.GatePresets.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var raw struct {
			Gates json.RawMessage `json:"gates"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("preset %s: %w", n, err)
		}
		// Checked as a config file would be: a preset is config.
		c, err := config.Parse(n, []byte(`{"gates": `+string(raw.Gates)+`}`))
		if err != nil {
			return nil, err
		}
		p := &Preset{raw: raw.Gates}
		if err := json.Unmarshal(data, p); err != nil {
			return nil, err
		}
		p.Gates = c.Gates
		if p.Name != strings.TrimSuffix(path.Base(n), ".json") {
			return nil, fmt.Errorf("preset %s names itself %q", n, p.Name)
		}
		out = append(out, p)
	}
	return out, nil
}

// FindPreset returns the preset called name (case folded).
func FindPreset(name string) (*Preset, error) {
	all, err := Presets()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range all {
		if strings.EqualFold(p.Name, name) || strings.EqualFold(p.Title, name) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("no gate preset %q (presets: %s)", name, strings.Join(names, ", "))
}

// Applied is what applying a preset changed in one list of gates.
type Applied struct {
	List  string   `json:"list"` // "post.implement", "stop"
	Added []string `json:"added"`
	Kept  []string `json:"kept"` // a gate of that name was there: left as it is
}

// Apply returns the config file data with the preset's gates added: each
// list gets the preset's gates it lacks (by name); a gate already there
// under the same name is left as the person wrote it. The result is
// checked as a config file before it is returned.
func (p *Preset) Apply(name string, data []byte) ([]byte, []Applied, error) {
	root := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&root); err != nil {
			return nil, nil, fmt.Errorf("%s: not valid JSON: %w", name, err)
		}
	}
	var preset map[string]any
	dec := json.NewDecoder(bytes.NewReader(p.raw))
	dec.UseNumber()
	if err := dec.Decode(&preset); err != nil {
		return nil, nil, err
	}
	gates, _ := root["gates"].(map[string]any)
	if gates == nil {
		gates = map[string]any{}
	}
	var changes []Applied
	merge := func(list string, have any, add []any) []any {
		cur, _ := have.([]any)
		a := Applied{List: list, Added: []string{}, Kept: []string{}}
		for _, g := range add {
			gname, _ := g.(map[string]any)["name"].(string)
			if slices.ContainsFunc(cur, func(x any) bool {
				m, _ := x.(map[string]any)
				n, _ := m["name"].(string)
				return n == gname
			}) {
				a.Kept = append(a.Kept, gname)
				continue
			}
			cur = append(cur, g)
			a.Added = append(a.Added, gname)
		}
		changes = append(changes, a)
		return cur
	}
	for _, when := range []string{"pre", "post"} {
		stages, _ := preset[when].(map[string]any)
		if len(stages) == 0 {
			continue
		}
		have, _ := gates[when].(map[string]any)
		if have == nil {
			have = map[string]any{}
		}
		for _, stage := range config.Stages {
			add, _ := stages[stage].([]any)
			if len(add) > 0 {
				have[stage] = merge(when+"."+stage, have[stage], add)
			}
		}
		gates[when] = have
	}
	if add, _ := preset["stop"].([]any); len(add) > 0 {
		gates["stop"] = merge("stop", gates["stop"], add)
	}
	root["gates"] = gates
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, nil, err
	}
	if _, err := config.Parse(name, buf.Bytes()); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), changes, nil
}

// PresetOf is a preset of the given gates (the JSON of a "gates" value),
// for a caller that adds gates of its own the way a preset does (a
// proposal a person accepted in 'devlearn learn --review').
func PresetOf(name string, gates json.RawMessage) *Preset {
	return &Preset{Name: name, Title: name, raw: gates}
}
