package keep

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// entriesIn is a project whose entries are files, as key: front matter.
func entriesIn(t *testing.T, entries map[string]string) knowledge.Sources {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, ".memory", "knowledge", "entries")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for key, front := range entries {
		if err := os.WriteFile(filepath.Join(dir, key+".md"), []byte("---\n"+front+"\n---\nWhy.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return knowledge.Sources{Root: root}
}

func aboutKeys(s *Entries, text string) []string {
	var out []string
	for _, e := range s.About(text) {
		out = append(out, e.Key)
	}
	slices.Sort(out)
	return out
}

// The entries are read once however many lessons are compared with them;
// each lesson finds those it is about, read from their files, and those
// added since they were read. InForce leaves archived entries out.
func TestEntriesAbout(t *testing.T) {
	src := entriesIn(t, map[string]string{
		"pnpm":     "summary: Use pnpm to install packages, not npm\npriority: HIGH",
		"push":     "summary: Never run git push yourself\npriority: HIGH",
		"archived": "summary: Use yarn to install packages\npriority: LOW\nstatus: archived",
	})
	for _, inForce := range []bool{false, true} {
		loads := 0
		s := &Entries{Src: src, InForce: inForce, Load: func() *knowledge.Set {
			loads++
			return knowledge.ReadAll(src)
		}}
		wantInstall := []string{"archived", "pnpm"}
		if inForce {
			wantInstall = []string{"pnpm"}
		}
		if got := aboutKeys(s, "no, install packages with pnpm or yarn, never with npm"); !slices.Equal(got, wantInstall) {
			t.Errorf("inForce %v: about installing: %v, want %v", inForce, got, wantInstall)
		}
		if got := aboutKeys(s, "do not run git push yourself"); !slices.Equal(got, []string{"push"}) {
			t.Errorf("inForce %v: about pushing: %v", inForce, got)
		}
		if got := aboutKeys(s, "rename the flag"); len(got) != 0 {
			t.Errorf("inForce %v: about nothing: %v", inForce, got)
		}
		// Added since: found as added; one that was read is found once,
		// as its file says.
		s.Add(&knowledge.Entry{Key: "tabs", Summary: "Indent Go files with tabs"})
		s.Add(&knowledge.Entry{Key: "push", Summary: "Never run git push yourself", Priority: "LOW"})
		if got := aboutKeys(s, "indent the Go files with tabs, not spaces"); !slices.Equal(got, []string{"tabs"}) {
			t.Errorf("inForce %v: an entry added: %v", inForce, got)
		}
		if got := s.About("never run git push yourself"); len(got) != 1 || got[0].Priority != "HIGH" {
			t.Errorf("inForce %v: an entry added that was read: %+v", inForce, got)
		}
		if loads != 1 {
			t.Errorf("inForce %v: read %d times, want once", inForce, loads)
		}
	}
	var none *Entries
	if got := none.About("never run git push yourself"); got != nil {
		t.Errorf("no entries: %v", got)
	}
}
