// Package trust decides whether the commands a project's config names (an
// extractor, gates) may run (the trust rule, docs/architecture.md). Like direnv, a person trusts a
// project config file by its folder and its content: `devlearn trust`
// records the file's path and sha256 in $DEVLEARN_HOME/trust.json, which
// is per machine and never committed. Any change to the file makes it
// untrusted again, so cloning a repository, or pulling a change to its
// config, never makes devlearn run a command nobody on this machine has
// read. The folder is part of it because the commands run that folder's
// own code (its tests, its scripts, its Makefile): the same config in
// another folder, a copy or any repository that copied the file, runs
// other code, and is a decision of its own.
package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
)

// FileName is the trust store inside $DEVLEARN_HOME.
const FileName = "trust.json"

// Entry is one trusted config file.
type Entry struct {
	Path      string `json:"path"` // absolute, symbolic links resolved
	SHA256    string `json:"sha256"`
	TrustedAt string `json:"trusted_at"` // RFC 3339
	// Files are the files the gates run that the config names (a script
	// in the repository), absolute, with their sha256: a changed one
	// needs trust again, as a changed config does.
	Files map[string]string `json:"files,omitempty"`
}

// Store is the whole trust file.
type Store struct {
	Version int     `json:"version"`
	Trusted []Entry `json:"trusted"`
}

// Path is the trust store of home.
func Path(home string) string { return filepath.Join(home, FileName) }

// Load reads the trust store; a missing one is empty.
func Load(home string) (*Store, error) {
	s := &Store{Version: 1}
	if home == "" {
		return s, nil
	}
	data, err := os.ReadFile(Path(home))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%s: not a trust store (%v); remove it and trust your projects again", Path(home), err)
	}
	return s, nil
}

// canonical is the path a config file is trusted under.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs, nil // the folder is gone: compare as given
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// Find returns the entry of a config file, if it has one.
func (s *Store) Find(path string) (*Entry, error) {
	c, err := canonical(path)
	if err != nil {
		return nil, err
	}
	for i := range s.Trusted {
		if s.Trusted[i].Path == c {
			return &s.Trusted[i], nil
		}
	}
	return nil, nil
}

// Check reports whether the project config at projectConfigPath may have
// its commands run, and why (or why not), in words a person can act on. A
// missing file names no commands and needs no trust.
func Check(home, projectConfigPath string) (trusted bool, why string, err error) {
	return CheckFiles(home, projectConfigPath, nil)
}

// CheckFiles is Check for a config whose gates run files: each of files
// (absolute, as the gates name them now) must have been trusted with it
// and be unchanged since.
func CheckFiles(home, projectConfigPath string, files []string) (trusted bool, why string, err error) {
	data, err := os.ReadFile(projectConfigPath)
	if errors.Is(err, fs.ErrNotExist) {
		return true, "no project config: nothing to trust", nil
	}
	if err != nil {
		return false, "", err
	}
	if home == "" {
		return false, "no devlearn home ($DEVLEARN_HOME or $HOME) to keep trust in", nil
	}
	if fi, err := os.Stat(Path(home)); err == nil && fi.Mode().Perm()&0o022 != 0 {
		return false, fmt.Sprintf("%s can be written by other users (mode %v): trust nothing until it is private (chmod 600)", Path(home), fi.Mode().Perm()), nil
	}
	s, err := Load(home)
	if err != nil {
		return false, "", err
	}
	e, err := s.Find(projectConfigPath)
	if err != nil {
		return false, "", err
	}
	switch {
	case e == nil:
		if other := s.trustedElsewhere(contenthash.Hash(data)); other != "" {
			return false, fmt.Sprintf("%s has never been trusted in this folder on this machine; the same content is trusted in %s: trust is per folder, since the commands run this folder's own code: read it, then run 'devlearn trust'", projectConfigPath, other), nil
		}
		return false, fmt.Sprintf("%s has never been trusted on this machine: read it, then run 'devlearn trust'", projectConfigPath), nil
	case e.SHA256 != contenthash.Hash(data):
		return false, fmt.Sprintf("%s changed since you trusted it on %s: read it, then run 'devlearn trust'", projectConfigPath, day(e.TrustedAt)), nil
	}
	for _, f := range files {
		sum, err := hashFile(f)
		if err != nil {
			return false, "", err
		}
		switch was, ok := e.Files[f]; {
		case !ok:
			return false, fmt.Sprintf("%s, which a gate runs, was not there when you trusted %s on %s: read it, then run 'devlearn trust'", f, projectConfigPath, day(e.TrustedAt)), nil
		case was != sum:
			return false, fmt.Sprintf("%s, which a gate runs, changed since you trusted it on %s: read it, then run 'devlearn trust'", f, day(e.TrustedAt)), nil
		}
	}
	return true, fmt.Sprintf("trusted on %s", day(e.TrustedAt)), nil
}

// trustedElsewhere is the project folder of another config trusted with
// this content, if any: said so that a person who copied a trusted
// project knows why the copy is not (Check).
func (s *Store) trustedElsewhere(sum string) string {
	for _, e := range s.Trusted {
		if e.SHA256 == sum {
			return filepath.Dir(filepath.Dir(e.Path))
		}
	}
	return ""
}

func day(rfc string) string {
	if t, err := time.Parse(time.RFC3339, rfc); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	return rfc
}

func hashFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return contenthash.Hash(data), nil
}

// Trust records the current content of the config file at path as trusted,
// with the files its gates run (absolute), replacing what was trusted for
// it before.
func Trust(ctx context.Context, home, path string, files []string, now time.Time) (*Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := canonical(path)
	if err != nil {
		return nil, err
	}
	e := Entry{Path: c, SHA256: contenthash.Hash(data), TrustedAt: now.UTC().Format(time.RFC3339)}
	for _, f := range files {
		sum, err := hashFile(f)
		if err != nil {
			return nil, err
		}
		if e.Files == nil {
			e.Files = map[string]string{}
		}
		e.Files[f] = sum
	}
	err = update(ctx, home, func(s *Store) {
		s.Trusted = slices.DeleteFunc(s.Trusted, func(x Entry) bool { return x.Path == c })
		s.Trusted = append(s.Trusted, e)
	})
	return &e, err
}

// Revoke forgets the config file at path; it reports whether it was trusted.
func Revoke(ctx context.Context, home, path string) (bool, error) {
	c, err := canonical(path)
	if err != nil {
		return false, err
	}
	found := false
	err = update(ctx, home, func(s *Store) {
		n := len(s.Trusted)
		s.Trusted = slices.DeleteFunc(s.Trusted, func(x Entry) bool { return x.Path == c })
		found = len(s.Trusted) < n
	})
	return found, err
}

// update changes the store under its lock and writes it atomically,
// readable by its owner only: it decides which commands run.
func update(ctx context.Context, home string, change func(*Store)) error {
	if home == "" {
		return errors.New("no devlearn home ($DEVLEARN_HOME or $HOME) to keep trust in")
	}
	if err := safefile.MkdirRoot(home, 0o700); err != nil {
		return err
	}
	unlock, err := jsonl.Lock(ctx, filepath.Join(home, "locks", "trust.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	s, err := Load(home)
	if err != nil {
		return err
	}
	change(s)
	slices.SortFunc(s.Trusted, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	s.Version = 1
	if s.Trusted == nil {
		s.Trusted = []Entry{}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(home, Path(home), append(data, '\n'), 0o600)
}
