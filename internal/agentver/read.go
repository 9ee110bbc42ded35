package agentver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"
)

// Runner runs a command and returns what it printed. init and doctor run
// the agent's binary through one; tests give a fake. It must honour ctx.
type Runner func(ctx context.Context, name string, args ...string) (string, error)

// Found is a version read, and where from ("" when unknown).
type Found struct {
	Version Version
	From    string
}

// command is what prints each agent's version. Cursor's is its editor's
// command line, whose first line is the version (as VS Code's is): not
// confirmed upstream, and no row of Gaps depends on it.
var command = map[string][]string{
	"claude":  {"claude", "--version"},
	"codex":   {"codex", "--version"},
	"gemini":  {"gemini", "--version"},
	"cursor":  {"cursor", "--version"},
	"copilot": {"copilot", "--version"},
}

// recorded reads the version a line of the agent's session file records,
// "" when the line records none: Codex's session_meta (payload.cli_version,
// codex-rs/protocol/src/protocol.rs SessionMeta), Copilot CLI's
// session.start (data.copilotVersion), Claude Code's transcript lines
// ("version").
var recorded = map[string]func(line []byte) string{
	"codex": func(line []byte) string {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				CLIVersion string `json:"cli_version"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &l) != nil || l.Type != "session_meta" {
			return ""
		}
		return l.Payload.CLIVersion
	},
	"copilot": func(line []byte) string {
		var l struct {
			Type string `json:"type"`
			Data struct {
				CopilotVersion string `json:"copilotVersion"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &l) != nil || l.Type != "session.start" {
			return ""
		}
		return l.Data.CopilotVersion
	},
	"claude": func(line []byte) string {
		var l struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(line, &l) != nil {
			return ""
		}
		return l.Version
	},
}

// Reader reads the installed version of an agent.
type Reader struct {
	// Run runs the agent's version command; nil runs none.
	Run Runner
	// Timeout bounds each command (DefaultTimeout when 0): an agent that
	// hangs must not hold init or doctor.
	Timeout time.Duration
	// Sessions lists the agent's session files of this working tree, for
	// the version they record; nil lists none.
	Sessions func(agent string) []string
}

// DefaultTimeout is how long an agent's --version may take.
const DefaultTimeout = 5 * time.Second

// maxScan bounds what is read of a session file for its version: the
// version is on its first lines.
const maxScan = 1 << 20

// Read is the agent's version: what its command prints, else what its
// newest session file records (the version that ran last, which may not
// be the one installed now), else unknown. It never fails: a version it
// cannot read is unknown.
func (r Reader) Read(ctx context.Context, agent string) Found {
	if cmd, ok := command[agent]; ok && r.Run != nil {
		t := r.Timeout
		if t <= 0 {
			t = DefaultTimeout
		}
		c, cancel := context.WithTimeout(ctx, t)
		out, err := r.Run(c, cmd[0], cmd[1:]...)
		cancel()
		if err == nil {
			line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
			if v, ok := Parse(line); ok {
				return Found{Version: v, From: strings.Join(cmd, " ")}
			}
		}
	}
	read := recorded[agent]
	if read == nil || r.Sessions == nil {
		return Found{}
	}
	var newest string
	var at time.Time
	for _, p := range r.Sessions(agent) {
		if fi, err := os.Stat(p); err == nil && (newest == "" || fi.ModTime().After(at)) {
			newest, at = p, fi.ModTime()
		}
	}
	if newest == "" {
		return Found{}
	}
	if v, ok := Parse(fileVersion(newest, read)); ok {
		return Found{Version: v, From: newest}
	}
	return Found{}
}

// fileVersion is the last version the first lines of the file record.
func fileVersion(path string, read func([]byte) string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxScan))
	sc.Buffer(make([]byte, 64<<10), maxScan)
	last := ""
	for sc.Scan() {
		if v := read(sc.Bytes()); v != "" {
			last = v
		}
	}
	return last
}
