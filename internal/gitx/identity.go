package gitx

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Identity is who the commits devlearn makes are by.
type Identity struct {
	Author, Committer Signature
}

// Signature is a name and an e-mail address.
type Signature struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

func (s Signature) at(t time.Time) object.Signature {
	return object.Signature{Name: s.Name, Email: s.Email, When: t}
}

// ResolveIdentity finds the author and committer the way git does: the
// GIT_AUTHOR_* and GIT_COMMITTER_* variables, else user.name and
// user.email from the repository's config, else from the user's global
// config ($GIT_CONFIG_GLOBAL, ~/.gitconfig, $XDG_CONFIG_HOME/git/config).
// getenv is the caller's environment, so tests never read the real one.
func ResolveIdentity(dir string, getenv func(string) string) (Identity, error) {
	var cfg Signature
	var files []string
	if top, err := findTop(dir); err == nil {
		if _, common, err := gitDirs(top); err == nil {
			files = append(files, filepath.Join(common, "config"))
		}
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if h := getenv("HOME"); h != "" {
			files = append(files, filepath.Join(h, ".gitconfig"))
		}
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && getenv("HOME") != "" {
			xdg = filepath.Join(getenv("HOME"), ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	for _, f := range files {
		raw, err := readRawConfig(f)
		if err != nil {
			continue
		}
		u := raw.Section("user")
		if cfg.Name == "" {
			cfg.Name = u.Options.Get("name")
		}
		if cfg.Email == "" {
			cfg.Email = u.Options.Get("email")
		}
	}
	pick := func(name, email string) Signature {
		s := Signature{Name: getenv(name), Email: getenv(email)}
		if s.Name == "" {
			s.Name = cfg.Name
		}
		if s.Email == "" {
			s.Email = cfg.Email
		}
		return s
	}
	id := Identity{
		Author:    pick("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"),
		Committer: pick("GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"),
	}
	if id.Author.Name == "" || id.Author.Email == "" || id.Committer.Name == "" || id.Committer.Email == "" {
		return id, fmt.Errorf("no git identity for the merge commit (set user.name and user.email: git config --global user.name \"Your Name\"; git config --global user.email you@example.com)")
	}
	return id, nil
}
