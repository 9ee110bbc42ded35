package knowledge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// hurtingFactor is what the score of an item that hurt more than it
// helped is multiplied by, when the counters may weigh on ranking
// (counters.rank). Halving keeps a strong match served and lets a weak one
// fall under the threshold; it is a first guess, which is why the setting
// is off until the counters' rules are measured on real sessions.
const hurtingFactor = 0.5

// The items that hurt more than they helped (harmful > helpful) are kept
// per clone, by their Ref, rewritten wherever sessions are ingested: the
// hooks cannot afford to fold the observation log on every tool call, and
// reading one small file only when counters.rank is on costs them nothing
// otherwise. After a merge brings counter events from another branch the
// file follows at the next ingest.

// HurtingPath is p's file of hurting items.
func HurtingPath(p *project.Project) string {
	return p.StatePath("counters", "hurting.json")
}

type hurtingFile struct {
	Items []string `json:"items"`
}

// LoadHurting reads the hurting items; a missing or torn file is none
// (ranking then ignores the counters, as when the setting is off).
func LoadHurting(path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f hurtingFile
	if json.Unmarshal(data, &f) != nil {
		return nil
	}
	out := make(map[string]bool, len(f.Items))
	for _, r := range f.Items {
		out[r] = true
	}
	return out
}

// SaveHurting replaces the hurting items with refs.
func SaveHurting(p *project.Project, refs []string) error {
	path := HurtingPath(p)
	refs = slices.Clone(refs)
	slices.Sort(refs)
	refs = slices.Compact(refs)
	if refs == nil {
		refs = []string{}
	}
	data, err := json.MarshalIndent(hurtingFile{Items: refs}, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.MkdirAll(p.CommonDir, filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return jsonl.WriteFileRename(p.CommonDir, path, append(data, '\n'), 0o600)
}
