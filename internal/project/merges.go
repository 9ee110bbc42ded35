package project

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// MergeJournals is the folder, in the clone's state, of the journals of
// devlearn's merges (internal/gitx writes them): one per merge not yet
// finished, naming the working tree it writes.
const MergeJournals = "merges"

// MergeUnderway reports a devlearn merge that names this working tree as
// the checkout it brings to the merge, and has not finished: running, or
// stopped dead and waiting for 'devlearn merge' to finish it. Until then
// some files are at the merge and some not, and what is missing or
// changed is no person's decision.
func (p *Project) MergeUnderway() bool {
	dir := p.StatePath(MergeJournals)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var j struct {
			Checkout       string `json:"checkout"`
			CheckoutGitDir string `json:"checkout_git_dir"`
		}
		if json.Unmarshal(b, &j) != nil {
			continue
		}
		if j.CheckoutGitDir != "" && filepath.Clean(j.CheckoutGitDir) == filepath.Clean(p.GitDir) || j.Checkout != "" && filepath.Clean(j.Checkout) == filepath.Clean(p.Root) {
			return true
		}
	}
	return false
}
