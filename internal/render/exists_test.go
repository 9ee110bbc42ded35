package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/project"
)

// exists sees what is there, a link too; below a folder found missing it
// looks no more in the run, and a miss in a folder that is there looks at
// that folder once.
func TestExistsRemembersMissingFolders(t *testing.T) {
	root := t.TempDir()
	cmds := filepath.Join(root, ".claude", "commands", "self-learning")
	os.MkdirAll(cmds, 0o755)
	os.WriteFile(filepath.Join(cmds, "mine.md"), []byte("x"), 0o644)
	os.Symlink("nowhere", filepath.Join(cmds, "link.md"))
	p := &plan{r: &Renderer{Proj: &project.Project{Root: root}}, present: map[string]bool{}}

	for name, want := range map[string]bool{"mine.md": true, "link.md": true, "free.md": false, "free-2.md": false} {
		if got := p.exists(filepath.Join(cmds, name)); got != want {
			t.Errorf("exists(%s) = %v, want %v", name, got, want)
		}
	}
	if len(p.missing) != 0 || !p.present[cmds] {
		t.Fatalf("a miss in a folder that is there: missing %v, present %v", p.missing, p.present)
	}

	skills := filepath.Join(root, ".claude", "skills")
	if p.exists(filepath.Join(skills, "a", "SKILL.md")) {
		t.Fatal("a skill in a missing folder exists")
	}
	if len(p.missing) != 1 || p.missing[0] != skills {
		t.Fatalf("missing = %v, want the highest missing folder %s", p.missing, skills)
	}
	// Nothing below it is looked at again in the run: the plan creates no
	// folder, so what is missing stays missing until the writer runs.
	os.MkdirAll(filepath.Join(skills, "b"), 0o755)
	os.WriteFile(filepath.Join(skills, "b", "SKILL.md"), []byte("x"), 0o644)
	if p.exists(filepath.Join(skills, "b", "SKILL.md")) {
		t.Fatal("looked below a folder found missing")
	}
	if !p.exists(filepath.Join(cmds, "mine.md")) {
		t.Fatal("a file beside the missing folder is not seen")
	}
	// A folder whose name starts like the missing one is another folder.
	other := filepath.Join(root, ".claude", "skills-other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "x.md"), []byte("x"), 0o644)
	if !p.exists(filepath.Join(other, "x.md")) {
		t.Fatal("a file in a folder named like the missing one is not seen")
	}
}
