package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Files are the transcript files of one session: the main conversation and
// its subagents' files. Subagents come in three layouts across Claude Code
// versions: inside the main file as sidechain records (1.0.x, nothing to
// find), as agent-<id>.jsonl beside the main file (2.0.x), and under
// <session-id>/subagents/ (2.1.x).
type Files struct {
	Main      string   `json:"main"`
	Subagents []string `json:"subagents,omitempty"`
}

// All returns the main file then the subagents' files, the order ReadFiles
// takes.
func (f Files) All() []string { return append([]string{f.Main}, f.Subagents...) }

// FromPath returns the session whose main transcript is at path (a hook's
// transcript_path), with its subagents' files.
func FromPath(path string) (Files, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Files{}, fmt.Errorf("%w: %s does not exist (Claude Code may not have written it yet)", ErrNoTranscript, path)
	}
	if err != nil {
		return Files{}, err
	}
	if !fi.Mode().IsRegular() {
		return Files{}, fmt.Errorf("%w: %s is not a regular file", ErrNoTranscript, path)
	}
	subs, err := Subagents(path)
	if err != nil {
		return Files{}, err
	}
	return Files{Main: path, Subagents: subs}, nil
}

// FindSession finds a session's transcript under a Claude config folder
// (~/.claude, or $CLAUDE_CONFIG_DIR: the caller decides which) by looking
// for projects/*/<sessionID>.jsonl. The project folder's name is never
// computed: how Claude Code turns a path into it has changed between
// versions. When several project folders hold the session (a copied or
// moved project), the most recently written file wins.
func FindSession(configDir, sessionID string) (Files, error) {
	if err := checkSessionID(sessionID); err != nil {
		return Files{}, err
	}
	projects := filepath.Join(configDir, "projects")
	entries, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return Files{}, fmt.Errorf("%w: %s does not exist (is %s the Claude config folder?)", ErrNoTranscript, projects, configDir)
	}
	if err != nil {
		return Files{}, err
	}
	// ReadDir and Stat rather than filepath.Glob: a config folder whose path
	// holds [ or * must not be read as a pattern.
	var best string
	var bestTime int64
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(projects, e.Name(), sessionID+".jsonl")
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if t := fi.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = p, t
		}
	}
	if best == "" {
		return Files{}, fmt.Errorf("%w: no %s.jsonl in any folder of %s", ErrNoTranscript, sessionID, projects)
	}
	return FromPath(best)
}

// checkSessionID refuses ids that would name a file outside the project
// folders; real ids are UUIDs.
func checkSessionID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`+"\x00") {
		return fmt.Errorf("invalid session id %q: want the id Claude Code gives (a UUID)", id)
	}
	return nil
}

// Subagents returns the subagent transcripts of the session whose main file
// is mainPath, in both file layouts, sorted by name.
func Subagents(mainPath string) ([]string, error) {
	dir := filepath.Dir(mainPath)
	session, ok := strings.CutSuffix(filepath.Base(mainPath), ".jsonl")
	if !ok {
		// Not a transcript's name (a file handed to ingest by hand): no
		// folder of its subagents, and the reader says what it is.
		return nil, nil
	}
	var out []string

	// 2.1.x: <session-id>/subagents/*.jsonl
	subdir := filepath.Join(dir, session, "subagents")
	entries, err := os.ReadDir(subdir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(subdir, e.Name()))
		}
	}

	// 2.0.x: agent-<id>.jsonl beside the main file, for every session of the
	// project: only the first session id inside tells whose it is.
	entries, err = os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		p := filepath.Join(dir, name)
		if p == mainPath {
			continue
		}
		if id, err := firstSessionID(p); err == nil && id == session {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// firstSessionID reads records until one carries a session id.
func firstSessionID(path string) (string, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var id string
	_, err = Records(f, func(r *Record) error {
		if len(r.SessionID) > 0 {
			id = r.SessionID.String()
			return jsonl.Stop
		}
		return nil
	})
	return id, err
}
