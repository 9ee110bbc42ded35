package evolve

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A batch leaves its marker renamed to the done marker, with no sync
// after its commit point; the next batch's sync makes it durable, and
// only then is it forgotten.
func TestFinishedBatchIsForgottenAfterTheNextSync(t *testing.T) {
	p := newProject(t)
	w := New(p, now, Trigger{Command: "test"})
	ctx := context.Background()
	if _, err := w.Apply(ctx, Reason{Text: "one"}, Change{Path: "a.md", Data: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	first := marker(t, w.donePath())
	if _, err := os.Stat(w.pendingPath()); !os.IsNotExist(err) {
		t.Fatal("the marker in flight is still there after the batch")
	}
	// A batch that changes nothing syncs nothing: the done marker stays.
	if e, err := w.Apply(ctx, Reason{Text: "none"}, Change{Path: "a.md", Data: []byte("a\n")}); err != nil || e != nil {
		t.Fatal(e, err)
	}
	if marker(t, w.donePath()).Entry.ID != first.Entry.ID {
		t.Fatal("a batch that synced nothing forgot the finished one")
	}
	if _, err := w.Apply(ctx, Reason{Text: "two"}, Change{Path: "b.md", Data: []byte("b\n")}); err != nil {
		t.Fatal(err)
	}
	if second := marker(t, w.donePath()); second.Entry.ID == first.Entry.ID {
		t.Fatal("the finished batch's marker was not replaced by the next one's")
	}
	entries, _, _ := ReadLog(p)
	if len(entries) != 2 {
		t.Fatalf("%d entries", len(entries))
	}
}

// What a crash of the system between a batch's commit point and the next
// batch's sync may leave (any of the audit entry, the renames and the
// marker's rename lost; the temporary files and the marker's content were
// synced), the next writer, in the next boot, rolls forward; a batch that
// never reached its commit point, it undoes. In the same boot nothing can
// have been lost: what differs is someone else's doing (another branch
// checked out), and is left alone.
func TestUnsyncedEndOfABatchIsRolledForward(t *testing.T) {
	for _, c := range []struct {
		name                 string
		done, entry, renamed bool // what survived
		lostA                bool // a.md's rename lost (its temporary file there)
		sameBoot             bool
		forward, undone      bool
	}{
		{name: "done marker, entry lost, a rename lost", done: true, renamed: true, lostA: true, forward: true},
		{name: "done marker, entry kept, renames lost", done: true, entry: true, lostA: true, forward: true},
		{name: "marker in flight, entry lost, a file moved into place", renamed: true, lostA: true, forward: true},
		{name: "marker in flight, entry kept, renames lost", entry: true, lostA: true, forward: true},
		{name: "marker in flight, nothing after the sync", lostA: true, undone: true},
		{name: "done marker, another branch checked out since, next boot", done: true, renamed: true},
		{name: "done marker, another branch checked out since, same boot", done: true, renamed: true, sameBoot: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t)
			os.WriteFile(p.Path("a.md"), []byte("old a\n"), 0o644)
			w := New(p, now, Trigger{Command: "test"})
			ctx := context.Background()
			e, err := w.Apply(ctx, Reason{Text: "one"}, Change{Path: "a.md", Data: []byte("new a\n")}, Change{Path: "b.md", Data: []byte("new b\n")})
			if err != nil {
				t.Fatal(err)
			}
			pm := marker(t, w.donePath())
			if pm.Boot != bootID() {
				t.Fatalf("the marker names boot %q, not this one", pm.Boot)
			}
			if !c.sameBoot {
				pm.Boot = "another boot"
				os.WriteFile(w.donePath(), mustJSON(t, pm), 0o644)
			}
			logBefore, _ := os.ReadFile(p.Path(LogPath))
			// Take back what did not survive (or what another branch has).
			if !c.entry {
				os.WriteFile(p.Path(LogPath), bytes.TrimSuffix(logBefore, append(mustJSON(t, e), '\n')), 0o644)
			}
			if c.lostA {
				os.Rename(p.Path("a.md"), p.Path(pm.Temps[0]))
			}
			os.WriteFile(p.Path("a.md"), []byte("old a\n"), 0o644)
			if !c.renamed {
				os.Rename(p.Path("b.md"), p.Path(pm.Temps[1]))
			}
			if !c.done {
				os.Rename(w.donePath(), w.pendingPath())
			}
			// A reader that judges the files (reconcile) asks first, and
			// settles what a crash of the system may have left.
			if got, want := Unsettled(p), !c.sameBoot || !c.done; got != want {
				t.Fatalf("Unsettled = %v, want %v", got, want)
			}
			if err := w.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			if Unsettled(p) {
				t.Fatal("still unsettled after Settle")
			}
			if a, _ := os.ReadFile(p.Path("a.md")); (string(a) == "new a\n") != c.forward {
				t.Fatalf("after Settle a.md is %q (rolled forward: %v)", a, c.forward)
			}
			if _, err := w.Apply(ctx, Reason{Text: "two"}, Change{Path: "c.md", Data: []byte("c\n")}); err != nil {
				t.Fatal(err)
			}
			entries, _, _ := ReadLog(p)
			a, _ := os.ReadFile(p.Path("a.md"))
			_, bErr := os.Stat(p.Path("b.md"))
			switch {
			case c.forward:
				if len(entries) != 2 || entries[0].ID != e.ID || string(a) != "new a\n" || bErr != nil {
					t.Fatalf("not rolled forward: %d entries, a.md %q, b.md %v", len(entries), a, bErr)
				}
			case c.undone:
				if len(entries) != 1 || string(a) != "old a\n" || bErr == nil {
					t.Fatalf("not undone: %d entries, a.md %q, b.md %v", len(entries), a, bErr)
				}
			default:
				if len(entries) != 1 || entries[0].ID == e.ID || string(a) != "old a\n" {
					t.Fatalf("another branch's files were changed: %d entries, a.md %q", len(entries), a)
				}
			}
			for _, tmp := range pm.Temps {
				if _, err := os.Stat(p.Path(tmp)); !os.IsNotExist(err) {
					t.Fatalf("%s left behind", tmp)
				}
			}
			if _, err := os.Stat(w.pendingPath()); !os.IsNotExist(err) {
				t.Fatal("the marker in flight is still there")
			}
		})
	}
}

func marker(t *testing.T, path string) pending {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no marker at %s: %v", filepath.Base(path), err)
	}
	var p pending
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
