package gitx

import "testing"

func TestMergeText(t *testing.T) {
	tests := []struct {
		name               string
		base, ours, theirs string
		want               string
		clean              bool
	}{
		{"different regions", "1\n2\n3\n4\n5\n6\n", "one\n2\n3\n4\n5\n6\n", "1\n2\n3\n4\n5\nsix\n", "one\n2\n3\n4\n5\nsix\n", true},
		{"same line differently", "1\n2\n3\n", "1\nA\n3\n", "1\nB\n3\n", "", false},
		{"same change both sides", "1\n2\n3\n", "1\nX\n3\n", "1\nX\n3\n", "1\nX\n3\n", true},
		{"adjacent lines conflict like git", "1\n2\n3\n4\n", "1\nA\n3\n4\n", "1\n2\nB\n4\n", "", false},
		{"add/add different", "", "a\n", "b\n", "", false},
		{"add/add same", "", "a\n", "a\n", "a\n", true},
		{"missing final newline is kept", "1\n2\n3\n4\n5\n", "0\n2\n3\n4\n5\n", "1\n2\n3\n4\n5", "0\n2\n3\n4\n5", true},
		{"one side only", "a\nb\n", "a\nb\n", "a\nc\nb\n", "a\nc\nb\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, clean := MergeText([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if clean != tt.clean || (clean && string(got) != tt.want) {
				t.Errorf("MergeText = %q, %v; want %q, %v", got, clean, tt.want, tt.clean)
			}
		})
	}
}

func TestMergersLookup(t *testing.T) {
	ms := DefaultMergers()
	for p, want := range map[string]bool{
		".memory/learning-log.jsonl":      true,
		".memory/tasks/t-1.jsonl":         true,
		".memory/evolution/log.jsonl":     true,
		".memory/evolution/other.jsonl":   false,
		".memory/knowledge/decisions.md":  true,
		".memory/knowledge/pitfalls.md":   true,
		".memory/.learning-manifest.json": true,
		".memory/knowledge/entries/a.md":  false,
		".memory/learning.json":           false,
		"src/.memory/learning-log.jsonl":  false,
		"learning-log.jsonl":              false,
	} {
		if _, got := ms.Lookup(p); got != want {
			t.Errorf("Lookup(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	if !isBinary([]byte("a\x00b")) || isBinary([]byte("plain\ntext\n")) || isBinary(nil) {
		t.Fatal("isBinary misjudged")
	}
}
