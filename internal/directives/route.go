package directives

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/project"
)

// Where learned pitfalls and decisions go (directives.learned).
const (
	LearnedCentral    = "central"
	LearnedDirectives = "directives"
)

// KindOf returns the knowledge-file kind of a path relative to the root:
// the central decisions.md and pitfalls.md, and an area's
// .directives/INVARIANTS.md and PITFALLS.md; false for any other file.
func KindOf(rel string) (knowfile.Kind, bool) {
	if t, ok := lesson.ByCentral(rel); ok {
		return knowfile.Kind(t.Central), true
	}
	return LearnedKind(rel)
}

// LearnedKind is KindOf for the directive files only.
func LearnedKind(rel string) (knowfile.Kind, bool) {
	_, typ, ok := Split(rel)
	if !ok || path.Clean(rel) != rel || strings.HasPrefix(rel, "../") {
		return knowfile.Kind{}, false
	}
	// The knowledge files an area's learned entries are rendered into
	// (lesson.Type.Directive): the same section format as the central
	// files, so the one parser, the manifest and reconcile treat them alike.
	for _, t := range lesson.Sections() {
		if t.Directive.Path != "" && t.Directive.Path == typ {
			k := knowfile.Kind(t.Directive)
			k.Path = rel
			return k, true
		}
	}
	return knowfile.Kind{}, false
}

// ReadLearned reads a learned-entries file (KindOf) of the project; a
// missing file is an empty document.
func ReadLearned(p *project.Project, rel string) (*knowfile.Doc, bool, error) {
	k, ok := KindOf(rel)
	if !ok {
		return nil, false, nil
	}
	data, err := os.ReadFile(p.Path(rel))
	if err != nil && !os.IsNotExist(err) {
		return nil, false, err
	}
	return knowfile.Parse(k, data), true, nil
}

// LearnedTarget is the directive file a learned entry of type typ
// ("pitfall" or "decision") about area goes to: the PITFALLS.md or
// INVARIANTS.md of the nearest .directives/ folder at or above the area.
// It is "" (the central file) when the area is not a path inside the
// repository (a command, say), when no folder on the way up has a
// .directives/, or when that folder leads outside the repository. The
// area is learned text: it never names a file by itself, it only picks
// among folders that exist.
func LearnedTarget(root, area, typ string, ignore []string) string {
	t, _ := lesson.Get(typ)
	name := t.Directive.Path
	if t.Artifact != lesson.Section || name == "" {
		return ""
	}
	start, ok := areaLevel(root, area)
	if !ok {
		return ""
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return ""
	}
	w := &walk{opts: Options{Ignore: ignore}, memo: &Memo{RealRoot: realRoot}}
	for l := start; ; l = parentLevel(l) {
		if !w.ignored(l) {
			dir := filepath.Join(root, filepath.FromSlash(l), DirName)
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				if real, err := filepath.EvalSymlinks(dir); err == nil && w.inside(real) {
					return LevelFile(l, name)
				}
				return ""
			}
		}
		if l == "." {
			return ""
		}
	}
}

// areaLevel reads an area ("pkg/api/", "pkg/api/handler.go",
// "src/**/*.ts", an absolute path inside root) as the path, relative to
// root, that the walk up starts from.
func areaLevel(root, area string) (string, bool) {
	a := strings.TrimSpace(area)
	if i := strings.IndexAny(a, "*?[{"); i >= 0 {
		a = a[:i]
		if j := strings.LastIndexByte(a, '/'); j >= 0 {
			a = a[:j]
		} else {
			a = ""
		}
	}
	if a == "" || a == "-" || strings.ContainsAny(a, " \t\n") || strings.ContainsRune(a, 0) {
		return "", false
	}
	a = filepath.FromSlash(a)
	if filepath.IsAbs(a) {
		rel, err := filepath.Rel(root, a)
		if err != nil {
			return "", false
		}
		a = rel
	}
	a = filepath.ToSlash(filepath.Clean(a))
	if a == ".." || strings.HasPrefix(a, "../") || slices.Contains(strings.Split(a, "/"), ".git") {
		return "", false
	}
	// A file, or a path that does not exist, has no .directives/ of its
	// own: walking up from it is walking up from its folder.
	return a, true
}
