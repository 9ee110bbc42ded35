package entrystore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
)

func projectStore(t *testing.T) (*Store, *project.Project) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".memory"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return Project(p, evolve.New(p, time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC), evolve.Trigger{Command: "hook stop"})), p
}

// The Stop hook and the worker may both see the same block;
// between them they write one draft file, keyed by its content.
func TestSaveDraftOnce(t *testing.T) {
	st, p := projectStore(t)
	block := []byte("summary: Run go generate before go test\nkind: checklist\npriority: HIGH\ntriggers:\n  tools: [Bash]\n  actions: [go test]\nbody: |\n  - go generate ./...\n")
	fromHook, err := knowledge.ParseBlock("stop hook", block)
	if err != nil {
		t.Fatal(err)
	}
	fromHook.Source = "stop-hook"
	path, created, err := st.SaveDraft(context.Background(), fromHook, "stop hook: a [PROCESS_KNOWLEDGE] block")
	if err != nil || !created || !strings.HasPrefix(path, ".memory/knowledge/entries/run-go-generate-before-go-test-") {
		t.Fatalf("first: %s %v %v", path, created, err)
	}
	fromWorker, _ := knowledge.ParseBlock("worker", block)
	fromWorker.Source = "transcript"
	again, created, err := st.SaveDraft(context.Background(), fromWorker, "worker")
	if err != nil || created || again != path {
		t.Fatalf("second: %s %v %v", again, created, err)
	}
	e, err := knowledge.ReadEntry(p.Path(path), path)
	if err != nil || e.Status != knowledge.StatusDraft || e.Source != "stop-hook" || e.Body != "- go generate ./...\n" {
		t.Fatalf("%+v %v", e, err)
	}
	// Written through the audited writer.
	log, _ := os.ReadFile(p.Path(evolve.LogPath))
	if !strings.Contains(string(log), `"command":"hook stop"`) || strings.Count(string(log), "\n") != 1 {
		t.Fatalf("audit log:\n%s", log)
	}
}

func TestCreateNeverOverwrites(t *testing.T) {
	st, p := projectStore(t)
	e := &knowledge.Entry{Key: "k", Summary: "first"}
	if _, created, err := st.Create(context.Background(), e, "add"); err != nil || !created {
		t.Fatal(created, err)
	}
	if _, created, err := st.Create(context.Background(), &knowledge.Entry{Key: "k", Summary: "second"}, "add"); err != nil || created {
		t.Fatal(created, err)
	}
	if got, _ := knowledge.ReadEntry(p.Path(".memory/knowledge/entries/k.md"), "k.md"); got.Summary != "first" {
		t.Fatalf("overwritten: %+v", got)
	}
	if _, _, err := st.Create(context.Background(), &knowledge.Entry{Key: "../x", Summary: "s"}, "add"); err == nil {
		t.Fatal("a hostile key was written")
	}
}

func TestGlobalStoreRefusesALink(t *testing.T) {
	home := t.TempDir()
	g := Global(home)
	os.MkdirAll(g.Dir, 0o755)
	target := filepath.Join(t.TempDir(), "elsewhere.md")
	os.WriteFile(target, []byte("---\nsummary: s\n---\n"), 0o644)
	os.Symlink(target, filepath.Join(g.Dir, "k.md"))
	if _, err := g.Copy(context.Background(), &knowledge.Entry{Key: "k", Summary: "s"}, []byte("---\nsummary: s\n---\n"), "copy"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("wrote through a link: %v", err)
	}
}

// File triggers are stored relative to the root with forward slashes,
// whoever wrote them: an agent on Windows, or one naming absolute paths.
func TestCreateStoresFileTriggersRelative(t *testing.T) {
	st, p := projectStore(t)
	e := &knowledge.Entry{Key: "paths", Summary: "Paths as written", Kind: "note", Priority: "HIGH", Status: knowledge.StatusActive, Source: "manual",
		Triggers: knowledge.Triggers{Files: []string{`web\src\stores\**`, filepath.Join(p.Root, "internal", "billing", "*.go"), "**/plugin.json"}}}
	if _, _, err := st.Create(context.Background(), e, "test"); err != nil {
		t.Fatal(err)
	}
	got, _, err := st.Read("paths")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"web/src/stores/**", "internal/billing/*.go", "**/plugin.json"}; strings.Join(got.Triggers.Files, " ") != strings.Join(want, " ") {
		t.Fatalf("stored %q, want %q", got.Triggers.Files, want)
	}
}

// Creates of one key racing in the global folder: one is created, the
// others are told it exists, and the file is the one created.
func TestGlobalCreateRaceOneWins(t *testing.T) {
	home := t.TempDir()
	const n = 8
	created := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			g := Global(home)
			_, ok, err := g.Create(context.Background(), &knowledge.Entry{Key: "k", Summary: fmt.Sprintf("writer %d", i)}, "add")
			if err != nil {
				t.Error(err)
			}
			created[i] = ok
		})
	}
	wg.Wait()
	got, err := knowledge.ReadEntry(filepath.Join(knowledge.GlobalEntriesDir(home), "k.md"), "k.md")
	if err != nil {
		t.Fatal(err)
	}
	winners := 0
	for i, ok := range created {
		if ok {
			winners++
			if got.Summary != fmt.Sprintf("writer %d", i) {
				t.Errorf("writer %d was told it created k, the file holds %q", i, got.Summary)
			}
		}
	}
	if winners != 1 {
		t.Fatalf("%d writers were told they created k", winners)
	}
}

// Whoever makes an entry, the store writes its text redacted, the audit
// log's reason too, a draft's key is made of its redacted summary, and a
// key chosen to hold a card number is refused.
func TestStoreRedactsWhatItWrites(t *testing.T) {
	st, p := projectStore(t)
	ctx := context.Background()
	e := &knowledge.Entry{Key: "refunds", Summary: "Refund 4111 1111 1111 1111", Body: "to GB82 WEST 1234 5698 7654 32",
		Tags: []string{"DE89370400440532013000"}, Process: knowledge.Process{Pattern: &knowledge.PatternContent{Situation: "card 5555-5555-5555-4444"}}}
	if _, _, err := st.Create(ctx, e, "add: "+e.Summary); err != nil {
		t.Fatal(err)
	}
	draft, _, err := st.SaveDraft(ctx, &knowledge.Entry{Summary: "Pay NL91ABNA0417164300 first", Kind: "note"}, "stop hook")
	if err != nil || !strings.Contains(draft, "pay-redacted-iban-first-") {
		t.Fatalf("draft %s: %v", draft, err)
	}
	for _, f := range []string{".memory/knowledge/entries/refunds.md", draft, evolve.LogPath} {
		data, _ := os.ReadFile(p.Path(f))
		for _, secret := range []string{"4111", "GB82", "DE89", "5555", "NL91"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s keeps %s:\n%s", f, secret, data)
			}
		}
	}
	for _, key := range []string{"refund-4111-1111-1111-1111", "pay-de89-3704-0044-0532-0130-00"} {
		if _, _, err := st.Create(ctx, &knowledge.Entry{Key: key, Summary: "s"}, "add"); err == nil || !strings.Contains(err.Error(), "holds what reads as a secret") {
			t.Errorf("key %s: %v", key, err)
		}
	}
}

func TestCreateStampsAndUpdateKeepsCreation(t *testing.T) {
	st, p := projectStore(t)
	e := &knowledge.Entry{Key: "api-date-format", Summary: "API returns epoch timestamps", Body: "seconds\n"}
	rel, created, err := st.Create(context.Background(), e, "test")
	if err != nil || !created {
		t.Fatal(err)
	}
	got, _ := knowledge.ReadEntry(p.Path(rel), rel)
	if got.CreatedAt != "2026-05-10T09:00:00Z" || got.UpdatedAt != got.CreatedAt {
		t.Fatalf("%+v", got)
	}
	later := &Store{Scope: knowledge.ScopeProject, Proj: p, Writer: evolve.New(p, time.Date(2026, 5, 12, 0, 0, 0, 0, time.UTC), evolve.Trigger{Command: "test"})}
	later.Now = later.Writer.Now()
	up := &knowledge.Entry{Key: "api-date-format", Summary: "API returns epoch seconds", Body: "seconds since 1970\n", Tags: []string{"api"}}
	if _, err := later.Update(context.Background(), up, "test"); err != nil {
		t.Fatal(err)
	}
	got, _ = knowledge.ReadEntry(p.Path(rel), rel)
	if got.CreatedAt != "2026-05-10T09:00:00Z" || got.UpdatedAt != "2026-05-12T00:00:00Z" || got.Summary != "API returns epoch seconds" {
		t.Fatalf("%+v", got)
	}
	if _, err := later.Update(context.Background(), &knowledge.Entry{Key: "nope", Summary: "s"}, "test"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	// Promote stamps updated_at and keeps the rest of the file.
	if _, _, _, err := later.SetStatus(context.Background(), "api-date-format", knowledge.StatusArchived, "test"); err != nil {
		t.Fatal(err)
	}
	got, _ = knowledge.ReadEntry(p.Path(rel), rel)
	if got.Status != knowledge.StatusArchived || got.UpdatedAt != "2026-05-12T00:00:00Z" {
		t.Fatalf("%+v", got)
	}
}
