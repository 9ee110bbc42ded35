package mcp

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// Four sessions, each its own server on the same project, save the same
// keys at once, each with its own content. Every save reported as a
// success must be what the file holds afterwards; the others must have
// been told no: none may be silently overwritten.
func TestConcurrentSavesLoseNothing(t *testing.T) {
	const sessions, keys = 4, 8
	o, p := setup(t, RoleWorkshop, nil)
	type result struct {
		ok  bool
		msg string
	}
	results := make([][]result, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		s := connect(t, o)
		results[i] = make([]result, keys)
		wg.Go(func() {
			for k := range keys {
				msg, isErr, _ := s.call(ToolSaveKnowledge, map[string]any{
					"key": fmt.Sprintf("shared-%d", k), "summary": fmt.Sprintf("rule %d as session %d saw it", k, i),
					"content": fmt.Sprintf("session %d's content for key %d", i, k), "category": "convention",
				})
				results[i][k] = result{!isErr, msg}
			}
		})
	}
	wg.Wait()
	succeeded, refused, lost := 0, 0, 0
	for k := range keys {
		name := fmt.Sprintf("shared-%d.md", k)
		e, err := knowledge.ReadEntry(p.Path(".memory/knowledge/entries/"+name), name)
		if err != nil {
			t.Fatal(err)
		}
		winners := 0
		for i := range sessions {
			r := results[i][k]
			if !r.ok {
				refused++
				if !strings.Contains(r.msg, "exists already") {
					t.Errorf("session %d, key %d: refused without saying why: %s", i, k, r.msg)
				}
				continue
			}
			succeeded++
			winners++
			if strings.TrimSpace(e.Body) != fmt.Sprintf("session %d's content for key %d", i, k) {
				lost++
			}
		}
		if winners != 1 {
			t.Errorf("key %d: %d saves reported success, want exactly 1", k, winners)
		}
	}
	t.Logf("%d saves reported success, %d refused, %d successes overwritten", succeeded, refused, lost)
	if lost > 0 {
		t.Errorf("%d saves reported success and were overwritten by another session", lost)
	}
}

// Two sessions update one entry at once, one its summary, the other its
// tags: both changes land, neither is undone by the other's write of the
// entry as it read it.
func TestConcurrentUpdatesKeepEachOthersFields(t *testing.T) {
	o, p := setup(t, RoleWorkshop, nil)
	a, b := connect(t, o), connect(t, o)
	if msg, isErr, _ := a.call(ToolSaveKnowledge, map[string]any{"key": "shared", "summary": "first", "content": "x", "category": "convention"}); isErr {
		t.Fatal(msg)
	}
	const rounds = 20
	var wg sync.WaitGroup
	wg.Go(func() {
		for r := range rounds {
			if msg, isErr, _ := a.call(ToolUpdateKnowledge, map[string]any{"id": "shared", "summary": fmt.Sprintf("summary %d", r)}); isErr {
				t.Error(msg)
			}
		}
	})
	wg.Go(func() {
		for r := range rounds {
			if msg, isErr, _ := b.call(ToolUpdateKnowledge, map[string]any{"id": "shared", "tags": []string{fmt.Sprintf("tag-%d", r)}}); isErr {
				t.Error(msg)
			}
		}
	})
	wg.Wait()
	e, err := knowledge.ReadEntry(p.Path(".memory/knowledge/entries/shared.md"), "shared.md")
	if err != nil {
		t.Fatal(err)
	}
	if e.Summary != fmt.Sprintf("summary %d", rounds-1) || strings.Join(e.Tags, ",") != fmt.Sprintf("tag-%d", rounds-1) {
		t.Fatalf("an update was lost: summary %q, tags %v", e.Summary, e.Tags)
	}
}
