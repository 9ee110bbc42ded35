package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureListsEveryPackage holds docs/architecture.md's list of
// packages to the tree: every folder under internal/ with Go code other
// than tests is named at the start of a line of its "Packages" block, and
// every package named there exists. A newcomer reads that list to know
// where a change belongs.
func TestArchitectureListsEveryPackage(t *testing.T) {
	data, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(data), "## Packages\n\n```\n")
	block, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Packages" block`)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(internal/\S+)`).FindAllStringSubmatch(block, -1) {
		listed[m[1]] = true
	}
	inTree := map[string]bool{}
	err = filepath.WalkDir("../../internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "/testdata/") {
			return err
		}
		rel, _ := filepath.Rel("../..", filepath.Dir(path))
		inTree[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(inTree) < 50 {
		t.Fatalf("found only %d packages under internal/: the walk is broken", len(inTree))
	}
	for p := range inTree {
		if !listed[p] {
			t.Errorf("%s is not in docs/architecture.md's list of packages: add a line saying what it is for", p)
		}
	}
	for p := range listed {
		if !inTree[p] {
			t.Errorf("docs/architecture.md lists %s, which is not a package under internal/", p)
		}
	}
}
