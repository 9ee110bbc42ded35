package automemory

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/extract"
)

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Both front-matter layouts Claude Code has written are read; the index
// and files that are not memories are not.
func TestReadAndMap(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, Index, "- [A](feedback_a.md) — a\n")
	write(t, dir, "feedback_a.md", "---\nname: a\ndescription: Always run go vet\ntype: feedback\n---\nRun go vet before committing.\n")
	write(t, dir, "project_b.md", "---\nname: b\ndescription: The API is frozen until 2.0\nmetadata:\n  type: project\n---\nNo breaking change before 2.0.\n")
	write(t, dir, "notes.md", "just text, no front matter\n")
	mems, problems := Read(dir)
	if len(mems) != 2 || len(problems) != 1 {
		t.Fatalf("read %d memories, %d problems: %v", len(mems), len(problems), problems)
	}
	want := map[string]string{"feedback_a.md": extract.Pitfall, "project_b.md": extract.Decision}
	for _, m := range mems {
		o, err := Observation(m)
		if err != nil {
			t.Fatal(err)
		}
		if o.Type != want[o.RecordUUID] || o.Extractor != Extractor || !o.QualityOK || o.Pattern == "" {
			t.Errorf("%s: %+v", m.File, o)
		}
		again, _ := Observation(m)
		if again.SessionID != o.SessionID || again.Timestamp != o.Timestamp {
			t.Errorf("%s: not the same source twice", m.File)
		}
	}
}

func TestPersonalMemoriesStay(t *testing.T) {
	for _, typ := range []string{"user", "reference", "other"} {
		if _, err := Observation(Memory{File: "/m/x.md", Type: typ, Description: "d", Body: "b"}); !errors.Is(err, ErrNotRecorded) {
			t.Errorf("%s: %v", typ, err)
		}
	}
}
