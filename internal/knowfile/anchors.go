package knowfile

import (
	"regexp"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
)

// Reanchored is a manifest entry moved to the number its knowledge section
// carries now.
type Reanchored struct {
	ObservationID string `json:"observation"`
	Path          string `json:"path"`
	From          string `json:"from"`
	To            string `json:"to"`
	// HashFollowed is true when the section differs from what was recorded
	// only by its number (a renumbering), so the recorded hash follows it;
	// otherwise the hash is left for reconcile to see the edit.
	HashFollowed bool `json:"hash_followed"`
}

// SettleAnchors points the manifest's knowledge entries at the sections
// that carry their observation id (the sections-by-observation-id rule, docs/architecture.md), in docs keyed by
// project-relative path. A merge renumbers sections in decisions.md and
// pitfalls.md but merges the manifest on its own, so the manifest keeps the
// old anchors until this runs: 'devlearn resolve' runs it, and so does
// reconcile. Entries whose section is gone are left alone (that is a
// deletion, reconcile's business). It returns what it changed.
//
// It lives here rather than beside the merge code so that reconcile, which
// session start runs, needs none of the merge machinery.
func SettleAnchors(m *manifest.Manifest, docs map[string]*Doc) []Reanchored {
	var out []Reanchored
	for i := range m.Entries {
		e := &m.Entries[i]
		d := docs[e.Path]
		if d == nil {
			continue
		}
		s := d.BySource(e.ObservationID)
		if s == nil || s.Anchor == "" || s.Anchor == e.AnchorID {
			continue
		}
		r := Reanchored{ObservationID: e.ObservationID, Path: e.Path, From: e.AnchorID, To: s.Anchor}
		if e.AnchorID != "" && manifest.Matches(e.ContentHash, []byte(WithAnchor(s.Body, e.AnchorID))) {
			e.ContentHash = s.Hash()
			r.HashFollowed = true
		}
		e.AnchorID = s.Anchor
		out = append(out, r)
	}
	return out
}

var anchorRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^## (` + lesson.Anchors() + `)-\d+:`) })

// WithAnchor returns a section's text with its heading renumbered.
func WithAnchor(body, anchor string) string {
	i := strings.IndexByte(body, '\n')
	if i < 0 {
		i = len(body)
	}
	return anchorRe().ReplaceAllLiteralString(body[:i], "## "+anchor+":") + body[i:]
}
