package skills

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// markerPrefix starts the line devlearn writes into a rendered skill: it
// names the skill and hashes the rest of the file, so a later render can
// tell its own unedited file (replaced) from a person's edit or a file of
// someone else's (kept).
const markerPrefix = "<!-- devlearn skill "

// Rendered is one file of a rendered skill, relative to the skills folder
// it goes in (.claude/skills/ of a project, or of a person).
type Rendered struct {
	Path string // "<name>/SKILL.md", "<name>/extended.md"
	Data []byte
}

// RenderClaude renders a skill for Claude Code: SKILL.md is the core, with
// the description Claude chooses skills by, and a link to extended.md
// beside it, which Claude reads only when it needs the detail.
func RenderClaude(s *Skill) []Rendered {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nFor examples, edge cases and checklists, read [extended.md](extended.md)", strings.TrimRight(s.Core, "\n"))
	if s.Extended == "" {
		b.Reset()
		b.WriteString(strings.TrimRight(s.Core, "\n"))
	}
	b.WriteString("\n")
	core := withMarker(s.Name, "SKILL.md", b.String())
	front := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n", s.Name, yamlString(s.Description))
	out := []Rendered{{Path: s.Name + "/SKILL.md", Data: []byte(front + core)}}
	if s.Extended != "" {
		out = append(out, Rendered{Path: s.Name + "/extended.md", Data: []byte(withMarker(s.Name, "extended.md", s.Extended))})
	}
	return out
}

// withMarker puts devlearn's marker line before body, hashing body.
func withMarker(name, file, body string) string {
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return fmt.Sprintf("%s%s sha256:%s (from $DEVLEARN_HOME/skills/%s/; edit it there, then run 'devlearn skill render') -->\n%s",
		markerPrefix, name, sum([]byte(body))[:16], name, body)
}

// Ownership is whose a rendered file is.
type Ownership int

const (
	Absent  Ownership = iota // no file
	Ours                     // devlearn's, as it rendered it
	Edited                   // devlearn's, changed since by a person
	Foreign                  // someone else's (no marker)
)

// Owner tells whose the file data is.
func Owner(data []byte) Ownership {
	if data == nil {
		return Absent
	}
	text := string(data)
	// The marker is the first line after the front matter, if any.
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if _, after, ok := strings.Cut(rest, "\n---\n"); ok {
			text = after
		}
	}
	line, body, ok := strings.Cut(text, "\n")
	if !ok || !strings.HasPrefix(line, markerPrefix) {
		return Foreign
	}
	i := strings.Index(line, " sha256:")
	if i < 0 || len(line) < i+8+16 {
		return Foreign
	}
	if line[i+8:i+8+16] != sum([]byte(body))[:16] {
		return Edited
	}
	return Ours
}

// RenderPlan is what rendering into a folder will do.
type RenderPlan struct {
	Write []Rendered `json:"-"`
	// Written, Unchanged and Kept list paths relative to the folder;
	// Kept says why each was left alone.
	Written   []string          `json:"written"`
	Unchanged []string          `json:"unchanged"`
	Kept      map[string]string `json:"kept"`
	Removed   []string          `json:"removed,omitempty"`
}

// PlanRender decides, file by file, what rendering skills into dir (a
// .claude/skills folder) does: a missing or unedited file of devlearn's
// is written, a person's edit or someone else's skill is kept. With
// remove, devlearn's unedited files are removed instead.
func PlanRender(dir string, list []*Skill, remove bool) (*RenderPlan, error) {
	plan := &RenderPlan{Written: []string{}, Unchanged: []string{}, Kept: map[string]string{}}
	for _, s := range list {
		for _, r := range RenderClaude(s) {
			p := filepath.Join(dir, filepath.FromSlash(r.Path))
			if fi, err := os.Lstat(filepath.Dir(p)); err == nil && !fi.IsDir() {
				plan.Kept[r.Path] = "its folder is not a folder (a symbolic link?)"
				continue
			}
			cur, err := os.ReadFile(p)
			if err != nil && !os.IsNotExist(err) {
				return nil, err
			}
			if err != nil {
				cur = nil
			}
			switch Owner(cur) {
			case Foreign:
				plan.Kept[r.Path] = "not devlearn's: a skill of the same name is there"
			case Edited:
				plan.Kept[r.Path] = "edited since devlearn rendered it; remove it to get devlearn's"
			case Ours:
				if remove {
					plan.Removed = append(plan.Removed, r.Path)
				} else if bytes.Equal(cur, r.Data) {
					plan.Unchanged = append(plan.Unchanged, r.Path)
				} else {
					plan.Write = append(plan.Write, r)
					plan.Written = append(plan.Written, r.Path)
				}
			case Absent:
				if !remove {
					plan.Write = append(plan.Write, r)
					plan.Written = append(plan.Written, r.Path)
				}
			}
		}
	}
	return plan, nil
}

// yamlString quotes a description when plain YAML would misread it.
func yamlString(s string) string {
	if strings.ContainsAny(s, ":#'\"{}[]&*!|>%@`") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "?") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// Join is path.Join for rendered paths under a project-relative folder.
func Join(dir, rel string) string { return path.Join(dir, rel) }
