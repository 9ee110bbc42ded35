// Package install is what init and uninstall change to put devlearn into
// a repository and take it out again: devlearn's hooks and MCP server in
// the agents' files, its lines in .gitattributes, the merge driver, the
// user's settings. It decides and carries out; it prints nothing: each
// thing done (or, in a dry run, to be done) is a Step for the command to
// show.
//
// It links the TOML editor of Codex's config, so the hook binary never
// imports it.
package install

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/agent/codex/configtoml"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/settings"
)

// Step is one thing init, uninstall or learn --enable/--disable did (or,
// in a dry run, would do) to one file.
type Step struct {
	Action string `json:"action"` // created, updated, removed, kept, unchanged, failed
	Path   string `json:"path"`
	Note   string `json:"note,omitempty"`
}

// Changes are the project files a command writes in one batch of the
// writer. An agent whose hooks and MCP server share a file (Gemini CLI's
// settings) edits it twice, the second edit on the first.
type Changes []evolve.Change

// Pending is what the batch will write to rel, if it writes it.
func (cs Changes) Pending(rel string) ([]byte, bool) {
	for i := len(cs) - 1; i >= 0; i-- {
		if c := cs[i]; c.Path == rel && !c.Remove {
			return c.Data, true
		}
	}
	return nil, false
}

// Set writes data to rel in the batch (or removes it), replacing an
// earlier edit of it.
func (cs *Changes) Set(rel string, data []byte, remove bool) {
	for i, c := range *cs {
		if c.Path == rel {
			(*cs)[i] = evolve.Change{Path: rel, Data: data, Remove: remove}
			return
		}
	}
	*cs = append(*cs, evolve.Change{Path: rel, Data: data, Remove: remove})
}

// Read is rel as the batch leaves it: an earlier edit, else the file
// (nil and false when there is none).
func (cs Changes) Read(p *project.Project, rel string) ([]byte, bool, error) {
	if data, ok := cs.Pending(rel); ok {
		return data, true, nil
	}
	data, err := os.ReadFile(p.Path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// HookDoc is an agent's hook file (Claude Code's settings among them)
// read for editing.
type HookDoc struct {
	Before []byte
	Exists bool
	File   *settings.File
}

// ReadHookFile reads any agent's hook file for editing, as its profile
// lays devlearn's hooks out; a missing file reads as an empty one.
func ReadHookFile(path, display string, prof settings.Profile) (*HookDoc, error) {
	d := &HookDoc{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		d.Before, d.Exists = data, true
	}
	f, err := settings.ParseAs(display, d.Before, prof)
	if err != nil {
		return nil, err
	}
	d.File = f
	return d, nil
}

// Changed reports whether the edits changed the file.
func (d *HookDoc) Changed() bool { return !bytes.Equal(d.Before, d.File.Bytes()) }

// Action is the step writing the edited file is: unchanged, created or
// updated.
func (d *HookDoc) Action() string {
	switch {
	case !d.Changed():
		return "unchanged"
	case !d.Exists:
		return "created"
	}
	return "updated"
}

// EditMCP registers (or, with remove, unregisters) devlearn's MCP server
// in an agent's own server list: the person's other servers and settings
// are kept; a server named devlearn that is not devlearn's is left alone
// (kept).
func EditMCP(rel string, data []byte, remove bool) (out []byte, changed, kept bool, err error) {
	if rel == configtoml.File {
		if remove {
			out, changed, err = configtoml.Unregister(data)
			return out, changed, false, err
		}
		return configtoml.Register(data)
	}
	f, err := settings.ParseMCP(rel, data)
	if err != nil {
		return data, false, false, err
	}
	f.Untyped = true
	if remove {
		changed = f.Unregister()
		return f.Bytes(), changed, false, nil
	}
	changed, kept = f.Register()
	return f.Bytes(), changed, kept, nil
}

// WriteOutside writes a file outside the project (the user's settings),
// atomically, keeping its mode. Its folder is the person's (links above it
// are theirs); a link at the file itself is refused, never replaced.
func WriteOutside(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := safefile.MkdirRoot(dir, 0o755); err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(dir, path, data, mode)
}

// created reports whether devlearn created the file at rel: the first
// audit entry that touched it found nothing there.
func created(p *project.Project, rel string) bool {
	entries, _, err := evolve.ReadLog(p)
	if err != nil {
		return false
	}
	for _, e := range entries {
		for _, f := range e.Files {
			if f.Path == rel {
				return f.Before == ""
			}
		}
	}
	return false
}
