package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/manifest"
)

func TestMergeTextMarkedAndSplitMarkers(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	ours := "A\nb\nc\nours\ne\n"
	theirs := "a\nb\nc\ntheirs\ne\n"
	got, clean := MergeTextMarked([]byte(base), []byte(ours), []byte(theirs), 0)
	want := "A\nb\nc\n<<<<<<< ours\nours\n||||||| base\nd\n=======\ntheirs\n>>>>>>> theirs\ne\n"
	if clean || string(got) != want {
		t.Fatalf("marked = %v\n%s\nwant\n%s", clean, got, want)
	}
	s, err := SplitMarkers(got)
	if err != nil {
		t.Fatal(err)
	}
	// The part git merged cleanly is in all three sides.
	if string(s.Ours) != ours || string(s.Theirs) != "A\nb\nc\ntheirs\ne\n" || string(s.Base) != "A\nb\nc\nd\ne\n" || !s.BaseKnown || s.Conflicts != 1 {
		t.Fatalf("sides %+v", s)
	}

	// A last line without a newline still gets its markers on lines of
	// their own; a longer marker size is honoured and read back.
	got, _ = MergeTextMarked([]byte("x"), []byte("o"), []byte("t"), 9)
	if string(got) != "<<<<<<<<< ours\no\n||||||||| base\nx\n=========\nt\n>>>>>>>>> theirs\n" {
		t.Fatalf("no newline:\n%s", got)
	}
	if s, err := SplitMarkers(got); err != nil || string(s.Ours) != "o\n" || string(s.Theirs) != "t\n" {
		t.Fatalf("%+v %v", s, err)
	}

	clean3, ok := MergeTextMarked([]byte("a\n"), []byte("a\nb\n"), []byte("a\n"), 0)
	if !ok || string(clean3) != "a\nb\n" {
		t.Fatalf("clean merge: %q %v", clean3, ok)
	}
}

func TestSplitMarkers(t *testing.T) {
	tests := []struct {
		name, in          string
		base, ours, their string
		baseKnown         bool
		conflicts         int
		err               string
	}{
		{name: "none", in: "a\n=======\nb\n", conflicts: 0},
		{
			name: "git's default style has no base", in: "x\n<<<<<<< HEAD\no\n=======\nt\n>>>>>>> feature\ny\n",
			base: "x\ny\n", ours: "x\no\ny\n", their: "x\nt\ny\n", conflicts: 1,
		},
		{
			name: "diff3 style with CRLF", in: "<<<<<<< HEAD\r\no\r\n||||||| merged common ancestors\r\nb\r\n=======\r\nt\r\n>>>>>>> feature\r\n",
			base: "b\r\n", ours: "o\r\n", their: "t\r\n", baseKnown: true, conflicts: 1,
		},
		{
			name: "a shorter run inside is content", in: "<<<<<<< a\n====== not a marker\n=======\n>>>>>> no\n>>>>>>> b\n",
			base: "", ours: "====== not a marker\n", their: ">>>>>> no\n", conflicts: 1,
		},
		{name: "unclosed", in: "<<<<<<< a\no\n=======\n", err: "never closed"},
		{name: "nested", in: "<<<<<<< a\n<<<<<<< b\n", err: "inside"},
		{name: "no separator", in: "<<<<<<< a\no\n>>>>>>> b\n", err: "without its ======="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SplitMarkers([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Conflicts != tt.conflicts || s.BaseKnown != tt.baseKnown || string(s.Base) != tt.base || string(s.Ours) != tt.ours || string(s.Theirs) != tt.their {
				t.Fatalf("got %+v (base %q ours %q theirs %q)", s, s.Base, s.Ours, s.Theirs)
			}
			if HasMarkers([]byte(tt.in)) != (tt.conflicts > 0) {
				t.Fatal("HasMarkers disagrees")
			}
		})
	}
}

func entryJSON(es ...manifest.Entry) []byte {
	return (&manifest.Manifest{Entries: es}).Bytes()
}

func TestMergeManifest(t *testing.T) {
	d := ".memory/knowledge/decisions.md"
	e := func(id, anchor, hash, at string) manifest.Entry {
		return manifest.Entry{ObservationID: id, Type: "decision", Path: d, ContentHash: hash, RenderedAt: at, AnchorID: anchor}
	}
	a := e("obs_a", "ADR-001", "h1", "2026-05-01T00:00:00Z")
	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               []byte
		formatErr          bool
	}{
		{
			name:   "entries either side added are kept, under their recorded anchors",
			base:   entryJSON(a),
			ours:   entryJSON(a, e("obs_o", "ADR-002", "ho", "2026-05-03T00:00:00Z")),
			theirs: entryJSON(a, e("obs_t", "ADR-002", "ht", "2026-05-02T00:00:00Z")),
			want:   entryJSON(a, e("obs_o", "ADR-002", "ho", "2026-05-03T00:00:00Z"), e("obs_t", "ADR-002", "ht", "2026-05-02T00:00:00Z")),
		},
		{
			name:   "removed on one side, untouched on the other: gone",
			base:   entryJSON(a, e("obs_b", "ADR-002", "hb", "2026-05-01T00:00:00Z")),
			ours:   entryJSON(a),
			theirs: entryJSON(a, e("obs_b", "ADR-002", "hb", "2026-05-01T00:00:00Z"), e("obs_c", "ADR-003", "hc", "2026-05-02T00:00:00Z")),
			want:   entryJSON(a, e("obs_c", "ADR-003", "hc", "2026-05-02T00:00:00Z")),
		},
		{
			name:   "removed on one side, changed on the other: the change is kept",
			base:   entryJSON(a),
			ours:   entryJSON(),
			theirs: entryJSON(e("obs_a", "ADR-001", "edited", "2026-05-01T00:00:00Z")),
			want:   entryJSON(e("obs_a", "ADR-001", "edited", "2026-05-01T00:00:00Z")),
		},
		{
			name:   "changed on both sides: the later rendering wins whole",
			base:   entryJSON(a),
			ours:   entryJSON(e("obs_a", "ADR-001", "ours", "2026-05-04T00:00:00Z")),
			theirs: entryJSON(e("obs_a", "ADR-004", "theirs", "2026-05-02T00:00:00Z")),
			want:   entryJSON(e("obs_a", "ADR-001", "ours", "2026-05-04T00:00:00Z")),
		},
		{
			name:   "devflow's version 1 with absolute paths is read and written as version 2",
			base:   nil,
			ours:   []byte(`{"schemaVersion":1,"entries":[{"observationId":"obs_x","type":"workflow","path":"/home/u/p/.claude/commands/self-learning/x.md","contentHash":"1a2b","renderedAt":"2026-04-01T00:00:00Z"}]}`),
			theirs: entryJSON(a),
			want:   entryJSON(a, manifest.Entry{ObservationID: "obs_x", Type: "workflow", Path: ".claude/commands/self-learning/x.md", ContentHash: "1a2b", RenderedAt: "2026-04-01T00:00:00Z"}),
		},
		{name: "not JSON", base: nil, ours: []byte("{oops"), theirs: entryJSON(a), formatErr: true},
		{name: "an unknown field would be lost", base: nil, ours: []byte(`{"schemaVersion":2,"entries":[],"extra":1}`), theirs: entryJSON(a), formatErr: true},
		{name: "a newer schema", base: nil, ours: []byte(`{"schemaVersion":3,"entries":[]}`), theirs: entryJSON(a), formatErr: true},
		{name: "two entries for one observation", base: nil, ours: entryJSON(a, a), theirs: entryJSON(a), formatErr: true},
		{name: "an entry without observation", base: nil, ours: entryJSON(e("", "", "", "")), theirs: entryJSON(a), formatErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MergeManifest(tt.base, tt.ours, tt.theirs)
			if tt.formatErr {
				var ce *ConflictError
				if !errors.As(err, &ce) || !ce.Format {
					t.Fatalf("err = %v, want a format error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(tt.want) {
				t.Fatalf("merged:\n%s\nwant:\n%s", got, tt.want)
			}
			swapped, err := MergeManifest(tt.base, tt.theirs, tt.ours)
			if err != nil || string(swapped) != string(got) {
				t.Fatalf("depends on which side is ours:\n%s", swapped)
			}
		})
	}
}

func TestMergeLog(t *testing.T) {
	got, err := MergeLog([]byte("{\"a\":1}\n"), []byte("{\"a\":1}\n{\"o\":1}\n"), []byte("{\"a\":1}\n{\"t\":1}\n{\"torn\":"))
	if err != nil || string(got) != "{\"a\":1}\n{\"o\":1}\n{\"t\":1}\n{\"torn\":\n" {
		t.Fatalf("%q %v", got, err)
	}
	_, err = MergeLog(nil, []byte("{\n  \"op\": \"observe\"\n}\n"), []byte("{}\n"))
	var ce *ConflictError
	if !errors.As(err, &ce) || !ce.Format || !strings.Contains(ce.Reason, "ours is not in devlearn's format: line 2") {
		t.Fatalf("pretty-printed JSON: %v", err)
	}
}

func TestMergeFile(t *testing.T) {
	a1 := adr(1, "A", "obs_a", "2026-05-01")
	d := ".memory/knowledge/decisions.md"

	out := MergeFile(d, decisions(a1), decisions(a1, adr(2, "O", "obs_o", "2026-05-03")), decisions(a1, adr(2, "T", "obs_t", "2026-05-02")))
	if !out.Clean || !out.ByMeaning || len(out.Renumbered) != 1 || out.Renumbered[0].Path != d {
		t.Fatalf("%+v", out)
	}

	// A person rewrote ours as prose at the top; theirs added an entry at
	// the end: git's line merge is clean, and that is the result.
	rewritten := append([]byte("Our decisions, in prose.\n\n"), decisions(a1)...)
	rewritten = append(rewritten, "\n## Notes\n\nsee the wiki\n"...)
	out = MergeFile(d, decisions(a1), rewritten, decisions(a1, adr(2, "T", "obs_t", "2026-05-02")))
	if out.ByMeaning || !strings.Contains(out.Reason, `"## Notes" is not a numbered entry (## ADR-NNN: title)`) {
		t.Fatalf("%+v", out)
	}
	// ... and with the entry added where the rewrite changed the text,
	// a conflict with markers from Drive.
	out = Drive(d, decisions(a1), rewritten, decisions(a1, adr(2, "T", "obs_t", "2026-05-02")), 0)
	if out.Clean || !HasMarkers(out.Data) || !strings.Contains(string(out.Data), "see the wiki") || !strings.Contains(string(out.Data), "obs_t") {
		t.Fatalf("%+v\n%s", out, out.Data)
	}

	// A content conflict stays a conflict even where the line merge would
	// be clean: two entries 2 in different places.
	ours := decisions(a1, adr(2, "Mine", "", "2026-05-02"))
	theirs := []byte(strings.Replace(string(decisions(a1)), "# Architectural Decisions\n", "# Architectural Decisions\n\n"+adr(2, "Learned", "obs_l", "2026-05-02"), 1))
	out = Drive(d, decisions(a1), ours, theirs, 0)
	if out.Clean || !out.ByMeaning || !strings.Contains(out.Reason, "hand-written") {
		t.Fatalf("%+v", out)
	}

	// Any other file merges as text, binary files as git does.
	if out := MergeFile("src/a.txt", []byte("a\n"), []byte("a\nb\n"), []byte("a\n")); !out.Clean || out.ByMeaning || string(out.Data) != "a\nb\n" {
		t.Fatalf("%+v", out)
	}
	if out := Drive(".memory/learning-log.jsonl", nil, []byte("\x00o"), []byte("\x00t"), 0); out.Clean || string(out.Data) != "\x00o" {
		t.Fatalf("%+v", out)
	}
}

func TestRunDriver(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".merge_file_O", "{\"e\":1}\n")
	write(".merge_file_A", "{\"e\":1}\n{\"e\":2}\n")
	write(".merge_file_B", "{\"e\":3}\n")
	out, err := RunDriver(dir, DriverFiles{Base: ".merge_file_O", Ours: ".merge_file_A", Theirs: ".merge_file_B", Path: ".memory/learning-log.jsonl"})
	if err != nil || !out.Clean {
		t.Fatalf("%+v %v", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".merge_file_A")); string(b) != "{\"e\":2}\n{\"e\":3}\n" {
		t.Fatalf("result %q", b)
	}
	if _, err := RunDriver(dir, DriverFiles{Base: "missing", Ours: ".merge_file_A", Theirs: ".merge_file_B", Path: "x"}); err == nil {
		t.Fatal("a missing file must be an error")
	}
}

func TestRegistration(t *testing.T) {
	cfg := DriverGitConfig()
	if !strings.HasPrefix(cfg, "[merge \"devlearn\"]\n\tname = \"devlearn: ") || !strings.Contains(cfg, "\tdriver = \"command -v devlearn") {
		t.Fatalf("config:\n%s", cfg)
	}
	if quoteConfig(`a"b\c`) != `"a\"b\\c"` {
		t.Fatal("quoting")
	}
	attrs := GitAttributes()
	for _, p := range []string{".memory/*.jsonl", ".memory/tasks/*.jsonl", ".memory/evolution/log.jsonl", ".memory/.learning-manifest.json", ".memory/knowledge/decisions.md", ".memory/knowledge/pitfalls.md"} {
		if !strings.Contains(attrs, "\n"+p+" merge=devlearn\n") {
			t.Errorf("attributes lack %s:\n%s", p, attrs)
		}
	}
}
