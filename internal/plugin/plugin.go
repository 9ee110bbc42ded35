// Package plugin is devlearn's Claude Code plugin: the files of the
// plugin folder (plugin/ in devlearn's repository) and the marketplace
// that lists it (.claude-plugin/marketplace.json at the repository's
// root), so that '/plugin marketplace add devlearn/devlearn' then
// '/plugin install devlearn@devlearn' gives the whole of devlearn in
// Claude Code. The hooks are generated from the one list of hooks init
// registers (internal/settings), so the two never drift; every hook
// calls the installed devlearn binary, guarded, so that the plugin is
// harmless where devlearn is not installed. A test keeps the committed
// files equal to Files and checks every path they name.
package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/devlearn/devlearn/internal/settings"
)

// Dir is the plugin folder, from the repository's root.
const Dir = "plugin"

// Marketplace is the marketplace file, from the repository's root.
const Marketplace = ".claude-plugin/marketplace.json"

// Version is the plugin's version, raised with each change of its files.
const Version = "0.1.0"

const description = "Makes Claude Code learn from its sessions: lessons captured from transcripts, " +
	"kept as reviewable knowledge in the repository's .memory/, served back through hooks. " +
	"Needs the devlearn binary on the PATH and 'devlearn init' in each repository."

// Files is every file of the plugin and the marketplace, by path from the
// repository's root.
func Files() map[string][]byte {
	files := map[string][]byte{
		Dir + "/.claude-plugin/plugin.json": encode(manifest()),
		Dir + "/hooks/hooks.json":           encode(hooksFile()),
		Dir + "/.mcp.json":                  encode(mcpFile()),
		Marketplace:                         encode(marketplace()),
	}
	for name, body := range commands {
		files[Dir+"/commands/"+name+".md"] = []byte(body)
	}
	for name, body := range skills {
		files[Dir+"/skills/"+name+"/SKILL.md"] = []byte(body)
	}
	return files
}

type author struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

// manifest is .claude-plugin/plugin.json. Every component is in its
// default place (commands/, skills/, hooks/hooks.json, .mcp.json), which
// Claude Code loads by itself: naming hooks/hooks.json in the manifest
// too fails the plugin's hook load ("Duplicate hooks file detected"), so
// the manifest names none.
func manifest() any {
	return struct {
		Name        string   `json:"name"`
		Version     string   `json:"version"`
		Description string   `json:"description"`
		Author      author   `json:"author"`
		Homepage    string   `json:"homepage"`
		Repository  string   `json:"repository"`
		Keywords    []string `json:"keywords"`
	}{
		Name:        "devlearn",
		Version:     Version,
		Description: description,
		Author:      author{Name: "devlearn", URL: "https://github.com/devlearn/devlearn"},
		Homepage:    "https://github.com/devlearn/devlearn",
		Repository:  "https://github.com/devlearn/devlearn",
		Keywords:    []string{"learning", "memory", "hooks", "knowledge"},
	}
}

type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type hookGroup struct {
	Matcher *string     `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

// hooksFile is hooks/hooks.json: the hooks init registers in
// .claude/settings.json, in the same layout under "hooks".
func hooksFile() any {
	events := map[string][]hookGroup{}
	for _, h := range settings.Hooks {
		g := hookGroup{Hooks: []hookEntry{{Type: "command", Command: settings.Command(h.Sub), Timeout: h.Timeout}}}
		if h.HasMatcher {
			m := h.Matcher
			g.Matcher = &m
		}
		events[h.Event] = append(events[h.Event], g)
	}
	return struct {
		Description string                 `json:"description"`
		Hooks       map[string][]hookGroup `json:"hooks"`
	}{"devlearn's hooks: the installed devlearn binary, guarded so that they do nothing where it is missing", events}
}

// mcpFile is the plugin's MCP server: the installed binary's agent tools,
// as init registers them in a project's .mcp.json.
func mcpFile() any {
	type server struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return map[string]map[string]server{"mcpServers": {settings.MCPServerName: {Type: "stdio", Command: "devlearn", Args: []string{"mcp"}}}}
}

func marketplace() any {
	type entry struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		Description string `json:"description"`
		Version     string `json:"version"`
		Category    string `json:"category"`
	}
	return struct {
		Name    string  `json:"name"`
		Owner   author  `json:"owner"`
		Plugins []entry `json:"plugins"`
	}{
		Name:    "devlearn",
		Owner:   author{Name: "devlearn", URL: "https://github.com/devlearn/devlearn"},
		Plugins: []entry{{Name: "devlearn", Source: "./" + Dir, Description: description, Version: Version, Category: "productivity"}},
	}
}

func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("plugin: %v", err))
	}
	return b.Bytes()
}

// commands are the plugin's slash commands (/devlearn:NAME): each runs
// devlearn and shows its output; none changes anything without the
// person running the command it names.
var commands = map[string]string{
	"knowledge": `---
description: Show the project knowledge devlearn serves (the index), or search it
argument-hint: "[words to search for]"
allowed-tools: Bash(devlearn knowledge:*)
---
Project knowledge index:

!` + "`devlearn knowledge index`" + `

If the person gave words ($ARGUMENTS), run ` + "`devlearn knowledge search $ARGUMENTS`" + ` and
show what it finds; read an entry in full with ` + "`devlearn knowledge show ID`" + `.
`,
	"review": `---
description: List the lessons devlearn captured that wait for a person's review
allowed-tools: Bash(devlearn knowledge list:*), Bash(devlearn learn:*)
---
Drafts waiting for review (served meanwhile, marked as drafts):

!` + "`devlearn knowledge list --status draft`" + `

Observations and where they stand:

!` + "`devlearn learn --list`" + `

Go through them with the person. Only the person accepts or drops one:
` + "`devlearn knowledge promote KEY`" + ` accepts a draft, ` + "`devlearn knowledge archive KEY`" + ` drops it,
` + "`devlearn learn --review`" + ` walks through the observations.
`,
	"doctor": `---
description: Check devlearn's installation in this repository
allowed-tools: Bash(devlearn doctor:*)
---
!` + "`devlearn doctor`" + `

Explain any check that failed and the fix it names. If devlearn is not set
up here (no .memory/), the fix is ` + "`devlearn init`" + `, which the person runs.
`,
}

// skills are the plugin's skills.
var skills = map[string]string{
	"devlearn-knowledge": `---
name: devlearn-knowledge
description: Use when devlearn's hooks served project knowledge, when a lesson worth keeping was learned in this session (a correction, a pitfall, a checklist), or when the person asks what the project knows about a topic.
---
# Working with devlearn's project knowledge

devlearn keeps what sessions learned in this repository's .memory/ (and in
.directives/ files near the code) and serves it through hooks: the index at
session start, the entries relevant to a tool call before it runs.

- Read an entry the index names: ` + "`devlearn knowledge show ID`" + `.
- Search: ` + "`devlearn knowledge search WORDS`" + `.
- Why an entry was (not) served for a call: ` + "`devlearn knowledge why --tool Bash --prompt 'words'`" + `.

## Recording a lesson

When the session taught something worth keeping for the next one (the
person corrected you, told you how this project works, asked you to
remember something, or a failure taught you a fix), end that reply with
one block per lesson, in the shape devlearn's session start shows. It is
kept as a draft, served before matching tool calls and reviewed by a
person; nothing in it is ever executed.

    [PROCESS_KNOWLEDGE]
    type: checklist          # checklist | pattern | warning | requirement
    priority: HIGH           # CRITICAL | HIGH | MEDIUM | LOW
    label: Run go generate before go test
    trigger_conditions: {tool_names: [Bash], action_keywords: [go test]}
    checklist: {title: Before go test, items: [go generate ./...]}
    [/PROCESS_KNOWLEDGE]

Never put secrets or personal data in a block.
`,
}
