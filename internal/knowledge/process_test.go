package knowledge

import (
	"reflect"
	"strings"
	"testing"
)

// A triads block, as the design's own test case writes it, is an entry with its checklist kept.
func TestParseBlockTriadsSeed(t *testing.T) {
	src := `type: checklist
priority: CRITICAL
label: Version Bump File Checklist
trigger_conditions:
  tool_names: [Write, Edit]
  file_patterns: ["**/plugin.json", "**/*version*"]
checklist:
  title: Complete Version Bump
  items:
    - pyproject.toml (version field)
    - plugin.json (version field)
    - marketplace.json (current_version)
    - CHANGELOG.md (new version section)
`
	e, err := ParseBlock("block", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Entry{
		Summary: "Version Bump File Checklist", Kind: "checklist", Priority: "CRITICAL",
		Status: StatusActive, Source: defaultSource,
		Triggers: Triggers{Tools: []string{"Write", "Edit"}, Files: []string{"**/plugin.json", "**/*version*"}},
		Process: Process{Checklist: &ChecklistContent{Title: "Complete Version Bump", Items: []string{
			"pyproject.toml (version field)", "plugin.json (version field)",
			"marketplace.json (current_version)", "CHANGELOG.md (new version section)",
		}}},
	}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", e, want)
	}
	// Written as an entry file and read back, nothing is lost.
	e.Key = "version-bump"
	data, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseEntry("version-bump.md", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip:\n%s\ngave %+v", data, back)
	}
	if !strings.Contains(string(data), "checklist:\n  title: Complete Version Bump\n  items:\n") {
		t.Fatalf("the checklist is in the front matter:\n%s", data)
	}
}

// Every process type of the triads design, with its graph node fields (id,
// description, evidence, confidence, created_by, ...) around it.
func TestParseBlockTriadsEveryType(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		kind      string
		text      []string
	}{
		{"pattern", `id: process_refactor_2025-10-17
type: Concept
process_type: pattern
label: Code Refactoring Safety
description: Run the whole suite when refactoring
confidence: 0.85
evidence: v0.6.0 refactoring broke import detection
created_by: lesson-extractor
created_at: "2025-10-17T13:05:00.000000"
priority: HIGH
trigger_conditions:
  tool_names: [Bash]
  action_keywords: [refactor]
  context_keywords: [refactoring]
  triad_names: [implementation]
pattern:
  situation: When refactoring code
  action: Always run full test suite before committing
  rationale: Prevents regressions from propagating
  example: v0.6.0 refactoring broke import detection due to skipped tests
`, "pattern", []string{"When: When refactoring code", "Do: Always run full test suite before committing", "Why: Prevents regressions from propagating", "Example: v0.6.0"}},
		{"warning", `type: warning
label: Agent Prompt Editing
warning:
  risk: Editing agent prompts without testing breaks agent behavior
  severity: high
  detection: Agent produces incorrect outputs or fails to invoke
  mitigation: Test agent with sample inputs after every prompt change
`, "warning", []string{"Risk: Editing agent prompts", "Severity: HIGH", "How to detect: Agent produces", "Mitigation: Test agent"}},
		{"requirement", `type: requirement
label: API Documentation
requirement:
  constraint: All public APIs must have docstrings with examples
  rationale: Enables auto-generated documentation and Claude Code assistance
  validation: ruff check --select D (docstring checks)
`, "requirement", []string{"Constraint: All public APIs", "Why: Enables", "Verify with: ruff check --select D"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseBlock("block", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tc.kind || e.Process.Kind() != tc.kind {
				t.Fatalf("kind %q, content %q", e.Kind, e.Process.Kind())
			}
			text := e.Process.Text()
			for _, w := range tc.text {
				if !strings.Contains(text, w) {
					t.Errorf("shown content lacks %q:\n%s", w, text)
				}
			}
		})
	}
	e, err := ParseBlock("block", []byte(`process_type: pattern
type: Concept
label: Code Refactoring Safety
description: Run the whole suite when refactoring
evidence: v0.6.0 refactoring broke import detection
trigger_conditions:
  action_keywords: [refactor]
  triad_names: [implementation]
pattern:
  action: Always run full test suite before committing
`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Body != "Run the whole suite when refactoring\n\nEvidence: v0.6.0 refactoring broke import detection\n" {
		t.Fatalf("description and evidence make the body: %q", e.Body)
	}
	if !reflect.DeepEqual(e.Triggers, Triggers{Actions: []string{"refactor"}}) {
		t.Fatalf("triggers: %+v", e.Triggers)
	}
}

// The block format devlearn already read is read as before.
func TestParseBlockDevlearnFormatUnchanged(t *testing.T) {
	e, err := ParseBlock("block", []byte("summary: Run go generate before go test\nkind: checklist\npriority: HIGH\ntriggers:\n  tools: [Bash]\n  actions: [go test]\nbody: |\n  - [ ] go generate ./...\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Summary != "Run go generate before go test" || e.Kind != "checklist" || e.Body != "- [ ] go generate ./...\n" || !e.Process.Empty() {
		t.Fatalf("%+v", e)
	}
}

// A block that only holds its content is about what the content says.
func TestParseBlockSummaryAndKindFromContent(t *testing.T) {
	e, err := ParseBlock("block", []byte("warning:\n  risk: Pushing to main skips review\n  severity: HIGH\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Summary != "Pushing to main skips review" || e.Kind != "warning" || e.Process.Warning.Severity != "high" {
		t.Fatalf("%+v %+v", e, e.Process.Warning)
	}
	e, err = ParseBlock("block", []byte("label: Release files\nchecklist:\n  - package.json: the version\n  - CHANGELOG.md\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.Process.Checklist.Items, []string{"package.json: the version", "CHANGELOG.md"}) || e.Kind != "checklist" {
		t.Fatalf("a bare list is a checklist's items, and 'file: note' an item: %+v", e.Process.Checklist)
	}
}

func TestParseProcessErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown content key", "label: s\nchecklist:\n  title: t\n  steps: [a]\n", `block:4: unknown key "checklist.steps" (allowed: title, items, format)`},
		{"bad severity", "label: s\nwarning:\n  risk: r\n  severity: dire\n", `block:4: warning.severity "dire" is not one of low, medium, high, critical`},
		{"content not keys", "label: s\npattern: do it\n", `block:2: pattern must be keys (situation, action, rationale, example), not a value`},
		{"nested text", "label: s\nrequirement:\n  constraint: [a, b]\n", `block:3: requirement.constraint must be text, not a list`},
		{"unknown top key", "label: s\nowner: me\n", `block:2: unknown key "owner"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBlock("block", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}
