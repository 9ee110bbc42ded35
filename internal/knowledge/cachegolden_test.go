package knowledge

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/stamp"
)

// goldenCache holds every kind of field the cache writes, at the edges of
// their encodings: empty and long strings (a length of more than one
// byte), negative and extreme integers, bools both ways, empty and nil
// lists, records of each kind.
func goldenCache() *cacheData {
	long := strings.Repeat("é long text ", 40)
	full := &Item{ID: "ADR-003", Priority: "CRITICAL", Active: true,
		Match: Match{
			Tools:    []string{"Write", "Edit"},
			Files:    []Glob{{Pattern: "**/src/**", Literal: "/src/", Shown: "src/"}, {Pattern: "**/*.go", Literal: ".go", Shown: "**/*.go", Derived: true, AtRequest: true}},
			Actions:  []string{"deploy staging"},
			Context:  []string{"migration"},
			Commands: []Command{{Verb: "git", Words: []string{"push", "--force"}}, {Verb: "npm", Written: true}, {Verb: "grep", Written: true, Flag: "-P", Args: []string{"(?<=x)"}, Outside: true}},
			Topics:   []string{"payments", "ledger"},
		},
		Detail: &Detail{Type: "decision", Kind: "adr", Scope: "project", Title: "Use the ledger", Status: "Accepted",
			Area: "payments/", Observation: "obs_0123456789ab", Ask: true, Path: ".memory/decisions.md", Text: long, TextRunes: 300}}
	bare := &Item{ID: "PF-001", Priority: "", Detail: &Detail{Type: "pitfall"}}
	entry := &Item{ID: "no-force-push", Priority: "HIGH", Active: true,
		Match: Match{Context: []string{"force push"}, Tools: []string{}},
		Detail: &Detail{Type: "entry", Scope: "global", Title: "t", Status: "active", Path: "/home/x/.devlearn/knowledge/no-force-push.md", TextRunes: 1 << 30,
			Process: "Steps:\n1. é", File: stamp.Stamp{Exists: true, Size: 900, Mtime: -1_700_000_000_000_000_000, Ino: math.MaxUint64}}}
	always := &Item{ID: "always", Priority: "LOW", Active: true,
		Match:  Match{Tools: []string{"Bash"}},
		Detail: &Detail{Type: "entry"}}
	return &cacheData{
		root:   "/repo/root",
		global: "",
		start:  1_700_000_000_987_654_321,
		stamps: []stamp.Stamp{
			{Exists: true, Size: 1234, Mtime: 1_700_000_000_123_456_789, Ino: math.MaxUint64},
			{Exists: false, Size: -1, Mtime: math.MinInt64, Ino: 0},
			{Exists: true, Size: math.MaxInt64, Mtime: -300, Ino: 128},
		},
		sections:        []*Item{full, bare},
		sectionProblems: []*ParseError{{Path: ".memory/pitfalls.md", Line: 7, Msg: "no status"}, {Path: "x", Msg: long}},
		dirs: [][]*record{
			{
				{name: "no-force-push.md", size: 900, mtime: 1_700_000_000_000_000_000, ino: 42, item: entry},
				{name: "broken.md", size: 3, mtime: -1, ino: 1 << 40, problem: &ParseError{Path: "broken.md", Line: 1, Msg: "front matter"}},
				{name: "odd.txt", size: 0, mtime: 0, ino: 0},
			},
			{},
			{
				{name: "always.md", size: 10, mtime: 5, ino: 6, item: always},
			},
		},
	}
}

// The cache's bytes are fixed by testdata/cachefile.golden (first written
// by the encoder before the field encoding moved to binfield, rewritten
// for each new version since): a change of format shows here, with its
// version. DEVLEARN_UPDATE_GOLDEN=1 rewrites it.
func TestCacheBytesGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/cachefile.golden")
	if err != nil {
		t.Fatal(err)
	}
	got := encodeCache(goldenCache())
	if os.Getenv("DEVLEARN_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("testdata/cachefile.golden", got, 0o644); err != nil {
			t.Fatal(err)
		}
		want = got
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the cache's bytes changed:\n got %q\nwant %q", got, want)
	}
	// And those bytes decode to what re-encodes to the same bytes.
	f, err := openFile(memFile(want), int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.decode()
	if err != nil {
		t.Fatal(err)
	}
	if again := encodeCache(c); !bytes.Equal(again, want) {
		t.Fatalf("decoded and encoded again:\n got %q\nwant %q", again, want)
	}
}
