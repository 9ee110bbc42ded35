package gitx

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/manifest"
)

// MergeManifest merges .memory/.learning-manifest.json as a set of entries
// keyed by observation id, three ways: an entry one side removed and the
// other left alone is gone, entries either side added are kept, and an
// entry both sides changed differently is taken whole from the side that
// rendered it last (its renderedAt; on a tie, the greater JSON text, so
// that the choice does not depend on which side is ours); one both sides
// added, from the earlier rendering, the one MergeKnowledge keeps. The
// result is written in the manifest's own stable order.
//
// Anchors are kept as each side recorded them: a merge of the manifest
// cannot see the knowledge files (git merges each path alone), so an entry
// renumbered by MergeKnowledge keeps its old anchor here until SettleAnchors
// reads it back from the merged knowledge file by observation id.
func MergeManifest(base, ours, theirs []byte) ([]byte, error) {
	b, err := readManifest("the base", base)
	if err != nil {
		return nil, err
	}
	o, err := readManifest("ours", ours)
	if err != nil {
		return nil, err
	}
	t, err := readManifest("theirs", theirs)
	if err != nil {
		return nil, err
	}
	bi, oi, ti := byObservation(b), byObservation(o), byObservation(t)
	out := &manifest.Manifest{SchemaVersion: manifest.SchemaVersion}
	seen := make(map[string]bool, len(oi)+len(ti))
	for _, side := range []*manifest.Manifest{o, t, b} {
		for _, e := range side.Entries {
			id := e.ObservationID
			if seen[id] {
				continue
			}
			seen[id] = true
			if m := mergeManifestEntry(bi[id], oi[id], ti[id]); m != nil {
				out.Entries = append(out.Entries, *m)
			}
		}
	}
	return out.Bytes(), nil
}

func byObservation(m *manifest.Manifest) map[string]*manifest.Entry {
	out := make(map[string]*manifest.Entry, len(m.Entries))
	for i := range m.Entries {
		out[m.Entries[i].ObservationID] = &m.Entries[i]
	}
	return out
}

func mergeManifestEntry(b, o, t *manifest.Entry) *manifest.Entry {
	same := func(x, y *manifest.Entry) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	switch {
	case same(o, t):
		return o
	case same(o, b):
		return t
	case same(t, b):
		return o
	case o == nil:
		// Removed on one side, changed on the other: the change is kept,
		// so nothing either side recorded is lost.
		return t
	case t == nil:
		return o
	}
	if b == nil {
		// Rendered on both sides: the earlier rendering, as MergeKnowledge
		// keeps for a knowledge entry.
		if newerEntry(t, o) {
			return o
		}
		return t
	}
	if newerEntry(t, o) {
		return t
	}
	return o
}

// newerEntry reports whether x was rendered after y (or, at the same time,
// sorts after it), so that the pick is the same whichever side is ours.
func newerEntry(x, y *manifest.Entry) bool {
	if c := strings.Compare(x.RenderedAt, y.RenderedAt); c != 0 {
		return c > 0
	}
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	return bytes.Compare(xj, yj) > 0
}

// strictManifest is the manifest's shape, read with unknown fields refused:
// a field devlearn does not know would be dropped by a rewrite.
type strictManifest struct {
	SchemaVersion int              `json:"schemaVersion"`
	Entries       []manifest.Entry `json:"entries"`
}

// readManifest parses one side and checks that devlearn can rewrite it
// without losing anything: JSON of the known shape and schema version, no
// unknown field, one entry per observation.
func readManifest(side string, data []byte) (*manifest.Manifest, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &manifest.Manifest{SchemaVersion: manifest.SchemaVersion}, nil
	}
	if HasMarkers(data) {
		return nil, formatErr(side, "it has conflict markers")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sm strictManifest
	if err := dec.Decode(&sm); err != nil {
		return nil, formatErr(side, "%v", err)
	}
	if dec.More() {
		return nil, formatErr(side, "text follows the JSON object")
	}
	if sm.SchemaVersion > manifest.SchemaVersion {
		return nil, formatErr(side, "schema version %d is newer than this devlearn's (%d); update devlearn", sm.SchemaVersion, manifest.SchemaVersion)
	}
	seen := map[string]bool{}
	for i, e := range sm.Entries {
		if e.ObservationID == "" {
			return nil, formatErr(side, "entry %d has no observationId", i+1)
		}
		if seen[e.ObservationID] {
			return nil, formatErr(side, "%s has two entries", e.ObservationID)
		}
		seen[e.ObservationID] = true
	}
	for _, e := range sm.Entries {
		if strings.HasPrefix(e.Path, "/") || strings.ContainsRune(e.Path, '\\') || filepath.IsAbs(e.Path) {
			// devflow's absolute paths: manifest.Parse makes them relative
			// from their .memory/ or .claude/ part on (the repository
			// root is unknown here).
			m, _, err := manifest.Parse(data, "")
			if err != nil {
				return nil, formatErr(side, "%v", err)
			}
			return m, nil
		}
	}
	return &manifest.Manifest{SchemaVersion: manifest.SchemaVersion, Entries: sm.Entries}, nil
}
