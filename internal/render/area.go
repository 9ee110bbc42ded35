package render

import (
	"strings"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/repopath"
)

// withStoredArea is the observation with the paths of its "area:" detail
// as lessons store them (repopath.Stored): relative to the repository
// root, with forward slashes. An extractor that wrote an absolute path, or
// a Windows one, would otherwise give a pitfall that fires in no other
// clone and on no other machine. The observation in the log keeps its
// words; only the section written, and the dedup against the sections
// already there, see the stored form.
func withStoredArea(o observe.Observation, root string) observe.Observation {
	parts := strings.Split(o.Details, ";")
	for i, part := range parts {
		k, v, ok := strings.Cut(part, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "area") {
			continue
		}
		words := strings.Fields(v)
		for j, w := range words {
			core := strings.TrimRight(w, ",")
			if strings.Contains(core, `\`) || repopath.IsAbs(core) {
				words[j] = repopath.Stored(root, root, core) + w[len(core):]
			}
		}
		parts[i] = k + ": " + strings.Join(words, " ")
	}
	o.Details = strings.Join(parts, ";")
	return o
}
