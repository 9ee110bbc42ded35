// Register and Unregister put devlearn's MCP server in a project's Codex
// config (.codex/config.toml, read for a trusted project) and take it
// out again. The file is the person's: it is edited as text, so that
// every other line, comment and table stays as written. Where mcp_servers
// is an inline table devlearn's server goes inside it; otherwise its
// table is appended. Every edit is parsed before it is returned: one that
// is not TOML, or that changes anything but devlearn's server, is refused
// with what to add by hand, never written.
//
// The parser is go-toml's: its decoder holds to the TOML specification
// (BurntSushi's, even at v1.6, accepts a table appended to an inline
// table, which Codex refuses), and its syntax tree gives the byte range of
// each key and value, which is what an edit of the person's text needs.

package configtoml

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// File is the project's Codex config, from the repository's root.
const File = ".codex/config.toml"

// header opens devlearn's table.
const header = "[mcp_servers.devlearn]"

// table is devlearn's server as Codex starts it: 'devlearn mcp' over stdio.
const table = header + "\ncommand = \"devlearn\"\nargs = [\"mcp\"]\n"

// inline is the same server as an entry of an inline table.
const inline = `devlearn = { command = "devlearn", args = ["mcp"] }`

// byHand is what a refusal tells the person to add.
const byHand = `add it by hand: [mcp_servers.devlearn] command = "devlearn" args = ["mcp"]`

// State is what the file says of devlearn's server.
type State int

const (
	Absent State = iota // no server named devlearn
	Ours                // devlearn's, as Register writes it
	Other               // a server named devlearn that is not devlearn's
)

// ServerState parses the file and says whether devlearn's server is in it. A
// file that is not TOML is an error naming it with the line and column.
func ServerState(data []byte) (State, error) {
	doc, err := decode(data)
	if err != nil {
		return Absent, err
	}
	return stateOf(doc), nil
}

func decode(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: not valid TOML: %s", File, row, col, de.Error())
		}
		return nil, fmt.Errorf("%s: not valid TOML: %v", File, err)
	}
	return doc, nil
}

func stateOf(doc map[string]any) State {
	servers, _ := doc["mcp_servers"].(map[string]any)
	s, ok := servers["devlearn"]
	if !ok {
		return Absent
	}
	m, _ := s.(map[string]any)
	args, _ := m["args"].([]any)
	if len(m) == 2 && m["command"] == "devlearn" && len(args) == 1 && args[0] == "mcp" {
		return Ours
	}
	return Other
}

// Register returns the file with devlearn's server in it. kept: a server
// named devlearn that is not devlearn's is there, and is left alone. A
// file devlearn cannot add its server to is an error saying why and what
// to add by hand.
func Register(data []byte) (out []byte, changed, kept bool, err error) {
	doc, err := decode(data)
	if err != nil {
		return data, false, false, err
	}
	switch stateOf(doc) {
	case Ours:
		return data, false, false, nil
	case Other:
		return data, false, true, nil
	}
	if v, ok := doc["mcp_servers"]; ok {
		if _, isTable := v.(map[string]any); !isTable {
			return data, false, false, fmt.Errorf("%s:%d: mcp_servers is %s, not a table of servers: devlearn cannot register its server; %s", File, rootKeyLine(data), kindOf(v), byHand)
		}
	}
	if kv := rootInline(data); kv != nil {
		out = insertInline(data, kv)
	} else {
		out = appendTable(data)
	}
	if err := sameBut(doc, out, Ours); err != nil {
		return data, false, false, err
	}
	return out, true, false, nil
}

// appendTable is the file with devlearn's table after everything in it,
// in the file's line endings.
func appendTable(data []byte) []byte {
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	out := append([]byte{}, data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, nl...)
	}
	if len(bytes.TrimSpace(out)) > 0 {
		out = append(out, nl...)
	}
	return append(out, strings.ReplaceAll(table, "\n", nl)...)
}

// inlineTable is a root-level `mcp_servers = { … }` of the file: where its
// value ends (the byte after its closing brace) and its entries.
type inlineTable struct {
	end     int
	entries []entryRange
	// commaLast: the last entry is followed by a comma (TOML 1.1).
	commaLast bool
}

type entryRange struct {
	name       string
	start, end int
}

// rootInline finds mcp_servers written as an inline table before the
// first table header, or nil.
func rootInline(data []byte) *inlineTable {
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		n := p.Expression()
		if n.Kind == unstable.Table || n.Kind == unstable.ArrayTable {
			return nil
		}
		if n.Kind != unstable.KeyValue || keyOf(n) != "mcp_servers" || n.Value().Kind != unstable.InlineTable {
			continue
		}
		t := &inlineTable{end: int(n.Raw.Offset + n.Raw.Length)}
		if t.end < 1 || t.end > len(data) || data[t.end-1] != '}' {
			return nil // not where the tree says: left to the append, and its check
		}
		for it := n.Value().Children(); it.Next(); {
			c := it.Node()
			if c.Kind == unstable.KeyValue {
				t.entries = append(t.entries, entryRange{keyOf(c), int(c.Raw.Offset), int(c.Raw.Offset + c.Raw.Length)})
			}
		}
		if len(t.entries) > 0 {
			t.commaLast = strings.Contains(uncommented(data[t.entries[len(t.entries)-1].end:t.end-1]), ",")
		}
		return t
	}
	return nil
}

// insertInline puts devlearn's server last in the inline table.
func insertInline(data []byte, t *inlineTable) []byte {
	at, text := t.end-1, " "+inline+" "
	if n := len(t.entries); n > 0 && !t.commaLast {
		at, text = t.entries[n-1].end, ", "+inline
	}
	out := append([]byte{}, data[:at]...)
	out = append(out, text...)
	return append(out, data[at:]...)
}

// uncommented is TOML text between values with its comments cut.
func uncommented(b []byte) string {
	var out []string
	for l := range strings.SplitSeq(string(b), "\n") {
		l, _, _ = strings.Cut(l, "#")
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func keyOf(n *unstable.Node) string {
	var parts []string
	for it := n.Key(); it.Next(); {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

// rootKeyLine is the line of the root-level mcp_servers key (1 if it
// cannot be told).
func rootKeyLine(data []byte) int {
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		n := p.Expression()
		if n.Kind == unstable.KeyValue && strings.HasPrefix(keyOf(n), "mcp_servers") {
			return bytes.Count(data[:n.Raw.Offset], []byte("\n")) + 1
		}
	}
	return 1
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	}
	return "a value"
}

// sameBut checks an edit: out parses, devlearn's server is in the state
// want, and everything else is what before said.
func sameBut(before map[string]any, out []byte, want State) error {
	after, err := decode(out)
	if err != nil || stateOf(after) != want || !reflect.DeepEqual(withoutOurs(before), withoutOurs(after)) {
		return fmt.Errorf("%s: devlearn could not change its server here without changing something else of the file (it was left as it is); %s", File, byHand)
	}
	return nil
}

// withoutOurs is the document without devlearn's server, and without an
// mcp_servers left empty (a table appended makes one where there was none;
// an empty inline one gains devlearn's).
func withoutOurs(doc map[string]any) map[string]any {
	servers, ok := doc["mcp_servers"].(map[string]any)
	if !ok {
		return doc
	}
	c := make(map[string]any, len(doc))
	for k, v := range doc {
		c[k] = v
	}
	s := make(map[string]any, len(servers))
	for k, v := range servers {
		if k != "devlearn" {
			s[k] = v
		}
	}
	if len(s) == 0 {
		delete(c, "mcp_servers")
	} else {
		c["mcp_servers"] = s
	}
	return c
}

// Unregister returns the file without devlearn's server: its table (and
// its subtables, such as [mcp_servers.devlearn.env]), or its entry of an
// inline mcp_servers. A server named devlearn that is not devlearn's, or
// one written another way, stays.
func Unregister(data []byte) (out []byte, changed bool, err error) {
	doc, err := decode(data)
	if err != nil || stateOf(doc) != Ours {
		return data, false, err
	}
	if t := rootInline(data); t != nil {
		out, ok := removeInline(data, t)
		if !ok || sameBut(doc, out, Absent) != nil {
			return data, false, nil
		}
		return out, true, nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	in := false
	blank := func() bool { return len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" }
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = t == header || strings.HasPrefix(t, "[mcp_servers.devlearn.")
			if in {
				continue
			}
		}
		switch {
		case !in:
			kept = append(kept, l)
		case strings.HasPrefix(t, "#"):
			// A comment below devlearn's keys is the person's (one written
			// before the next table they added): it stays.
			kept = append(kept, l)
		case t == "" && !blank():
			kept = append(kept, l)
		}
	}
	res := strings.TrimRight(strings.Join(kept, ""), "\r\n")
	if res != "" {
		res += "\n"
		if bytes.Contains(data, []byte("\r\n")) {
			res = strings.TrimSuffix(res, "\n") + "\r\n"
		}
	}
	if sameBut(doc, []byte(res), Absent) != nil {
		return data, false, nil // not a plain table: left as it is
	}
	return []byte(res), true, nil
}

// removeInline takes devlearn's entry out of the inline table with the
// comma that joins it to a neighbour, when only spaces and that comma lie
// between them (a comment there stays, and so does the entry).
func removeInline(data []byte, t *inlineTable) ([]byte, bool) {
	i := -1
	for j, e := range t.entries {
		if e.name == "devlearn" {
			i = j
		}
	}
	if i < 0 {
		return nil, false
	}
	joint := func(b []byte) bool { return strings.Trim(string(b), " \t,") == "" }
	from, to := t.entries[i].start, t.entries[i].end
	switch {
	case i > 0 && joint(data[t.entries[i-1].end:from]):
		from = t.entries[i-1].end
	case i+1 < len(t.entries) && joint(data[to:t.entries[i+1].start]):
		to = t.entries[i+1].start
	case len(t.entries) == 1:
		// The spaces Register put around it go too.
		for from > 0 && (data[from-1] == ' ' || data[from-1] == '\t') {
			from--
		}
		for to < len(data) && (data[to] == ' ' || data[to] == '\t') {
			to++
		}
	default:
		return nil, false
	}
	out := append([]byte{}, data[:from]...)
	return append(out, data[to:]...), true
}
