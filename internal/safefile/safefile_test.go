package safefile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is a repository with a committed link at .memory/learning-log.jsonl
// to a file outside it, and a linked folder .claude -> outside.
func repo(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, ".git"), filepath.Join(root, ".memory"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, ".bashrc"), []byte("# mine\n"), 0o644)
	if err := os.Symlink("../../outside/.bashrc", filepath.Join(root, ".memory", "learning-log.jsonl")); err != nil {
		t.Skip(err)
	}
	os.Symlink("../outside", filepath.Join(root, ".claude"))
	return root, outside
}

func untouched(t *testing.T, outside string) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(outside, ".bashrc"))
	if string(b) != "# mine\n" {
		t.Fatalf("the file outside was changed: %q", b)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Fatalf("files appeared outside: %v", ents)
	}
}

func wantLink(t *testing.T, err error, link string) {
	t.Helper()
	var le *LinkError
	if !errors.As(err, &le) || !errors.Is(err, ErrLink) {
		t.Fatalf("want a refusal of the link %s, got %v", link, err)
	}
	if !strings.Contains(err.Error(), link+" is a symbolic link") {
		t.Fatalf("the refusal does not name %s: %v", link, err)
	}
}

func TestEveryWriteRefusesALinkAtTheFileOrAFolder(t *testing.T) {
	root, outside := repo(t)
	log := filepath.Join(root, ".memory", "learning-log.jsonl")
	cmd := filepath.Join(root, ".claude", "commands", "x.md")
	const file, folder = ".memory/learning-log.jsonl", ".claude"
	for _, c := range []struct {
		name, link string
		write      func() error
	}{
		{"append to a linked file", file, func() error {
			f, err := OpenFile(root, log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"write a linked file", file, func() error { return WriteFile(root, log, []byte("x"), 0o644) }},
		{"chmod a linked file", file, func() error { return Chmod(root, log, 0o600) }},
		{"check a linked file", file, func() error { return CheckNoLink(root, log) }},
		{"write under a linked folder", folder, func() error { return WriteFile(root, cmd, []byte("x"), 0o644) }},
		{"make a folder under a linked folder", folder, func() error { return MkdirAll(root, filepath.Dir(cmd), 0o755) }},
		{"a temporary file under a linked folder", folder, func() error { _, err := CreateTemp(root, filepath.Dir(cmd), "t-*"); return err }},
		{"rename into a linked folder", folder, func() error { return Rename(root, filepath.Join(root, ".git", "x"), cmd) }},
		{"remove under a linked folder", folder, func() error { return Remove(root, filepath.Join(root, ".claude", ".bashrc")) }},
		{"remove all under a linked folder", folder, func() error { return RemoveAll(root, filepath.Join(root, ".claude", "sub")) }},
		{"make a link under a linked folder", folder, func() error { return Symlink(root, "x", cmd) }},
		{"hard-link into a linked folder", folder, func() error {
			src := filepath.Join(root, ".git", "lock-src")
			if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
				return err
			}
			return Link(root, src, cmd)
		}},
		{"check under a linked folder", folder, func() error { return CheckNoLink(root, cmd) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantLink(t, c.write(), c.link)
			untouched(t, outside)
		})
	}
}

func TestWritesBelowTheRootWork(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a", "b", "f")
	if err := MkdirAll(root, filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(root, p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("two")
	f.Close()
	tmp, err := CreateTemp(root, filepath.Join(root, "c"), ".f.tmp-*")
	if err != nil || !strings.HasPrefix(filepath.Base(tmp.Name()), ".f.tmp-") {
		t.Fatal(tmp, err)
	}
	tmp.WriteString("three")
	tmp.Close()
	if err := Rename(root, tmp.Name(), filepath.Join(root, "a", "g")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "onetwo" {
		t.Fatalf("%q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a", "g")); string(b) != "three" {
		t.Fatalf("%q", b)
	}
	// A link at the destination of a rename is replaced, never followed.
	outside := filepath.Join(t.TempDir(), "o")
	os.WriteFile(outside, []byte("mine"), 0o644)
	os.Symlink(outside, filepath.Join(root, "a", "link"))
	if err := Rename(root, filepath.Join(root, "a", "g"), filepath.Join(root, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "mine" {
		t.Fatalf("rename wrote through the link: %q", b)
	}
	if err := Remove(root, filepath.Join(root, "c")); err != nil {
		t.Fatal(err) // an empty folder
	}
	if err := RemoveAll(root, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a")); !os.IsNotExist(err) {
		t.Fatal("not removed")
	}
	// The root itself may be reached through a link: it is the person's.
	link := filepath.Join(t.TempDir(), "linked-root")
	os.Symlink(root, link)
	if err := WriteFile(link, filepath.Join(link, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A path outside the root, or no root at all, is refused.
	if err := WriteFile(root, filepath.Join(root, "..", "x"), nil, 0o644); err == nil {
		t.Fatal("wrote outside the root")
	}
	if err := WriteFile("", p, nil, 0o644); err == nil {
		t.Fatal("wrote without a root")
	}
}

func TestTheRefusalSaysWhatToDo(t *testing.T) {
	root, _ := repo(t)
	err := WriteFile(root, filepath.Join(root, ".memory", "learning-log.jsonl"), []byte("x"), 0o644)
	want := "refusing to write .memory/learning-log.jsonl: .memory/learning-log.jsonl is a symbolic link (to ../../outside/.bashrc), and devlearn never writes through one (a repository can commit a link to carry writes out of it); replace the link with a real file"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

// rel's shortcut for clean paths gives filepath.Rel's answer, and refuses
// what it refuses, on paths built from empty, ".", ".." and ordinary
// names, below, at, beside and above roots clean and not.
func TestRelAgreesWithRel(t *testing.T) {
	reference := func(root, path string) ([]string, bool) {
		r, err := filepath.Rel(root, path)
		if err != nil || !filepath.IsLocal(r) {
			return nil, false
		}
		if r == "." {
			return nil, true
		}
		return strings.Split(r, string(filepath.Separator)), true
	}
	names := []string{"", ".", "..", "a", "b", "ab", "..a", "a..", ".git", "x y"}
	random := func(r *rand.Rand, n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = names[r.IntN(len(names))]
		}
		return strings.Join(parts, "/")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		root := "/" + random(r, 1+r.IntN(3))
		if r.IntN(4) == 0 {
			root = "/w/repo"
		}
		var path string
		switch r.IntN(4) {
		case 0:
			path = root + "/" + random(r, 1+r.IntN(4))
		case 1:
			path = root + random(r, 1+r.IntN(3))
		case 2:
			path = "/" + random(r, 1+r.IntN(5))
		default:
			path = "/w/repo/" + random(r, 1+r.IntN(4))
		}
		want, wantOK := reference(root, path)
		got, err := rel(root, path)
		if (err == nil) != wantOK || !slices.Equal(got, want) {
			t.Fatalf("rel(%q, %q) = %q, %v; filepath.Rel says %q, %v", root, path, got, err, want, wantOK)
		}
	}
}

// BenchmarkRel is the path check of every write below a trusted folder:
// an artifact's path and a kept copy's, as a bulk render makes them.
func BenchmarkRel(b *testing.B) {
	root := "/home/someone/src/project"
	paths := []string{root + "/.claude/commands/self-learning/lesson-number-9980-about-the-build-scripts.md",
		root + "/.git/devlearn/objects/ab/cdef0123456789abcdef0123456789abcdef01"}
	for range b.N {
		for _, p := range paths {
			if _, err := rel(root, p); err != nil {
				b.Fatal(err)
			}
		}
	}
}
