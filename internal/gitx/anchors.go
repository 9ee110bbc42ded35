package gitx

import (
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
)

// Reanchored is a manifest entry moved to the number its knowledge section
// carries now (see knowfile.SettleAnchors).
type Reanchored = knowfile.Reanchored

// SettleAnchors points the manifest's knowledge entries at the sections
// that carry their observation id; see knowfile.SettleAnchors, where it
// lives so that reconcile does not link the merge machinery.
func SettleAnchors(m *manifest.Manifest, docs map[string]*knowfile.Doc) []Reanchored {
	return knowfile.SettleAnchors(m, docs)
}
