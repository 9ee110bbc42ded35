// Package cleanup finds what devlearn made in a project, to take it away
// (`learn --reset`, `uninstall --purge-knowledge`) without ever touching
// what a person wrote: a file or section is devlearn's only if it carries
// the self-learning Source marker, or, for knowledge entries, a source
// other than "manual".
package cleanup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/render"
	"github.com/devlearn/devlearn/internal/review"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Plan is what a cleanup removes and what it keeps.
type Plan struct {
	Changes []evolve.Change `json:"-"`
	Removed []string        `json:"removed"` // files removed, sections as "file ANCHOR"
	Kept    []string        `json:"kept"`    // a person's own, left alone
}

func (p *Plan) remove(rel string) {
	p.Changes = append(p.Changes, evolve.Change{Path: rel, Remove: true})
	p.Removed = append(p.Removed, rel)
}

// Artifacts plans the removal of every artifact devlearn made: commands,
// skills (devflow's self-learning:<slug> folders too), machine-made ADR and
// PF sections, machine-made knowledge entries, and the manifest.
func Artifacts(p *project.Project) (*Plan, error) {
	plan := &Plan{Removed: []string{}, Kept: []string{}}
	files := func(dir string, pick func(name string, isDir bool) string) error {
		ents, err := os.ReadDir(p.Path(dir))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			rel := pick(e.Name(), e.IsDir())
			if rel == "" {
				continue
			}
			data, err := os.ReadFile(p.Path(rel))
			if err != nil {
				continue
			}
			if render.SourceOf(data) != "" {
				plan.remove(rel)
			} else {
				plan.Kept = append(plan.Kept, rel)
			}
		}
		return nil
	}
	if err := files(project.CommandsDir, func(name string, dir bool) string {
		if dir || !strings.HasSuffix(name, ".md") {
			return ""
		}
		return project.CommandsDir + "/" + name
	}); err != nil {
		return nil, err
	}
	if err := files(project.SkillsDir, func(name string, dir bool) string {
		if !dir {
			return ""
		}
		return project.SkillsDir + "/" + name + "/SKILL.md"
	}); err != nil {
		return nil, err
	}
	docs, err := knowfile.ReadAll(p)
	if err != nil {
		return nil, err
	}
	kinds := slices.Clone(knowfile.Kinds())
	// Sections rendered into an area's .directives/ files, found through
	// the manifest that recorded them.
	if man, _, err := manifest.LoadProject(p); err == nil {
		for _, e := range man.Entries {
			if k, ok := directives.LearnedKind(e.Path); ok && docs[e.Path] == nil {
				doc, _, err := directives.ReadLearned(p, e.Path)
				if err != nil {
					return nil, err
				}
				docs[e.Path] = doc
				kinds = append(kinds, k)
			}
		}
	}
	for _, kind := range kinds {
		// A missing file reads as no sections: nothing to remove or keep.
		doc := docs[kind.Path]
		var kept []*knowfile.Section
		for _, s := range doc.Sections {
			if s.Source() != "" {
				plan.Removed = append(plan.Removed, kind.Path+" "+s.Anchor)
				continue
			}
			kept = append(kept, s)
			plan.Kept = append(plan.Kept, strings.TrimSpace(kind.Path+" "+s.Anchor))
		}
		switch {
		case len(kept) == len(doc.Sections):
		case len(kept) == 0 && (slices.Contains(knowfile.Kinds(), kind) || madeByRender(doc)):
			plan.Changes = append(plan.Changes, evolve.Change{Path: kind.Path, Remove: true})
		default:
			doc.Sections = kept
			plan.Changes = append(plan.Changes, evolve.Change{Path: kind.Path, Data: doc.Bytes()})
		}
	}
	cands, err := review.Candidates(p)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		src, err := entrySource(p.Path(c.Path))
		if err != nil {
			return nil, err
		}
		if src == "" || src == "manual" {
			plan.Kept = append(plan.Kept, c.Path)
			continue
		}
		plan.remove(c.Path)
	}
	if _, err := os.Stat(p.Path(project.ManifestFile)); err == nil {
		plan.remove(project.ManifestFile)
	}
	return plan, nil
}

// madeByRender reports whether an area's directive file holds nothing but
// what render wrote when it created it (its title): a person's own file,
// even emptied of devlearn's sections, is kept.
func madeByRender(doc *knowfile.Doc) bool {
	pre := strings.TrimSpace(doc.Preamble)
	return pre == "" || pre == doc.Kind.Title
}

// entrySource is who made an entry ("manual" when its file says nothing),
// read by the knowledge package's parser.
func entrySource(path string) (string, error) {
	e, err := knowledge.ReadEntry(path, path)
	if err != nil {
		return "", err
	}
	return e.Source, nil
}

// RemoveEmptyDirs removes the folders a cleanup left empty (a skill's
// folder once its SKILL.md is gone), never a folder with anything in it.
func RemoveEmptyDirs(p *project.Project, removed []string) {
	for _, rel := range removed {
		dir := filepath.Dir(p.Path(rel))
		for dir != p.Root && strings.HasPrefix(dir, p.Root) {
			if err := safefile.Remove(p.Root, dir); err != nil {
				break // not empty, or gone
			}
			dir = filepath.Dir(dir)
		}
	}
}

// ClearState removes the per-clone state except what must outlive it: the
// locks other processes may hold, a batch the writer has in flight, and
// the copies of replaced files (which make this cleanup itself revertible).
func ClearState(p *project.Project) ([]string, error) {
	ents, err := os.ReadDir(p.StateDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		switch e.Name() {
		case "locks", "pending", "objects":
			continue
		}
		if err := safefile.RemoveAll(p.CommonDir, p.StatePath(e.Name())); err != nil {
			return removed, fmt.Errorf("removing %s: %w", p.StatePath(e.Name()), err)
		}
		removed = append(removed, e.Name())
	}
	// The working tree's session state (directives) is state too.
	if _, err := os.Lstat(p.Path(directives.LocalDir)); err == nil {
		if err := safefile.RemoveAll(p.Root, p.Path(directives.LocalDir)); err != nil {
			return removed, fmt.Errorf("removing %s: %w", directives.LocalDir, err)
		}
		removed = append(removed, directives.LocalDir)
	}
	return removed, nil
}
