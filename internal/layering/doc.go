// Package layering holds no code: its test keeps devlearn's import graph
// one-way (docs/architecture.md, "Layers").
package layering
