package extract

import (
	"reflect"
	"strings"
	"testing"
)

// seedBlock is a triads block as the design's own test case writes it, word for
// word, as an agent writes it at the end of a reply.
const seedBlock = `I should have remembered to update marketplace.json. Let me document this:

[PROCESS_KNOWLEDGE]
type: checklist
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
[/PROCESS_KNOWLEDGE]`

func TestParseKnowledgeBlocksTriadsSeed(t *testing.T) {
	blocks, errs := ParseKnowledgeBlocks(seedBlock, Options{})
	if len(errs) > 0 || len(blocks) != 1 {
		t.Fatalf("blocks %v, errors %v", blocks, errs)
	}
	got := blocks[0].Entry
	if got["label"] != "Version Bump File Checklist" || got["type"] != "checklist" {
		t.Fatalf("the block is kept as written: %v", got)
	}
	cl := got["checklist"].(map[string]any)
	if !reflect.DeepEqual(cl["items"], []any{"pyproject.toml (version field)", "plugin.json (version field)", "marketplace.json (current_version)", "CHANGELOG.md (new version section)"}) {
		t.Fatalf("items: %v", cl["items"])
	}
}

// Values the triads line reader takes whole ("key: value", split at the
// first colon) are read the same way when YAML would refuse them.
func TestParseKnowledgeBlocksLooseValues(t *testing.T) {
	text := "[PROCESS_KNOWLEDGE]\n" +
		"type: pattern\n" +
		"label: Format before committing: the hook refuses otherwise\n" +
		"pattern:\n" +
		"  situation: Before git commit # in this repository\n" +
		"  action: `make fmt` first, then commit\n" +
		"  rationale: the pre-commit hook says: files not formatted\n" +
		"[/PROCESS_KNOWLEDGE]"
	blocks, errs := ParseKnowledgeBlocks(text, Options{})
	if len(errs) > 0 || len(blocks) != 1 {
		t.Fatalf("blocks %v, errors %v", blocks, errs)
	}
	e := blocks[0].Entry
	p := e["pattern"].(map[string]any)
	if e["label"] != "Format before committing: the hook refuses otherwise" ||
		p["situation"] != "Before git commit # in this repository" ||
		p["action"] != "`make fmt` first, then commit" ||
		p["rationale"] != "the pre-commit hook says: files not formatted" {
		t.Fatalf("%v", e)
	}
	// What is not YAML either way is still reported, with its line.
	_, errs = ParseKnowledgeBlocks("x\n[PROCESS_KNOWLEDGE]\nlabel: [unclosed\n[/PROCESS_KNOWLEDGE]", Options{})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "line 2") {
		t.Fatalf("errors: %v", errs)
	}
}

// Every value of a triads block is redacted, nested ones included.
func TestParseKnowledgeBlocksTriadsRedacted(t *testing.T) {
	secret := "ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y"
	text := "[PROCESS_KNOWLEDGE]\ntype: checklist\nlabel: Tokens\nchecklist:\n  title: never " + secret + "\n  items:\n    - rotate " + secret + "\n[/PROCESS_KNOWLEDGE]"
	blocks, _ := ParseKnowledgeBlocks(text, Options{Redact: func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }})
	if len(blocks) != 1 {
		t.Fatal("no block")
	}
	if strings.Contains(blocks[0].Raw, secret) {
		t.Fatal("raw not redacted")
	}
	cl := blocks[0].Entry["checklist"].(map[string]any)
	if cl["title"] != "never [REDACTED]" || cl["items"].([]any)[0] != "rotate [REDACTED]" {
		t.Fatalf("%v", cl)
	}
}
