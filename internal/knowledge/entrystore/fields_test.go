package entrystore

import "testing"

// A status change keeps every other byte of a person's file.
func TestWithStatusKeepsTheFile(t *testing.T) {
	for _, tc := range []struct{ name, in, status, want string }{
		{"comment kept in its column",
			"---\nsummary: s   # what it is\nstatus: candidate   # candidate | active | archived\ntags: [a]\n---\nbody\n",
			"active",
			"---\nsummary: s   # what it is\nstatus: active      # candidate | active | archived\ntags: [a]\n---\nbody\n"},
		{"longer value pushes the comment",
			"---\nsummary: s\nstatus: active # c\n---\n",
			"archived",
			"---\nsummary: s\nstatus: archived # c\n---\n"},
		{"quoted value",
			"---\nsummary: s\nstatus: \"candidate\"\n---\nb\n",
			"active",
			"---\nsummary: s\nstatus: active\n---\nb\n"},
		{"no status line",
			"---\nsummary: s\n---\nb\n",
			"archived",
			"---\nsummary: s\nstatus: archived\n---\nb\n"},
		{"a nested status is not the entry's",
			"---\nsummary: s\ntriggers:\n  context: [status]\n---\n",
			"archived",
			"---\nsummary: s\ntriggers:\n  context: [status]\nstatus: archived\n---\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withFields("x.md", []byte(tc.in), field{"status", tc.status})
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %v\n%s\nwant\n%s", err, got, tc.want)
			}
		})
	}
	if _, err := withFields("x.md", []byte("---\nsummary: s\n---\n"), field{"status", "done"}); err == nil {
		t.Fatal("an unknown status was written")
	}
	if _, err := withFields("x.md", []byte("---\nsummary: s\nkind: bad\n---\n"), field{"status", "active"}); err == nil {
		t.Fatal("a broken entry was rewritten")
	}
}
