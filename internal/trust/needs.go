package trust

import "encoding/json"

// Sets says which keys of a project config that need trust the file sets:
// the extractor's (a command, and whether sessions go to a model) and the
// gates (commands run at stage boundaries and at Stop).
type Sets struct {
	Extractor bool
	Gates     bool
}

// Any reports whether the file sets anything that needs trust.
func (s Sets) Any() bool { return s.Extractor || s.Gates }

// ConfigSets is the one answer to "what in this project config runs only
// once trusted" (the trust rule, docs/architecture.md): any key under "extractor", any key under
// "gates". The extractor's permit, the gate runner, doctor, trust and
// configure all ask it, so that none of them tells a person a file needs
// no trust that another then refuses.
func ConfigSets(data []byte) Sets {
	var raw struct {
		Extractor map[string]json.RawMessage `json:"extractor"`
		Gates     map[string]json.RawMessage `json:"gates"`
	}
	if json.Unmarshal(data, &raw) != nil {
		// Unreadable: config.Load has refused it already; count it as
		// setting everything, so only trust lets it run anything.
		return Sets{Extractor: true, Gates: true}
	}
	return Sets{Extractor: len(raw.Extractor) > 0, Gates: len(raw.Gates) > 0}
}

// ConfigNeedsTrust reports whether a project config sets anything that
// runs only once the file is trusted.
func ConfigNeedsTrust(data []byte) bool { return ConfigSets(data).Any() }
