package knowledge

import (
	"math"
	"testing"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/words"
)

var repopathFold = repopath.Fold

func entryItem(t *testing.T, src string) *Item {
	t.Helper()
	e, err := ParseEntry("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return FromEntry(e, ScopeProject, ".memory/knowledge/entries/x.md")
}

const versionBump = `---
summary: Bumping a version means four files, not one
kind: checklist
priority: CRITICAL
triggers:
  tools: [Write, Edit]
  files: ["**/plugin.json"]
  actions: [version bump, release]
---
- [ ] plugin.json
`

// The scoring examples of the design this follows, as the issue states
// them.
func TestDesignScoringExamples(t *testing.T) {
	prompts := words.NewHaystack("do the version bump to 0.8.0 and release it")
	bump := entryItem(t, versionBump)
	low := entryItem(t, `---
summary: A low-priority hint
priority: LOW
triggers:
  tools: [Write]
  files: ["**/plugin.json"]
  actions: [release]
  context: [deploy]
---
`)
	opts := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
	for _, tc := range []struct {
		name      string
		item      *Item
		call      Call
		base      float64
		score     float64
		always    bool
		injected  bool
		component [6]float64 // tool, file, command, action, context, file miss
	}{
		{
			name: "Write to plugin.json, both actions in the prompts",
			item: bump,
			call: Call{Tool: "Write", Paths: []string{".claude-plugin/plugin.json"}, FileScoped: true, Words: prompts},
			base: 0.95, score: 1.9, always: true, injected: true,
			component: [6]float64{0.4, 0.4, 0, 0.1, 0.05, 0},
		},
		{
			name: "the same entry, Write to README.md: its file trigger misses, which takes 0.4 off",
			item: bump,
			call: Call{Tool: "Write", Paths: []string{"README.md"}, FileScoped: true, Words: prompts},
			base: 0.15, score: 0.3,
			component: [6]float64{0.4, 0, 0, 0.1, 0.05, 0.4},
		},
		{
			name: "LOW entry with base 0.9: 0.45, not injected",
			item: low,
			call: Call{Tool: "Write", Paths: []string{"plugin.json"}, FileScoped: true, Words: prompts},
			base: 0.9, score: 0.45,
			component: [6]float64{0.4, 0.4, 0, 0.1, 0, 0},
		},
		{
			name: "Bash git commit: no file in the call, tool misses, actions match",
			item: bump,
			call: Call{Tool: "Bash", Words: words.NewHaystack("git commit -m 'release 0.8.0'")},
			base: 0.15, score: 0.3,
			component: [6]float64{0, 0, 0, 0.1, 0.05, 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Explain(tc.item, &tc.call, DefaultWeights)
			got := Rank([]*Item{tc.item}, &tc.call, opts)
			if (len(got) == 1) != tc.injected {
				t.Fatalf("ranked %d items, want injected=%v (%+v)", len(got), tc.injected, b)
			}
			if !near(b.Base, tc.base) || !near(b.Score, tc.score) || b.Always != tc.always {
				t.Fatalf("base %v score %v always %v, want %v %v %v (%v)", b.Base, b.Score, b.Always, tc.base, tc.score, tc.always, b.Why)
			}
			for i, got := range []float64{b.Tool, b.File, b.Command, b.Action, b.Context, b.Miss} {
				if !near(got, tc.component[i]) {
					t.Fatalf("component %d = %v, want %v (%v)", i, got, tc.component[i], b.Why)
				}
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCriticalToolAndFileMatchIsAlwaysServed(t *testing.T) {
	// A CRITICAL entry with keywords nobody said still scores (0.4+0.4)×2,
	// but with a threshold above any score it is served anyway.
	bump := entryItem(t, versionBump)
	call := &Call{Tool: "Edit", Paths: []string{"plugin.json"}, FileScoped: true, Words: words.NewHaystack("fix a typo")}
	got := Rank([]*Item{bump}, call, Options{Weights: DefaultWeights, Threshold: 9})
	if len(got) != 1 || !got[0].Always {
		t.Fatalf("CRITICAL tool+file match not served: %+v", got)
	}
}

func TestScoreThresholdIsInclusive(t *testing.T) {
	// 0.2 + 0.4 + 0.05 + 0.05 in floating point is 0.7000000000000001 or
	// 0.6999999999999998 depending on order; a MEDIUM pitfall-like entry
	// with a matching file must pass a 0.7 threshold.
	it := entryItem(t, "---\nsummary: s\ntriggers:\n  files: [\"a/**\"]\n---\n")
	call := &Call{Tool: "Write", Paths: []string{"a/b.go"}, FileScoped: true, Words: words.NewHaystack()}
	if got := Rank([]*Item{it}, call, Options{Weights: DefaultWeights, Threshold: 0.7}); len(got) != 1 {
		t.Fatalf("score %v did not pass 0.7", Score(it, call, DefaultWeights).Score)
	}
}

func TestKeywordsMatchWholeWordsAndPhrases(t *testing.T) {
	h := words.NewHaystack("Please run the LATEST tests before releasing; then bump the Version.", "second prompt")
	for _, tc := range []struct {
		kw   string
		want bool
	}{
		{"test", true},   // plural of a whole word
		{"latest", true}, // case folded
		{"late", false},  // not a prefix match
		{"bump the version", true},
		{"version bump", false}, // order matters
		{"releasing", true},
		{"prompt second", false}, // not across texts
		{"then bump", true},
		{"tests before", true},
	} {
		if got := h.Has(words.Phrase(tc.kw)); got != tc.want {
			t.Errorf("%q: got %v, want %v", tc.kw, got, tc.want)
		}
	}
	if words.NewHaystack("version", "bump").Has(words.Phrase("version bump")) {
		t.Error("a phrase matched across two texts")
	}
}

func TestGlobs(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"**/plugin.json", "plugin.json", true},
		{"**/plugin.json", ".claude-plugin/plugin.json", true},
		{"**/plugin.json", "plugin.json.bak", false},
		{"**/*version*", "pkg/version.go", true},
		{"src/**/*.go", "src/a/b/c.go", true},
		{"src/**/*.go", "lib/src/a.go", false},
		{"*.md", "docs/a.md", false},
		{"**/*.{yml,yaml}", "ci/x.yaml", true},
		{"[abc].txt", "b.txt", true},
		{"scripts/hooks/**", "scripts/hooks/pre.sh", true},
		// Case and slashes do not matter: Windows and macOS ignore case.
		{"**/CartButton.tsx", "web/src/cartbutton.tsx", true},
		{`web\src\**`, "web/src/a.ts", true},
		// An absolute path of another clone or machine matches its tails.
		{"/home/alice/shop/internal/orders/checkout.go", "internal/orders/checkout.go", true},
		{"/home/alice/shop/internal/orders/checkout.go", "orders/checkout.go", true},
		{"/home/alice/shop/internal/orders/checkout.go", "internal/orders/cart.go", false},
		{"/home/alice/shop/internal/orders/checkout.go", "checkout.go.bak", false},
		{`C:\Users\bob\shop\web\src\CartButton.tsx`, "web/src/cartbutton.tsx", true},
		{"/home/alice/shop/internal/**/*.go", "internal/orders/x.go", true},
		{"/home/alice/shop/internal/**/*.go", "cmd/x.go", false},
	} {
		if got := compileGlob(tc.pattern).Match(repopathFold(tc.path)); got != tc.want {
			t.Errorf("%s ~ %s: got %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestAreaGlobs(t *testing.T) {
	for _, tc := range []struct {
		area string
		want []string
	}{
		{"scripts/hooks/", []string{"**/scripts/hooks/**"}},
		{"`internal/observe/fold.go`, internal/jsonl", []string{"**/internal/observe/fold.go", "**/internal/observe/fold.go/**", "**/internal/jsonl", "**/internal/jsonl/**"}},
		{"error handling, e.g. retries", nil},
		{"config.yaml and **/*.sql", []string{"**/config.yaml", "**/config.yaml/**", "**/*.sql"}},
		{"./Makefile", nil},
		// A file known by its name: not a program that never runs.
		{".env", []string{"**/.env", "**/.env/**"}},
		{".gitignore:", []string{"**/.gitignore", "**/.gitignore/**"}},
		{"check the license terms", nil},
		{"v1.2 release", nil},
		// A slash between words of prose names no file: as "/**" it
		// matched every path, and served its lesson on every call.
		{"/", nil},
		{"fin du lot précédent / démarrage du suivant", nil},
		{"** or */*", nil},
		{`web\src\App.tsx`, []string{"**/web/src/App.tsx", "**/web/src/App.tsx/**"}},
		{"/home/alice/shop/internal/orders/checkout.go", []string{"/home/alice/shop/internal/orders/checkout.go"}},
		{`C:\Users\bob\shop\web\`, []string{"c:/Users/bob/shop/web/**"}},
		// A route group is a segment of the path; parentheses around a
		// path are not.
		{"src/app/(dashboard)/items/page.tsx", []string{"**/src/app/(dashboard)/items/page.tsx", "**/src/app/(dashboard)/items/page.tsx/**"}},
		{"(internal/jsonl)", []string{"**/internal/jsonl", "**/internal/jsonl/**"}},
		{"f(a/b)", nil},
	} {
		got := AreaGlobs(tc.area)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.area, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: got %q, want %q", tc.area, got, tc.want)
			}
		}
	}
}

// The tool alone is no evidence for an item that sets more triggers, and
// keywords of both kinds must agree when both are set.
func TestEvidenceBeyondTheTool(t *testing.T) {
	freeze := entryItem(t, "---\nsummary: No production deploys on Fridays\npriority: CRITICAL\ntriggers:\n  tools: [Bash]\n  actions: [deploy]\n  context: [production]\n---\n")
	toolOnly := entryItem(t, "---\nsummary: Every Bash call\npriority: HIGH\ntriggers:\n  tools: [Bash]\n---\n")
	o := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
	for _, tc := range []struct {
		prompt string
		item   *Item
		served bool
	}{
		{"what changed?", freeze, false},       // (0.4+0.2+0+0)×2 = 1.2, tool alone
		{"deploy to staging", freeze, false},   // action found, context not
		{"deploy to production", freeze, true}, // both
		{"production is down, look at logs", freeze, false},
		{"anything", toolOnly, true}, // the author asked for every Bash call
	} {
		call := &Call{Tool: "Bash", Words: words.NewHaystack(tc.prompt, "kubectl apply -f k8s/app.yaml")}
		if got := len(Rank([]*Item{tc.item}, call, o)) == 1; got != tc.served {
			t.Errorf("%s / %q: served %v, want %v (%v)", tc.item.ID, tc.prompt, got, tc.served, Explain(tc.item, call, DefaultWeights).Why)
		}
	}
}

// A pitfall rendered from a failure whose program refused a flag keeps
// the flag its draft had: it is served where a call passes it again.
func TestRenderedPitfallKeepsTheRefusedFlag(t *testing.T) {
	pf := fromSection(kindPitfalls, sectionOf(t, "## PF-001: `grep` fails with \"grep: invalid option -- P\": use `-oE`\n\n- **Area**: grep\n- **Issue**: `grep -oP '\\w+' x` fails with \"grep: invalid option -- P\"\n- **Status**: Active\n- **Source**: self-learning:obs_002f1fb0f166\n"), "p.md")
	if len(pf.Match.Commands) != 1 || pf.Match.Commands[0].String() != "grep -P" {
		t.Fatalf("commands %v, want grep -P", pf.Match.Commands)
	}
	if got := RefusedFlag("`sudo rm -rf x` fails with \"sudo: a terminal is required; either use the -S option\""); got != "" {
		t.Errorf("a flag the message only mentions was read as refused: %q", got)
	}
}
