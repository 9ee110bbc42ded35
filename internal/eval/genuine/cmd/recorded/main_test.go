package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func prompt(existing, candidates string) []byte {
	return []byte("You review turns...\n\nThe candidates, as JSON (\"why\" is what flagged each):\n" +
		`{"existing_observations":` + existing + `,"candidates":` + candidates + "}\n")
}

func TestRecordedKeepsThenAnswers(t *testing.T) {
	dir := t.TempDir()
	cands := `[{"why":["correction"],"person":"use uv, not pip"}]`
	long := prompt(`[{"id":"obs_abcdef","type":"decision","pattern":"an earlier lesson"}]`, cands)
	short := prompt(`[]`, cands)

	var out bytes.Buffer
	if err := answer(filepath.Join(dir, "answers"), filepath.Join(dir, "prompts"), long, false, &out); err != nil || out.String() != empty {
		t.Fatalf("unanswered prompt: %q, %v", out.String(), err)
	}
	out.Reset()
	if err := answer(filepath.Join(dir, "answers"), filepath.Join(dir, "prompts"), short, false, &out); err != nil {
		t.Fatal(err)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "prompts", "*.txt"))
	if len(kept) != 1 {
		t.Fatalf("one key, one prompt kept; got %v", kept)
	}
	if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, short) {
		t.Fatalf("the shorter prompt of a key is kept, got %q", b)
	}
	if err := answer(filepath.Join(dir, "answers"), filepath.Join(dir, "prompts"), long, false, &out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, short) {
		t.Fatal("a longer prompt replaced the shorter one")
	}

	key := strings.TrimSuffix(filepath.Base(kept[0]), ".txt")
	want := `{"observations":[{"type":"decision","pattern":"Use uv, not pip.","details":"","evidence":[],"quality_ok":true}]}`
	os.MkdirAll(filepath.Join(dir, "answers"), 0o755)
	os.WriteFile(filepath.Join(dir, "answers", key+".json"), []byte(want), 0o644)
	for _, p := range [][]byte{long, short} {
		out.Reset()
		if err := answer(filepath.Join(dir, "answers"), filepath.Join(dir, "prompts"), p, false, &out); err != nil || out.String() != want {
			t.Fatalf("answered prompt: %q, %v", out.String(), err)
		}
	}

	out.Reset()
	other := prompt(`[]`, `[{"why":["failure"],"failed":"make"}]`)
	if err := answer(filepath.Join(dir, "answers"), filepath.Join(dir, "prompts"), other, false, &out); err != nil || out.String() != empty {
		t.Fatalf("other candidates share no answer: %q, %v", out.String(), err)
	}
}

func TestRecordedRefusesAPromptWithoutCandidates(t *testing.T) {
	if err := answer(t.TempDir(), "", []byte("no document here"), false, &bytes.Buffer{}); err == nil {
		t.Fatal("a prompt without its candidates document was answered")
	}
}

func TestRecordedWithoutPromptsFolderWritesNothing(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := answer(filepath.Join(dir, "answers"), "", prompt(`[]`, `[{"why":["failure"]}]`), false, &out); err != nil || out.String() != empty {
		t.Fatalf("%q, %v", out.String(), err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("wrote %v", left)
	}
}

// With -seen, a prompt showing existing observations waits for an answer
// of its own, and is answered as the session read alone until then.
func TestRecordedSeenAnswersForWhatWasShown(t *testing.T) {
	dir := t.TempDir()
	answers, prompts := filepath.Join(dir, "answers"), filepath.Join(dir, "prompts")
	cands := `[{"why":["said"],"person":"commit messages in English"}]`
	alone := prompt(`[]`, cands)
	after := prompt(`[{"id":"obs_abcdef","type":"procedural","pattern":"Write commit messages in English."}]`, cands)
	aloneAnswer := `{"observations":[{"type":"procedural","pattern":"Commit messages in English.","details":"","evidence":[],"quality_ok":true}]}`
	seenAnswer := `{"observations":[{"id":"obs_abcdef","type":"procedural","pattern":"Write commit messages in English.","details":"","evidence":[],"quality_ok":true}]}`
	key, _, _ := keysOf(alone)
	os.MkdirAll(answers, 0o755)
	os.WriteFile(filepath.Join(answers, key+".json"), []byte(aloneAnswer), 0o644)

	var out bytes.Buffer
	if err := answer(answers, prompts, after, true, &out); err != nil || out.String() != aloneAnswer {
		t.Fatalf("before its own answer: %q, %v", out.String(), err)
	}
	kept, _ := filepath.Glob(filepath.Join(prompts, "*.txt"))
	if len(kept) != 1 {
		t.Fatalf("kept %v", kept)
	}
	if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, after) {
		t.Fatal("the prompt kept is not the one showing the existing observations")
	}
	seenKey := strings.TrimSuffix(filepath.Base(kept[0]), ".txt")
	if seenKey == key {
		t.Fatal("the existing observations shown do not change the key")
	}
	os.WriteFile(filepath.Join(answers, seenKey+".json"), []byte(seenAnswer), 0o644)
	for _, c := range []struct {
		p    []byte
		seen bool
		want string
	}{{after, true, seenAnswer}, {alone, true, aloneAnswer}, {after, false, aloneAnswer}} {
		out.Reset()
		if err := answer(answers, prompts, c.p, c.seen, &out); err != nil || out.String() != c.want {
			t.Errorf("seen %v: %q, %v", c.seen, out.String(), err)
		}
	}
}
