// Package configtoml reads and edits a Codex config.toml: devlearn's MCP
// server in a project's .codex/config.toml (mcpserver.go), and the
// [features] switch that runs hooks (features.go). It links a TOML parser,
// so it is a package of its own beside internal/agent/codex and not on the
// hook path: devlearn-hook links the hook adapter, never this.
package configtoml
