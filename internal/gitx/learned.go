package gitx

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// LearnedDirs are the folders whose uncommitted changes in a task worktree
// are devlearn's own (what the agent learned there) and are committed on
// the task branch before it is merged, so learning travels with the code.
var LearnedDirs = []string{".memory", ".claude/commands/self-learning", ".claude/skills"}

// localState is the working tree's own session state inside .memory
// (directives.LocalDir), which never travels with the learning.
const localState = ".memory/.local"

// learnedEdits compares the learned folders of the worktree at root with
// head and returns the edits that would commit them; new blobs go to s.
// Untracked files that .gitignore (or info/exclude) ignores are left out.
func learnedEdits(s storer.EncodedObjectStorer, root, common string, head *object.Tree) ([]edit, error) {
	ignored := learnedIgnores(root, common)
	var edits []edit
	for _, dir := range LearnedDirs {
		tracked := map[string]entry{}
		if sub, err := head.Tree(dir); err == nil {
			err := sub.Files().ForEach(func(f *object.File) error {
				tracked[dir+"/"+f.Name] = entry{Hash: f.Hash, Mode: f.Mode}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		onDisk := map[string]bool{}
		base := filepath.Join(root, filepath.FromSlash(dir))
		err := filepath.WalkDir(base, func(abs string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			rel, _ := filepath.Rel(root, abs)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				// .memory/.local is one working tree's session state:
				// never committed, whatever the ignore files say.
				if d.Name() == ".git" || rel == localState {
					return filepath.SkipDir
				}
				return nil
			}
			t, isTracked := tracked[rel]
			if !isTracked && ignored.Match(strings.Split(rel, "/"), false) {
				return nil
			}
			e, data, ok, err := diskEntry(abs, d)
			if err != nil || !ok {
				return err
			}
			onDisk[rel] = true
			if isTracked && t.same(e) {
				return nil
			}
			if _, err := putBlob(s, data); err != nil {
				return err
			}
			edits = append(edits, edit{path: rel, e: e})
			return nil
		})
		if err != nil {
			return nil, err
		}
		for p := range tracked {
			if !onDisk[p] {
				edits = append(edits, edit{path: p})
			}
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].path < edits[j].path })
	return edits, nil
}

// diskEntry reads a file as git would store it; ok is false for anything
// that is neither a regular file nor a symlink.
func diskEntry(abs string, d fs.DirEntry) (entry, []byte, bool, error) {
	info, err := d.Info()
	if err != nil {
		return entry{}, nil, false, err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		// Stored as a link, never followed: a learned path cannot make
		// devlearn read outside the worktree.
		target, err := os.Readlink(abs)
		if err != nil {
			return entry{}, nil, false, err
		}
		return entry{Hash: blobHash([]byte(target)), Mode: filemode.Symlink}, []byte(target), true, nil
	case info.Mode().IsRegular():
		data, err := os.ReadFile(abs)
		if err != nil {
			return entry{}, nil, false, err
		}
		mode := filemode.Regular
		if info.Mode()&0o111 != 0 {
			mode = filemode.Executable
		}
		return entry{Hash: blobHash(data), Mode: mode}, data, true, nil
	}
	return entry{}, nil, false, nil
}

// learnedIgnores gathers the ignore rules that apply inside the learned
// folders: info/exclude, the root .gitignore, those of the folders on the
// way down, and every .gitignore below them.
func learnedIgnores(root, common string) gitignore.Matcher {
	var ps []gitignore.Pattern
	ps = append(ps, readIgnoreFile(filepath.Join(common, "info", "exclude"), nil)...)
	seen := map[string]bool{}
	for _, dir := range LearnedDirs {
		parts := strings.Split(dir, "/")
		for i := 0; i < len(parts); i++ {
			d := path.Join(parts[:i]...)
			if seen[d] {
				continue
			}
			seen[d] = true
			ps = append(ps, readIgnoreFile(filepath.Join(root, filepath.FromSlash(d), ".gitignore"), parts[:i])...)
		}
		sub, _ := gitignore.ReadPatterns(osfs.New(root), parts)
		ps = append(ps, sub...)
	}
	return gitignore.NewMatcher(ps)
}

func readIgnoreFile(file string, domain []string) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, append([]string(nil), domain...)))
	}
	return ps
}
