// Package register wires devlearn's merge driver into a repository, and
// takes it out again: the git config entries that name the driver (per
// clone, never committed) and the .gitattributes lines that route
// devlearn's files to it (committed). What the driver is, and which files
// it merges, is internal/gitx's to say; this package only writes it down.
//
// A clone without devlearn installed, or without the config entries, is
// safe either way (the registration rule, docs/architecture.md): the driver command falls back to git
// merge-file, and without the config git ignores merge=devlearn and uses
// its own line merge.
package register

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/devlearn/devlearn/internal/gitx"
)

// Git runs git with args in dir and returns its standard output.
type Git func(dir string, args ...string) ([]byte, error)

// ExecGit is Git through the git on the PATH.
func ExecGit(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.Bytes(), &GitError{Args: args, Code: ee.ExitCode(), Stderr: strings.TrimSpace(errb.String())}
		}
		return nil, fmt.Errorf("git %s: %w (is git installed?)", strings.Join(args, " "), err)
	}
	return out.Bytes(), nil
}

// GitError is git exiting with a failure status.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *GitError) Error() string {
	msg := fmt.Sprintf("git %s: exit status %d", strings.Join(e.Args, " "), e.Code)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Setting is the state of one driver config entry.
type Setting struct {
	Key     string `json:"key"`
	Want    string `json:"want"`
	Current string `json:"current"`
}

// Settings reads the driver's config entries in the repository at dir.
func Settings(git Git, dir string) ([]Setting, error) {
	var out []Setting
	for _, s := range gitx.DriverSettings() {
		cur, err := git(dir, "config", "--get", s.Key)
		var ge *GitError
		if errors.As(err, &ge) && ge.Code == 1 {
			cur, err = nil, nil // not set
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Setting{Key: s.Key, Want: s.Value, Current: strings.TrimRight(string(cur), "\n")})
	}
	return out, nil
}

// Registered reports whether every entry is set as devlearn wants it.
func Registered(settings []Setting) bool {
	for _, s := range settings {
		if s.Current != s.Want {
			return false
		}
	}
	return len(settings) > 0
}

// Register sets the entries that differ, in the clone's own config
// (--local: shared by its worktrees, never committed). It returns the keys
// it set.
func Register(git Git, dir string) ([]string, error) {
	cur, err := Settings(git, dir)
	if err != nil {
		return nil, err
	}
	var set []string
	for _, s := range cur {
		if s.Current == s.Want {
			continue
		}
		if _, err := git(dir, "config", "--local", s.Key, s.Want); err != nil {
			return set, err
		}
		set = append(set, s.Key)
	}
	return set, nil
}

// Unregister removes the driver's config section; it reports whether
// there was one.
func Unregister(git Git, dir string) (bool, error) {
	cur, err := Settings(git, dir)
	if err != nil {
		return false, err
	}
	any := false
	for _, s := range cur {
		any = any || s.Current != ""
	}
	if !any {
		return false, nil
	}
	_, err = git(dir, "config", "--local", "--remove-section", "merge."+gitx.DriverName)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "no such section") {
		return false, nil
	}
	return err == nil, err
}

// AttributesFile is where the routes go, at the repository root.
const AttributesFile = ".gitattributes"

// routes are the lines of gitx.GitAttributes, comment first.
func routes() []string {
	return strings.Split(strings.TrimRight(gitx.GitAttributes(), "\n"), "\n")
}

// WithRoutes returns .gitattributes content with every route line present,
// and the lines it added. Lines already there (anywhere, in any order) are
// left where they are; everything else in the file is kept as it is.
func WithRoutes(current []byte) ([]byte, []string) {
	have := map[string]bool{}
	for _, l := range strings.Split(strings.ReplaceAll(string(current), "\r\n", "\n"), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, r := range routes() {
		if !have[r] {
			missing = append(missing, r)
		}
	}
	var added []string
	for _, m := range missing {
		if !strings.HasPrefix(m, "#") {
			added = append(added, m)
		}
	}
	if len(added) == 0 {
		return current, nil
	}
	out := bytes.Clone(current)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
		out = append(out, '\n')
	}
	for _, m := range missing {
		out = append(out, m+"\n"...)
	}
	return out, added
}

// WithoutRoutes returns .gitattributes content without devlearn's lines
// (the routes and their comment), and the route lines it removed.
func WithoutRoutes(current []byte) ([]byte, []string) {
	ours := map[string]bool{}
	for _, r := range routes() {
		ours[r] = true
	}
	var kept []string
	var removed []string
	lines := strings.SplitAfter(string(current), "\n")
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if ours[t] {
			if !strings.HasPrefix(t, "#") {
				removed = append(removed, t)
			}
			continue
		}
		kept = append(kept, l)
	}
	if len(removed) == 0 {
		return current, nil
	}
	out := strings.Join(kept, "")
	// Drop the blank line WithRoutes put before the block.
	out = strings.TrimRight(out, "\n")
	if out != "" {
		out += "\n"
	}
	return []byte(out), removed
}

// SamplePaths are one path per route, to ask git which driver each gets.
var SamplePaths = []string{
	".memory/learning-log.jsonl",
	".memory/tasks/task.jsonl",
	".memory/evolution/log.jsonl",
	".memory/.learning-manifest.json",
	".memory/knowledge/decisions.md",
	".memory/knowledge/pitfalls.md",
}

// Routed asks git which merge driver each sample path gets, as git itself
// will decide during a merge (every attributes file counts), and returns
// the paths not routed to devlearn's driver.
func Routed(git Git, dir string) ([]string, error) {
	out, err := git(dir, append([]string{"check-attr", "merge", "--"}, SamplePaths...)...)
	if err != nil {
		return nil, err
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "<path>: merge: <value>"
		p, rest, ok := strings.Cut(line, ": merge: ")
		if ok {
			got[p] = strings.TrimSpace(rest)
		}
	}
	var missing []string
	for _, p := range SamplePaths {
		if got[p] != gitx.DriverName {
			missing = append(missing, p)
		}
	}
	return missing, nil
}
