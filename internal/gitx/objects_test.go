package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

func TestEditTree(t *testing.T) {
	s := newOverlay(memory.NewStorage())
	blob := func(c string) entry {
		h, err := putBlob(s, []byte(c))
		if err != nil {
			t.Fatal(err)
		}
		return entry{Hash: h, Mode: filemode.Regular}
	}
	root, err := editTree(s, plumbing.ZeroHash, []edit{{"a.txt", blob("a")}, {"d/x.txt", blob("x")}, {"d/e/y.txt", blob("y")}, {"f", blob("f")}})
	if err != nil {
		t.Fatal(err)
	}
	files := func(h plumbing.Hash) map[string]string {
		tr, err := object.GetTree(s, h)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		tr.Files().ForEach(func(f *object.File) error {
			c, _ := f.Contents()
			out[f.Name] = c
			return nil
		})
		return out
	}
	if got := files(root); len(got) != 4 || got["d/e/y.txt"] != "y" {
		t.Fatalf("files %v", got)
	}
	tests := []struct {
		name  string
		edits []edit
		want  map[string]string
		df    string
	}{
		{"delete the last file of a folder drops the folder", []edit{{"d/e/y.txt", entry{}}}, map[string]string{"a.txt": "a", "d/x.txt": "x", "f": "f"}, ""},
		{"a file replaces a folder whose files are deleted", []edit{{"d/e", blob("file")}, {"d/e/y.txt", entry{}}}, map[string]string{"a.txt": "a", "d/x.txt": "x", "d/e": "file", "f": "f"}, ""},
		{"a folder replaces a deleted file", []edit{{"f", entry{}}, {"f/g.txt", blob("g")}}, map[string]string{"a.txt": "a", "d/x.txt": "x", "d/e/y.txt": "y", "f/g.txt": "g"}, ""},
		{"file in the way of a folder", []edit{{"f/g.txt", blob("g")}}, nil, "f"},
		{"folder in the way of a file", []edit{{"d", blob("d")}}, nil, "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := editTree(s, root, tt.edits)
			var df *dfConflict
			if tt.df != "" {
				if !errors.As(err, &df) || df.path != tt.df {
					t.Fatalf("want a file/folder conflict on %s, got %v", tt.df, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := files(h)
			if len(got) != len(tt.want) {
				t.Fatalf("files %v, want %v", got, tt.want)
			}
			for p, c := range tt.want {
				if got[p] != c {
					t.Fatalf("files %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestSafePath(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "real"), 0o755)
	os.Symlink(t.TempDir(), filepath.Join(root, "link"))
	for p, ok := range map[string]bool{
		"a.txt": true, "real/b.txt": true, "new/dir/c.txt": true,
		"../x": false, "a/../../x": false, ".git/config": false, "sub/.GIT/hooks/x": false, "a//b": false,
		"link/x.txt": false,
	} {
		if err := safePath(root, p); (err == nil) != ok {
			t.Errorf("safePath(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}

func TestTaskName(t *testing.T) {
	for in, want := range map[string]string{"task/login": "task-login", "fix-1.2": "fix-1.2", "..hidden": "hidden", "a b:c": "a-b-c", "...": "task", "aux": "task-aux", "COM1": "task-COM1", "con.x": "task-con.x"} {
		if got := TaskName(in); got != want {
			t.Errorf("TaskName(%q) = %q, want %q", in, got, want)
		}
	}
}
