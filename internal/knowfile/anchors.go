package knowfile

import (
	"regexp"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/contenthash"
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
	// Where each section that carries its entry's lesson went, by its old
	// place: an entry sharing that section (SectionOf) goes with it.
	moved := map[string]*Section{}
	move := func(e *manifest.Entry, s *Section) {
		r := Reanchored{ObservationID: e.ObservationID, Path: e.Path, From: e.AnchorID, To: s.Anchor}
		if e.AnchorID != "" && contenthash.Matches(e.ContentHash, []byte(WithAnchor(s.Body, e.AnchorID))) {
			e.ContentHash = s.Hash()
			r.HashFollowed = true
		}
		e.AnchorID = s.Anchor
		out = append(out, r)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		d := docs[e.Path]
		if d == nil {
			continue
		}
		s := d.BySource(e.ObservationID)
		if s == nil || s.Anchor == "" {
			continue
		}
		if e.AnchorID != "" {
			moved[e.Path+"#"+e.AnchorID] = s
		}
		if s.Anchor != e.AnchorID {
			move(e, s)
		}
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.AnchorID == "" || docs[e.Path] == nil || docs[e.Path].BySource(e.ObservationID) != nil {
			continue
		}
		if s := moved[e.Path+"#"+e.AnchorID]; s != nil && s.Anchor != e.AnchorID {
			move(e, s)
		}
	}
	return out
}

// SectionOf is the section of d that manifest entry e names, entries
// being the manifest's: the one carrying e's observation id or, for an
// entry that shares another lesson's section (the render records a
// pitfall with the same area and issue as an existing entry under that
// entry's anchor, devflow's dedup), the section at e's anchor when it
// carries the lesson of another entry at that place, or none (a person's
// own section). nil when the section is gone: a deletion.
func SectionOf(d *Doc, entries []manifest.Entry, e manifest.Entry) *Section {
	if s := d.BySource(e.ObservationID); s != nil || e.AnchorID == "" {
		return s
	}
	s := d.ByAnchor(e.AnchorID)
	if s == nil {
		return nil
	}
	src := s.Source()
	if src == "" {
		return s
	}
	for _, o := range entries {
		if o.ObservationID == src && o.Path == e.Path && o.AnchorID == e.AnchorID {
			return s
		}
	}
	return nil
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
