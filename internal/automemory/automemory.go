// Package automemory reads Claude Code's own auto memory for a working
// tree: the machine-local files Claude Code keeps per project under
// <config>/projects/<project>/memory/ (MEMORY.md, an index, and one topic
// file per memory, each with front matter naming its type: user,
// feedback, project or reference). 'devlearn ingest --auto-memory' records
// them as observations, so that what Claude learned on one machine
// becomes reviewable knowledge in git. Claude's files are only read.
//
// The format is not a published contract: what is read was observed in
// Claude Code's memory prompt, in two versions ("type:" at the top of the
// front matter, or under "metadata:"); both are accepted. The project
// folder's name is never computed (Claude Code's sanitisation has
// changed): it is the folder whose transcripts ran in the working tree.
package automemory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/ingest"
)

// Extractor is the name observations from auto memory are recorded under.
const Extractor = "auto-memory"

// Index is the memory folder's index file, which holds no memory itself.
const Index = "MEMORY.md"

// Memory is one topic file.
type Memory struct {
	File        string // its path
	Name        string
	Description string
	Type        string // user, feedback, project or reference
	Body        string
	Modified    time.Time
}

// Dirs lists the memory folders of the working tree root (and of the
// repository's main working tree, which Claude Code keys auto memory on)
// under a Claude config folder.
func Dirs(configDir string, roots ...string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, root := range roots {
		found, err := ingest.ProjectSessions(configDir, root)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			dir := filepath.Join(filepath.Dir(f.Main), "memory")
			if seen[dir] {
				continue
			}
			seen[dir] = true
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				out = append(out, dir)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Read reads the topic files of a memory folder; a file that cannot be
// read as one is reported, the others are read.
func Read(dir string) ([]Memory, []error) {
	var out []Memory
	var problems []error
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, []error{err}
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") || e.Name() == Index {
			continue
		}
		path := filepath.Join(dir, e.Name())
		m, err := readFile(path)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		out = append(out, m)
	}
	return out, problems
}

func readFile(path string) (Memory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Memory{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Memory{}, err
	}
	mf, err := extract.ParseMemory(data)
	if err != nil {
		return Memory{}, fmt.Errorf("%s: %v", path, err)
	}
	m := Memory{File: path, Name: mf.Name, Description: mf.Description, Type: mf.Type, Body: mf.Body, Modified: fi.ModTime().UTC()}
	return m, nil
}

// ErrNotRecorded marks a memory that is not recorded, with why.
var ErrNotRecorded = extract.ErrMemoryNotRecorded

// Observation is what a memory is recorded as (extract.MemoryKind says
// which memories are, and as what).
func Observation(m Memory) (extract.Observation, error) {
	typ, err := extract.MemoryKind(m.Type)
	if err != nil {
		return extract.Observation{}, err
	}
	pattern := strings.TrimSpace(m.Description)
	if pattern == "" {
		pattern = strings.TrimSpace(m.Name)
	}
	base := filepath.Base(m.File)
	// One memory file on one machine is one source: its id is the
	// file's path, so ingesting it again adds nothing, and the same
	// lesson in another clone's memory is a second sighting.
	sum := sha256.Sum256([]byte(m.File))
	return extract.Observation{
		Type:       typ,
		Pattern:    pattern,
		Details:    m.Body,
		Evidence:   []string{"Claude Code auto memory: " + base},
		QualityOK:  pattern != "" && m.Body != "",
		SessionID:  "auto-memory-" + hex.EncodeToString(sum[:6]),
		RecordUUID: base,
		Extractor:  Extractor,
		Timestamp:  m.Modified.Format(time.RFC3339),
	}, nil
}
