package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/config"
)

// Files lists the files in the project at root that its gates name in
// their commands, such as a script ('sh check.sh', './scripts/ci.sh'):
// absolute, symbolic links resolved, each once. Trust records their
// hashes, so a script changed since (by a pull) holds the gates back as a
// changed config does. It finds the files a command names, not all it
// runs: what a Makefile target or the tests run is the folder's code, which
// a person trusts with the folder.
func Files(root string, g config.Gates) []string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	o := Options{Project: root}
	var out []string
	for _, gt := range All(g) {
		dir, err := o.dir(gt.Cwd)
		if err != nil {
			dir = root
		}
		// A word names a file relative to the gate's folder, or to a
		// folder a cd before it went to ("cd tools && sh lint.sh"): both
		// are looked at, since which one the shell is in is not read here,
		// and a file hashed more is only held more.
		dirs := []string{dir}
		ws := words(gt.Command)
		for i := 0; i < len(ws); i++ {
			w := ws[i]
			if w == "cd" && i+1 < len(ws) {
				to := ExpandPath(ws[i+1], root, root)
				if !filepath.IsAbs(to) {
					to = filepath.Join(dir, to)
				}
				dirs = append(dirs, to)
				i++
				continue
			}
			if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$*?[=`") {
				continue
			}
			w = ExpandPath(w, root, root)
			for _, d := range dirs {
				name := w
				if !filepath.IsAbs(name) {
					name = filepath.Join(d, name)
				}
				if real, ok := inFolder(realRoot, name); ok && !slices.Contains(out, real) {
					out = append(out, real)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// inFolder is name with its links resolved, when it is a regular file
// inside the folder realRoot: what a pull changes.
func inFolder(realRoot, name string) (string, bool) {
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return real, true
}

// words splits shell text into its words, quotes taken off, at blanks and
// at the operators that separate commands and redirections. It reads a
// command for the files it names, not to run it: what it cannot read
// plainly ($(...), variables) is left as a word that names no file.
func words(cmd string) []string {
	var out []string
	var b strings.Builder
	in := false
	flush := func() {
		if in {
			out = append(out, b.String())
		}
		b.Reset()
		in = false
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\'' || c == '"':
			in = true
			j := strings.IndexByte(cmd[i+1:], c)
			if j < 0 {
				b.WriteString(cmd[i+1:])
				i = len(cmd)
				continue
			}
			b.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
		case c == '\\' && i+1 < len(cmd):
			in = true
			b.WriteByte(cmd[i+1])
			i++
		case strings.IndexByte(" \t\n;&|()<>", c) >= 0:
			flush()
		default:
			in = true
			b.WriteByte(c)
		}
	}
	flush()
	return out
}
