package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
)

// configBrokenOnce tells the person, at the first session start that
// finds the config unreadable, that devlearn is off and why; the hooks
// log alone is where nobody looks. Later session starts with the same
// files stay quiet: what was said is remembered in the clone's state by
// the files' content, so a change that is still wrong is said again.
func (r *run) configBrokenOnce(err error) *Output {
	what := err.Error()
	var ce *config.Error
	if errors.As(err, &ce) {
		c := *ce
		if rel, rerr := filepath.Rel(r.proj.Root, c.File); rerr == nil && !strings.HasPrefix(rel, "..") {
			c.File = filepath.ToSlash(rel)
		}
		what = c.Error()
	}
	h := sha256.New()
	h.Write([]byte(what))
	for _, f := range []string{filepath.Join(r.env.Home, config.GlobalFile), r.proj.Path(".memory/learning.json")} {
		var data []byte
		if filepath.IsAbs(f) {
			data, _ = os.ReadFile(f)
		}
		h.Write([]byte{0})
		h.Write(data)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	path := r.proj.StatePath("config-error-said")
	if said, rerr := os.ReadFile(path); rerr == nil && string(said) == sum {
		return nil
	}
	if err := safefile.MkdirAll(r.proj.CommonDir, filepath.Dir(path), 0o700); err == nil {
		if err := jsonl.WriteFileAtomic(r.proj.CommonDir, path, []byte(sum), 0o600); err != nil {
			r.log.Printf("config error: %v", err)
		}
	}
	what = strings.TrimSuffix(what, ".")
	o := r.output("devlearn could not read its config, so no project knowledge is served this session: "+what+". Tell the person, who can fix the file ('devlearn doctor' checks it).", "", "")
	o.SystemMessage = "devlearn is off in this repository: " + what + ". Fix it there ('devlearn doctor' checks the file); until then its hooks serve and record nothing. devlearn says this once for this content of the file."
	return o
}
