package agentver

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/safefile"
)

// CacheFile is the file, in the clone's state folder (.git/devlearn/),
// that holds the version of each agent init or doctor read last. The
// hooks read it to know what the installed agent drops; they never run an
// agent's binary.
const CacheFile = "agent-versions.json"

// Record is one agent's entry in CacheFile.
type Record struct {
	Version string `json:"version"`
	// From says where it was read: the command, or the session file.
	From string `json:"from"`
	// Read is when (RFC 3339).
	Read string `json:"read"`
}

// Load reads CacheFile from the state folder; a missing or unreadable
// file is an empty cache (every version unknown).
func Load(stateDir string) map[string]Record {
	data, err := os.ReadFile(filepath.Join(stateDir, CacheFile))
	if err != nil {
		return nil
	}
	var recs map[string]Record
	if json.Unmarshal(data, &recs) != nil {
		return nil
	}
	return recs
}

// Cached is the agent's version recorded in the state folder, unknown
// when none is.
func Cached(stateDir, agent string) Version {
	v, _ := Parse(Load(stateDir)[agent].Version)
	return v
}

// Save records the versions found in the state folder below root (the
// clone's git folder), keeping the other agents' entries; an unknown
// version removes the agent's entry, so that the hooks serve as they
// always have. The file is replaced whole, never seen half written.
func Save(root, stateDir string, found map[string]Found, read string) error {
	recs := Load(stateDir)
	if recs == nil {
		recs = map[string]Record{}
	}
	for agent, f := range found {
		if !f.Version.Known() {
			delete(recs, agent)
			continue
		}
		recs[agent] = Record{Version: f.Version.String(), From: f.From, Read: read}
	}
	if len(recs) == 0 {
		if _, err := os.Lstat(filepath.Join(stateDir, CacheFile)); err != nil {
			return nil // nothing known, nothing recorded before: no file
		}
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.MkdirAll(root, stateDir, 0o755); err != nil {
		return err
	}
	tmp, err := safefile.CreateTemp(root, stateDir, CacheFile+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = safefile.Rename(root, name, filepath.Join(stateDir, CacheFile))
	}
	if err != nil {
		safefile.Remove(root, name)
	}
	return err
}
