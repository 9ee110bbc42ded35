package settings

import (
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// MCPFile is the project's MCP server list, which Claude Code reads (and
// asks the person to approve) for every session in the project.
const MCPFile = ".mcp.json"

// MCPServerName is devlearn's entry in it.
const MCPServerName = "devlearn"

// mcpArgs is how devlearn's MCP server starts: 'devlearn mcp', the agent
// tools over stdio.
var mcpArgs = []string{"mcp"}

// MCPServers is a parsed .mcp.json: devlearn edits its own server entry
// and keeps every other byte of the file where it can (another server's
// entry is re-indented when the list is rewritten, never changed).
type MCPServers struct {
	// Untyped leaves "type" out of devlearn's entry, for the agents whose
	// server lists document none (Cursor's .cursor/mcp.json, Gemini CLI's
	// settings), stdio being their default.
	Untyped bool
	name    string
	obj     *object
	servers orderedObj
}

// ParseMCP reads a .mcp.json; empty data is an empty file.
func ParseMCP(name string, data []byte) (*MCPServers, error) {
	obj, err := parseObject(name, data)
	if err != nil {
		return nil, err
	}
	f := &MCPServers{name: name, obj: obj}
	if raw, ok := obj.get("mcpServers"); ok && raw.Kind() != 'n' {
		s, err := decodeObj(raw)
		if err != nil {
			return nil, (&File{name: name, obj: obj}).shapeError("mcpServers", `"mcpServers" must be an object of server names ({"name": {"command": ...}})`)
		}
		f.servers = s
	}
	return f, nil
}

// Bytes is the file as it now stands.
func (f *MCPServers) Bytes() []byte { return f.obj.data }

// Empty reports whether the file holds nothing at all.
func (f *MCPServers) Empty() bool { return len(f.obj.members) == 0 }

// Names lists the servers, in file order.
func (f *MCPServers) Names() []string {
	var out []string
	for _, s := range f.servers {
		out = append(out, s.key)
	}
	return out
}

// ours reports whether an entry is devlearn's MCP server.
func ours(v jsontext.Value) bool {
	o, err := decodeObj(v)
	if err != nil {
		return false
	}
	c, _ := o.get("command")
	cmd, _ := stringValue(c)
	a, _ := o.get("args")
	list, _ := decodeArray(a)
	var args []string
	for _, x := range list {
		s, _ := stringValue(x)
		args = append(args, s)
	}
	return cmd == "devlearn" && slices.Equal(args, mcpArgs)
}

// Registered reports whether devlearn's server is there, as devlearn
// writes it.
func (f *MCPServers) Registered() bool {
	v, ok := f.servers.get(MCPServerName)
	return ok && ours(v)
}

func mcpEntry(typed bool) jsontext.Value {
	args := make([]jsontext.Value, len(mcpArgs))
	for i, a := range mcpArgs {
		args[i] = strValue(a)
	}
	var e orderedObj
	if typed {
		e = append(e, kv{"type", strValue("stdio")})
	}
	return append(e,
		kv{"command", strValue("devlearn")},
		kv{"args", encodeArray(args)},
	).encode()
}

// Register adds devlearn's server (or puts it back as devlearn writes it),
// keeping every other server. It reports whether the file changed. A
// server of another program under devlearn's name is never replaced:
// kept is true then.
func (f *MCPServers) Register() (changed, kept bool) {
	if f.Registered() {
		return false, false
	}
	if v, ok := f.servers.get(MCPServerName); ok && !looksLikeDevlearn(v) {
		return false, true
	}
	f.servers = f.servers.set(MCPServerName, mcpEntry(!f.Untyped))
	f.write()
	return true, false
}

// looksLikeDevlearn reports whether an entry under devlearn's name runs
// devlearn at all (an older form of its own): such an entry is devlearn's
// to replace.
func looksLikeDevlearn(v jsontext.Value) bool {
	o, err := decodeObj(v)
	if err != nil {
		return false
	}
	c, _ := o.get("command")
	cmd, _ := stringValue(c)
	return cmd == "devlearn"
}

// Unregister removes devlearn's server and nothing else; the
// "mcpServers" key goes when it is left empty. It reports whether the
// file changed.
func (f *MCPServers) Unregister() bool {
	v, ok := f.servers.get(MCPServerName)
	if !ok || !looksLikeDevlearn(v) {
		return false
	}
	f.servers = slices.DeleteFunc(f.servers, func(m kv) bool { return m.key == MCPServerName })
	f.write()
	return true
}

func (f *MCPServers) write() {
	if len(f.servers) == 0 {
		f.obj.data = f.obj.with("mcpServers", nil)
	} else {
		f.obj.data = f.obj.with("mcpServers", f.servers.encode())
	}
	obj, err := parseObject(f.name, f.obj.data)
	if err != nil {
		panic("settings: an edit broke the JSON of " + f.name + ": " + err.Error())
	}
	f.obj = obj
}
