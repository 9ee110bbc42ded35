package knowledge

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseEntryDesignExample(t *testing.T) {
	src := `---
key: version-bump-checklist
summary: Bumping a version means four files, not one
kind: checklist            # checklist | pattern | warning | requirement | note
category: convention       # business_rule | architecture | api_quirk | lesson_learned | convention
priority: CRITICAL         # CRITICAL | HIGH | MEDIUM | LOW
status: active             # candidate | active | archived
source: stop-hook          # manual | transcript | stop-hook | fdrl | gate | llm
tags: [release]
triggers:
  tools: [Write, Edit]
  files: ["**/plugin.json", "**/*version*"]
  actions: [version bump, release]
  context: [deployment]
---
- [ ] pyproject.toml
- [ ] plugin.json
`
	e, err := ParseEntry(".memory/knowledge/entries/version-bump-checklist.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Entry{
		Key: "version-bump-checklist", Summary: "Bumping a version means four files, not one",
		Kind: "checklist", Category: "convention", Priority: "CRITICAL", Status: "active", Source: "stop-hook",
		Tags: []string{"release"},
		Triggers: Triggers{
			Tools: []string{"Write", "Edit"}, Files: []string{"**/plugin.json", "**/*version*"},
			Actions: []string{"version bump", "release"}, Context: []string{"deployment"},
		},
		Body:          "- [ ] pyproject.toml\n- [ ] plugin.json\n",
		TokenEstimate: 10,
	}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", e, want)
	}
	// What devlearn writes reads back the same.
	data, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseEntry("version-bump-checklist.md", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("round trip:\n%s\ngave %+v", data, back)
	}
}

func TestParseEntryDefaults(t *testing.T) {
	e, err := ParseEntry("dir/some-note.md", []byte("---\nsummary: Just a note\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Key != "some-note" || e.Kind != "note" || e.Priority != "MEDIUM" || e.Status != "active" || e.Source != "manual" || e.Body != "" {
		t.Fatalf("defaults: %+v", e)
	}
	if e, _ := ParseEntry("x.md", []byte("---\nsummary: s\npriority: critical\n---\n")); e == nil || e.Priority != "CRITICAL" {
		t.Fatalf("priority is read in any case and stored in upper case: %+v", e)
	}
}

// Every bad entry is reported with its file, its line and what to do.
func TestParseEntryErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown key", "---\nsummary: s\nprio: HIGH\n---\n", `e.md:3: unknown key "prio" (allowed: key, summary, kind, category, priority, status, source, observation, ask, tags, triggers, source_id, evidence, token_estimate, created_at, updated_at, accepted, clone, checklist, pattern, warning, requirement)`},
		{"bad priority", "---\nsummary: s\n\npriority: URGENT\n---\n", `e.md:4: priority "URGENT" is not one of CRITICAL, HIGH, MEDIUM, LOW`},
		{"bad kind", "---\nsummary: s\nkind: rule\n---\n", `e.md:3: kind "rule" is not one of checklist, pattern, warning, requirement, note`},
		{"bad status", "---\nsummary: s\nstatus: done\n---\n", `e.md:3: status "done" is not one of candidate, draft, active, archived`},
		{"bad source", "---\nsummary: s\nsource: me\n---\n", `e.md:3: source "me" is not one of manual, prompt, transcript, stop-hook, fdrl, gate, llm, workshop, pipeline`},
		{"bad category", "---\nsummary: s\ncategory: misc\n---\n", `e.md:3: category "misc" is not one of business_rule, architecture, api_quirk, lesson_learned, convention`},
		{"unknown trigger", "---\nsummary: s\ntriggers:\n  tool: [Write]\n---\n", `e.md:4: unknown key "triggers.tool" (allowed: tools, files, actions, context, commands)`},
		{"bad glob", "---\nsummary: s\ntriggers:\n  files: [\"a/[b\"]\n---\n", `e.md:4: triggers.files: "a/[b" is not a valid glob`},
		{"list expected", "---\nsummary: s\ntriggers:\n  tools: {a: b}\n---\n", `e.md:4: triggers.tools must be a list ([a, b]), not a set of keys`},
		{"keyword without words", "---\nsummary: s\ntriggers:\n  actions: [\"--\"]\n---\n", `e.md:4: triggers.actions: "--" has no words to match`},
		{"missing summary", "---\nkind: note\n---\n", `e.md:2: summary is missing`},
		{"empty front matter", "---\n---\nbody\n", `e.md:2: the front matter is empty`},
		{"no front matter", "just text\n", `e.md:1: no front matter`},
		{"unterminated", "---\nsummary: s\n", `e.md:1: no front matter`},
		{"not yaml", "---\nsummary: [a\n---\n", `e.md:2: not valid YAML`},
		{"syntax later", "---\nsummary: s\nkind: note\ntags: [a, b\n---\n", `e.md:4: not valid YAML`},
		{"open list on line 1", "---\ntags: [a, b\n---\n", `e.md:2: not valid YAML`},
		{"after a multi-line list", "---\ntags: [a,\n  b]\nkind: x: y\n---\n", `e.md:4: not valid YAML: mapping values are not allowed in this context`},
		{"open quote", "---\nsummary: s\nkind: 'x\n---\n", `e.md:3: not valid YAML`},
		{"tab indent", "---\nsummary: s\n\tkind: x\n---\n", `e.md:3: not valid YAML`},
		{"blank lines before", "\n\n---\nsummary: s\nkind: nope\n---\n", `e.md:5: kind "nope"`},
		{"duplicate key", "---\nsummary: s\nsummary: t\n---\n", `e.md:3: key "summary" appears twice`},
		{"key mismatch", "---\nkey: other\nsummary: s\n---\n", `e.md:2: key "other" is not the file's name (e.md)`},
		{"hostile key", "---\nkey: ../x\nsummary: s\n---\n", `e.md:2: key "../x" may hold only a-z, 0-9 and inner dashes`},
		{"ask not bool", "---\nsummary: s\nask: maybe\n---\n", `e.md:3: ask must be true or false`},
		{"two-line summary", "---\nsummary: |\n  a\n  b\n---\n", `e.md:2: summary must be one line`},
		{"summary too long", "---\nsummary: " + strings.Repeat("x", 201) + "\n---\n", `e.md:2: summary is 201 characters; at most 200`},
		{"observation", "---\nsummary: s\nobservation: abc\n---\n", `e.md:3: observation "abc" is not an observation id`},
		{"not utf-8", "---\nsummary: \xff\n---\n", `e.md: not UTF-8 text`},
		{"sequence doc", "---\n- a\n- b\n---\n", `e.md:2: the front matter must be YAML keys`},
		{"nul in value", "---\nsummary: \"a\\0b\"\n---\n", `e.md:2: value holds a NUL character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseEntry("e.md", []byte(tc.src))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got  %v\nwant %s…", err, tc.want)
			}
		})
	}
}

// Keys become file names: whatever a transcript or a person gives, the
// file stays a direct child of the entries folder.
func TestHostileKeys(t *testing.T) {
	dir := "/store/entries"
	for _, key := range []string{
		"../x", "..", "/etc/passwd", "a/b", `a\b`, "a\x00b", "", "-lead", "trail-",
		strings.Repeat("a", MaxKey+1), "vеrsion", "ＡＢＣ", "a.b", "CON", "UPPER", "a b", "\u202ertl",
		"con", "aux", "nul", "prn", "com1", "lpt9", // Windows devices
	} {
		if _, err := EntryFile(dir, key); err == nil {
			t.Errorf("key %q accepted", key)
		}
		if ValidKey(key) == nil {
			t.Errorf("ValidKey(%q) = nil", key)
		}
	}
	for _, key := range []string{"a", "version-bump-checklist", "x1", strings.Repeat("a", MaxKey)} {
		p, err := EntryFile(dir, key)
		if err != nil || filepath.Dir(p) != dir {
			t.Errorf("key %q: %q, %v", key, p, err)
		}
	}
	// Derived keys are always valid, whatever the summary.
	for _, s := range []string{"Bump the Version!", "../../etc", "ｆｕｌｌ width", "a\x00b", strings.Repeat("long ", 40), "日本語のみ", "AUX", "Con.", "nul!"} {
		if k := KeyFor(s); k != "" && ValidKey(k) != nil {
			t.Errorf("KeyFor(%q) = %q: %v", s, k, ValidKey(k))
		}
		e := &Entry{Summary: s}
		if k := CandidateKey(e); ValidKey(k) != nil {
			t.Errorf("CandidateKey(%q) = %q: %v", s, k, ValidKey(k))
		}
	}
}

// The same block gives the same candidate key, whoever saw it.
func TestCandidateKeyIsTheContent(t *testing.T) {
	a := &Entry{Summary: "Run go generate before go test", Kind: "checklist", Body: "- go generate ./...\n", Source: "stop-hook"}
	b := &Entry{Summary: "Run go generate before go test", Kind: "checklist", Body: "- go generate ./...", Source: "transcript", Status: "candidate"}
	c := &Entry{Summary: "Run go generate before go test", Kind: "checklist", Body: "- go generate ./internal/...\n"}
	if CandidateKey(a) != CandidateKey(b) {
		t.Fatalf("same content, two keys: %s %s", CandidateKey(a), CandidateKey(b))
	}
	if CandidateKey(a) == CandidateKey(c) {
		t.Fatal("different content, one key")
	}
	if !strings.HasPrefix(CandidateKey(a), "run-go-generate-before-go-test-") {
		t.Fatalf("key %s", CandidateKey(a))
	}
}

func TestParseBlock(t *testing.T) {
	e, err := ParseBlock("block", []byte("summary: Migrations need a down step\npriority: HIGH\ntriggers:\n  files: [\"db/migrations/**\"]\nbody: |\n  Every up has a down.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Body != "Every up has a down.\n" || e.Priority != "HIGH" || e.Triggers.Files[0] != "db/migrations/**" {
		t.Fatalf("%+v", e)
	}
	if _, err := ParseBlock("block", []byte("summary: s\nbogus: 1\n")); err == nil || !strings.HasPrefix(err.Error(), `block:2: unknown key "bogus"`) {
		t.Fatalf("got %v", err)
	}
}

func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(versionBump))
	f.Add([]byte("---\nsummary: s\n---\n"))
	f.Add([]byte("---\nsummary: [\n---\n"))
	f.Add([]byte("\n\n---\ntriggers:\n  files: ['**/x']\nsummary: y\n---\nbody"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry("f.md", data)
		if err != nil {
			var pe *ParseError
			if !asParseError(err, &pe) {
				t.Fatalf("not a ParseError: %T %v", err, err)
			}
			return
		}
		// Whatever parses writes out and reads back the same.
		out, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseEntry("f.md", out)
		if err != nil {
			t.Fatalf("%v\nwritten:\n%s", err, out)
		}
		if !reflect.DeepEqual(e, back) {
			t.Fatalf("round trip:\n%+v\n%+v", e, back)
		}
	})
}

func asParseError(err error, pe **ParseError) bool {
	p, ok := err.(*ParseError)
	*pe = p
	return ok
}
