// Package templates holds the files devlearn embeds in its binary: the
// config schema, the demo's sample project, and the defaults it writes.
package templates

import "embed"

// ConfigSchema is the JSON Schema of learning.json (generated from
// internal/config; a test keeps it current).
//
//go:embed learning.schema.json
var ConfigSchema []byte

// Demo is the sample project `devlearn demo` starts from.
//
//go:embed all:demo
var Demo embed.FS

// Render holds the templates of the artifacts render-ready writes, one per
// observation type. They only ever receive learned text as data.
//
//go:embed render/*.tmpl
var Render embed.FS

// GatePresets are the gate bundles of ClawFlow's presets (docs/gates.md, Presets) (TypeScript, Full JS,
// Python) and devlearn's own (Go, Rust), one JSON file each, applied with
// 'devlearn gate preset NAME'.
//
//go:embed gates/*.json
var GatePresets embed.FS

// Skills are ClawFlow's seven default skills (docs/gates.md, Tiered skills), a core.md and an
// extended.md each, seeded to $DEVLEARN_HOME/skills/.
//
//go:embed skills
var Skills embed.FS

// Directives holds the templates `devlearn directives init` writes, one
// per directive type, named after the type (AGENTS.md, CHECKLIST.md, ...).
//
//go:embed directives/*.md
var Directives embed.FS
