package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// ProjectSessions finds every session that ran in the working tree root,
// under a Claude config folder: each main transcript in projects/*/ whose
// records name a cwd inside root. The folder names are never computed
// (the transcripts-by-glob rule, docs/architecture.md): which characters Claude Code replaces in them has changed
// between versions. Subagent files come with their session.
func ProjectSessions(configDir, root string) ([]transcript.Files, error) {
	projects := filepath.Join(configDir, "projects")
	dirs, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist (is %s the Claude config folder? set $CLAUDE_CONFIG_DIR)", transcript.ErrNoTranscript, projects, configDir)
	}
	if err != nil {
		return nil, err
	}
	roots := []string{filepath.Clean(root)}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != roots[0] {
		roots = append(roots, r)
	}
	var out []transcript.Files
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(projects, d.Name())
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !IsMainTranscript(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			cwd, err := firstCwd(p)
			if err != nil || !insideAny(cwd, roots) {
				continue
			}
			f, err := transcript.FromPath(p)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Main < out[j].Main })
	return out, nil
}

// IsMainTranscript reports whether a file, by its name, is a session's main
// transcript. agent-<id>.jsonl files are subagents (2.0.x), which carry
// their parent's session id: read on their own they would pass for that
// session, so they come only with it (transcript.FromPath).
func IsMainTranscript(name string) bool {
	return strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "agent-")
}

// maxCwdRecords bounds the records read to find a cwd: the first user or
// assistant record carries one; what comes before (summaries, snapshots)
// is short.
const maxCwdRecords = 200

// firstCwd returns the cwd of the first record that names one.
func firstCwd(path string) (string, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	cwd, n := "", 0
	_, err = transcript.Records(f, func(r *transcript.Record) error {
		if len(r.Cwd) > 0 {
			cwd = r.Cwd.String()
			return jsonl.Stop
		}
		if n++; n > maxCwdRecords {
			return jsonl.Stop
		}
		return nil
	})
	return cwd, err
}

func insideAny(cwd string, roots []string) bool {
	if cwd == "" {
		return false
	}
	cwd = filepath.Clean(cwd)
	for _, r := range roots {
		if cwd == r || strings.HasPrefix(cwd, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
