package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/project"
)

// Commands lists what a project config sets that needs trust, with
// the values, so a person sees what they are trusting: every extractor key
// and every gate ConfigSets counts, since nothing of them is
// honoured untrusted.
func Commands(data []byte) []string {
	sets := ConfigSets(data)
	if !sets.Any() {
		return nil
	}
	var raw struct {
		Extractor map[string]json.RawMessage `json:"extractor"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	keys := make([]string, 0, len(raw.Extractor))
	for k := range raw.Extractor {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v := raw.Extractor[k]
		switch k {
		case "command":
			var cmd []string
			if json.Unmarshal(v, &cmd) == nil {
				out = append(out, "extractor.command = "+strings.Join(cmd, " "))
				continue
			}
		case "llm":
			var on bool
			if json.Unmarshal(v, &on) == nil && on {
				// Turning the extractor on starts a command too (the
				// default one, or the global config's), and sends it the
				// sessions.
				out = append(out, "extractor.llm = true (the LLM extractor's command runs after sessions end)")
				continue
			}
		}
		out = append(out, "extractor."+k+" = "+string(bytes.TrimSpace(v)))
	}
	if sets.Gates {
		if c, err := config.Parse(project.ConfigFile, data); err == nil {
			gate := func(list string, gates []config.Gate) {
				for _, g := range gates {
					out = append(out, fmt.Sprintf("gates.%s: %s = %s", list, g.Name, g.Command))
				}
			}
			for _, s := range config.Stages {
				pre, _ := c.Gates.Pre.For(s)
				gate("pre."+s, pre)
				post, _ := c.Gates.Post.For(s)
				gate("post."+s, post)
			}
			gate("stop", c.Gates.Stop)
		}
	}
	return out
}
