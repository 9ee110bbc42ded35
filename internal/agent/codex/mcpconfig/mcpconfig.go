// Package mcpconfig registers devlearn's MCP server in a project's Codex
// config (.codex/config.toml, read for a trusted project) and takes it
// out again. The file is the person's: it is edited as text, so that
// every other line, comment and table stays as written; devlearn's table
// is appended, and only a table of its own is ever removed.
package mcpconfig

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// File is the project's Codex config, from the repository's root.
const File = ".codex/config.toml"

// header opens devlearn's table.
const header = "[mcp_servers.devlearn]"

// table is devlearn's server as Codex starts it: 'devlearn mcp' over stdio.
const table = header + "\ncommand = \"devlearn\"\nargs = [\"mcp\"]\n"

type server struct {
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
}

// entry decodes the file: devlearn's server entry if any. A file that is
// not TOML is an error naming it, and is never written.
func entry(data []byte) (*server, error) {
	var c struct {
		Servers map[string]server `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &c); err != nil {
		return nil, fmt.Errorf("%s: not valid TOML: %v", File, err)
	}
	if s, ok := c.Servers["devlearn"]; ok {
		return &s, nil
	}
	return nil, nil
}

func ours(s *server) bool {
	return s != nil && s.Command == "devlearn" && slices.Equal(s.Args, []string{"mcp"})
}

// Register returns the file with devlearn's server in it. kept: a server
// named devlearn that is not devlearn's is there, and is left alone.
func Register(data []byte) (out []byte, changed, kept bool, err error) {
	s, err := entry(data)
	switch {
	case err != nil:
		return data, false, false, err
	case ours(s):
		return data, false, false, nil
	case s != nil:
		return data, false, true, nil
	}
	out = append([]byte{}, data...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(bytes.TrimSpace(out)) > 0 {
		out = append(out, '\n')
	}
	out = append(out, table...)
	if _, err := entry(out); err != nil {
		// devlearn's entry is written another way (dotted keys, an
		// inline table) that the person set out of shape: left alone.
		return data, false, true, nil
	}
	return out, true, false, nil
}

// Unregister returns the file without devlearn's table (and its
// subtables, such as [mcp_servers.devlearn.env]); a server named devlearn
// that is not devlearn's, or one written other than as a table, stays.
func Unregister(data []byte) (out []byte, changed bool, err error) {
	s, err := entry(data)
	if err != nil || !ours(s) {
		return data, false, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = t == header || strings.HasPrefix(t, "[mcp_servers.devlearn.")
		}
		if !in {
			kept = append(kept, l)
		}
	}
	res := strings.TrimRight(strings.Join(kept, ""), "\n")
	if res != "" {
		res += "\n"
	}
	if after, err := entry([]byte(res)); err != nil || after != nil {
		return data, false, err // not a plain table: left as it is
	}
	return []byte(res), true, nil
}
