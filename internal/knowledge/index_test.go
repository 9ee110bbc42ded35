package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/project"
)

func sectionItems(t *testing.T, kind knowfile.Kind, text string) []*Item {
	t.Helper()
	var out []*Item
	for _, s := range knowfile.Parse(kind, []byte(text)).Sections {
		out = append(out, fromSection(kind, s, "f.md"))
	}
	return out
}

// devflow defect 4: machine-made ADRs showed "[unknown]" because
// "Accepted" was not a known status. Every known status shows as itself.
func TestIndexShowsEveryKnownStatus(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Architectural Decisions\n")
	for i, st := range knowfile.KnownStatuses {
		fmt.Fprintf(&b, "\n## ADR-%03d: Decision %s\n\n- **Status**: %s\n- **Source**: self-learning:obs_00000000000%d\n", i+1, st, st, i)
	}
	set := &Set{Items: sectionItems(t, knowfile.Decisions, b.String())}
	ix := BuildIndex(set, IndexOptions{All: true})
	for i, st := range knowfile.KnownStatuses {
		want := fmt.Sprintf("- [ADR-%03d] Decision %s  [%s]\n", i+1, st, st)
		if !strings.Contains(ix.Text, want) {
			t.Errorf("index lacks %q:\n%s", want, ix.Text)
		}
	}
	if strings.Contains(ix.Text, "unknown") {
		t.Fatalf("index says unknown:\n%s", ix.Text)
	}
	// Without --all, what is no longer in force is counted, not listed.
	ix = BuildIndex(set, IndexOptions{})
	if strings.Contains(ix.Text, "Deprecated") || strings.Contains(ix.Text, "Superseded") || ix.Inactive != 2 {
		t.Fatalf("inactive listed or miscounted (%d):\n%s", ix.Inactive, ix.Text)
	}
	if !strings.Contains(ix.Text, "+2 not in force: `devlearn knowledge index --all`.") {
		t.Fatalf("no note of the hidden ones:\n%s", ix.Text)
	}
}

func TestIndexLines(t *testing.T) {
	pf := sectionItems(t, knowfile.Pitfalls, "# Known Pitfalls\n\n## PF-001: "+strings.Repeat("Very long title ", 20)+"\n\n- **Area**: scripts/hooks/\n- **Status**: Active\n")
	e := FromEntry(&Entry{Key: "version-bump-checklist", Summary: "Bumping a version means four files", Kind: "checklist", Priority: "CRITICAL", Status: "active", Body: strings.Repeat("x", 400)}, ScopeProject, "e.md")
	g := FromEntry(&Entry{Key: "go-style", Summary: "Go style", Kind: "note", Priority: "LOW", Status: "active"}, ScopeGlobal, "/h/go-style.md")
	ix := BuildIndex(&Set{Items: append(pf, g, e)}, IndexOptions{BudgetTokens: 1500})
	// ClawFlow's layout, to the line (docs/serve.md).
	want := "## Domain Knowledge Index\n" +
		"Project-specific: 2 entries | Global: 1 entry\n" +
		"\n" +
		"### Project Knowledge\n" +
		"- [version-bump-checklist] Bumping a version means four files\n" +
		"- [PF-001] " + strings.Repeat("Very long title ", 14) + "Very long title…  [Active]  —  scripts/hooks/\n" +
		"\n" +
		"### Global Knowledge\n" +
		"- [go-style] Go style\n" +
		"\n" +
		"Use fetch_knowledge(key_or_id) to read full details on any entry (or `devlearn knowledge show ID`).\n"
	if ix.Text != want {
		t.Fatalf("got\n%s\nwant\n%s", ix.Text, want)
	}
	// The width is chosen from the lines' lengths worked out, not
	// written: they are the lengths written.
	for _, it := range append(pf, g, e) {
		l := newIndexLine(it, false, wideLine)
		if got, want := frameRunes(it, false)+min(foldedRunes(it.Title), wideLine), len([]rune(l.text())); got != want {
			t.Errorf("%s: %d runes worked out, %d written", it.ID, got, want)
		}
	}
	if n := foldedRunes("  two\n words\t here "); n != len("two words here") {
		t.Errorf("foldedRunes: %d", n)
	}
	// Everything fits: the long title runs to wideLine.
	if title := ix.Lines[1].Title; len([]rune(title)) != wideLine {
		t.Fatalf("title cut to %d characters: %q", len([]rune(title)), title)
	}
	// When only short lines let every item fit, the lines are short.
	items := append([]*Item{}, pf...)
	for i := 0; i < 40; i++ {
		items = append(items, FromEntry(&Entry{Key: fmt.Sprintf("rule-%02d", i), Summary: strings.Repeat("A rule with a long summary ", 8), Kind: "note", Priority: "MEDIUM", Status: "active"}, ScopeProject, "r.md"))
	}
	tight := BuildIndex(&Set{Items: items}, IndexOptions{BudgetTokens: 1500})
	if tight.LeftOut != 0 {
		t.Fatalf("%d left out at the short width", tight.LeftOut)
	}
	for _, l := range tight.Lines {
		if n := len([]rune(l.Title)); n > lineWidth {
			t.Fatalf("%s cut to %d characters, though only %d lets every item fit", l.ID, n, lineWidth)
		}
	}
	if ix.Tokens != Tokens(ix.Text) {
		t.Fatal(ix.Tokens)
	}
}

func TestIndexKeepsToItsBudget(t *testing.T) {
	root := t.TempDir()
	genEntries(t, root, 1000)
	set := ReadAll(Sources{Root: root})
	for _, budget := range []int{100, 500, 1500} {
		ix := BuildIndex(set, IndexOptions{BudgetTokens: budget})
		if ix.Tokens > budget || Tokens(ix.Text) > budget {
			t.Fatalf("budget %d: index of %d tokens (%d measured)", budget, ix.Tokens, Tokens(ix.Text))
		}
		if ix.LeftOut == 0 || len(ix.Lines)+ix.LeftOut != 1000 {
			t.Fatalf("budget %d: %d lines, %d left out", budget, len(ix.Lines), ix.LeftOut)
		}
		want := fmt.Sprintf("+%d more over the %d-token budget: `devlearn knowledge index --budget 0`.", ix.LeftOut, budget)
		if !strings.Contains(ix.Text, want) {
			t.Fatalf("no note of what was left out:\n%s", ix.Text)
		}
		// Most important first: the CRITICAL ones lead.
		if ix.Items[0].Priority != "CRITICAL" {
			t.Fatalf("first line %+v", ix.Lines[0])
		}
	}
	if ix := BuildIndex(set, IndexOptions{}); ix.LeftOut != 0 || len(ix.Lines) != 1000 {
		t.Fatalf("no budget: %d lines", len(ix.Lines))
	}
}

func TestIndexOfNothing(t *testing.T) {
	ix := BuildIndex(&Set{}, IndexOptions{BudgetTokens: 1500})
	if ix.Text != "## Domain Knowledge Index\nProject-specific: 0 entries | Global: 0 entries\n\nNothing recorded yet.\n\n"+fetchLine+"\n" {
		t.Fatalf("%q", ix.Text)
	}
}

func TestReadAllMatchesLoad(t *testing.T) {
	root := t.TempDir()
	genEntries(t, root, 50)
	os.WriteFile(filepath.Join(root, ".memory/knowledge/decisions.md"), []byte("## ADR-001: x\n\n- **Status**: Accepted\n"), 0o644)
	a := ReadAll(Sources{Root: root})
	b, err := Load(Sources{Root: root}, filepath.Join(root, "c.bin"), Full)
	if err != nil || BuildIndex(a, IndexOptions{}).Text != BuildIndex(b, IndexOptions{}).Text {
		t.Fatalf("ReadAll and Load differ (%v)", err)
	}
}

// Of learned drafts alike in all else, the one seen last is listed first:
// when the index cannot hold them all, the work going on keeps its lessons.
func TestLearnedDraftsSeenLastFirst(t *testing.T) {
	draft := func(key, updated string) *Item {
		return FromEntry(&Entry{Key: key, Summary: "Lesson " + key, Kind: "note", Priority: "MEDIUM", Status: StatusDraft, UpdatedAt: updated}, ScopeProject, project.ObservedDir+"/"+key+".md")
	}
	got := Ordered([]*Item{draft("obs-aaaaaaaaaaaa", "2026-01-02T09:00:00Z"), draft("obs-bbbbbbbbbbbb", "2026-03-01T09:00:00Z"), draft("obs-cccccccccccc", "2026-02-01T09:00:00Z")})
	var ids []string
	for _, it := range got {
		ids = append(ids, it.ID)
	}
	if want := "obs-bbbbbbbbbbbb obs-cccccccccccc obs-aaaaaaaaaaaa"; strings.Join(ids, " ") != want {
		t.Errorf("order %v, want %s", ids, want)
	}
}
