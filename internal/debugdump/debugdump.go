// Package debugdump keeps what each extractor read and what it made of it,
// for a person to read when a lesson was missed or kept wrongly (the
// extractor.debug setting). Every text is redacted before it is written;
// the files are per-clone state, never committed, and only the latest
// sessions are kept.
package debugdump

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// MaxSessions is how many sessions' files are kept: the oldest go first.
const MaxSessions = 100

// Dir is where the files are: <git-common-dir>/devlearn/debug, one folder
// per session.
func Dir(p *project.Project) string { return p.StatePath("debug") }

// Record is one file: an extractor's run on a session.
type Record struct {
	At        string `json:"at"`
	Session   string `json:"session"`
	Extractor string `json:"extractor"`
	Input     any    `json:"input"`
	Output    any    `json:"output"`
}

// Keep writes <dir>/<session>/<extractor>.json, every string of input and
// output passed through redact first, and drops the oldest sessions'
// folders beyond MaxSessions. root is the trusted folder below which no
// symbolic link is followed (the clone's git folder).
func Keep(root, dir, session, extractor string, at time.Time, input, output any, redact func(string) string) error {
	rec := Record{At: at.UTC().Format(time.RFC3339), Session: session, Extractor: extractor}
	var err error
	if rec.Input, err = redacted(input, redact); err != nil {
		return err
	}
	if rec.Output, err = redacted(output, redact); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	sdir := filepath.Join(dir, safe(session))
	if err := safefile.MkdirAll(root, sdir, 0o700); err != nil {
		return err
	}
	if err := jsonl.WriteFileRename(root, filepath.Join(sdir, safe(extractor)+".json"), append(data, '\n'), 0o600); err != nil {
		return err
	}
	return prune(root, dir)
}

// redacted is v as JSON values, each string redacted.
func redacted(v any, redact func(string) string) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, err
	}
	return walk(g, redact), nil
}

func walk(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		if redact == nil {
			return v
		}
		return redact(v)
	case map[string]any:
		for k, x := range v {
			v[k] = walk(x, redact)
		}
	case []any:
		for i, x := range v {
			v[i] = walk(x, redact)
		}
	}
	return v
}

// safe makes a name a plain file name.
func safe(s string) string {
	out := []rune{}
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			out = append(out, r)
		} else {
			out = append(out, '_')
		}
	}
	if len(out) == 0 || out[0] == '.' {
		out = append([]rune{'x'}, out...)
	}
	if len(out) > 100 {
		out = out[:100]
	}
	return string(out)
}

func prune(root, dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || len(ents) <= MaxSessions {
		return err
	}
	type aged struct {
		name string
		mod  time.Time
	}
	var all []aged
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && e.IsDir() {
			all = append(all, aged{e.Name(), fi.ModTime()})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, a := range all[:max(0, len(all)-MaxSessions)] {
		if err := safefile.RemoveAll(root, filepath.Join(dir, a.name)); err != nil {
			return err
		}
	}
	return nil
}
