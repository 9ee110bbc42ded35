// Package manifest is the registry of rendered artifacts,
// .memory/.learning-manifest.json: one entry per artifact, knowledge
// sections keyed by their observation id (the sections-by-observation-id rule, docs/architecture.md), each with the hash
// of exactly what reconcile reads back.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/devlearn/devlearn/internal/jsonpos"
	"github.com/devlearn/devlearn/internal/jsonstr"
	"github.com/devlearn/devlearn/internal/project"
)

// SchemaVersion 2 is devlearn's: relative paths and sha256 hashes.
// devflow wrote version 1 with absolute paths and 32-bit djb2 hashes.
const SchemaVersion = 2

// Entry is one rendered artifact.
type Entry struct {
	ObservationID string `json:"observationId"`
	Type          string `json:"type"`
	Path          string `json:"path"` // relative to the project root, forward slashes
	ContentHash   string `json:"contentHash"`
	RenderedAt    string `json:"renderedAt"`
	AnchorID      string `json:"anchorId,omitempty"` // ADR-003, PF-001 for knowledge sections
	// Sources are the observations a curated bullet carries, separated by
	// spaces (a string, so entries stay comparable); its ObservationID is
	// its own key, "curated:<file>#<id>".
	Sources string `json:"sources,omitempty"`
}

// Types of the curated bullets devlearn keeps in instruction files
// (internal/curator): a bullet as devlearn wrote it, and one a person
// edited, which is theirs from then on. Reconcile leaves both to the
// curator.
const (
	TypeCurated       = "curated"
	TypeCuratedEdited = "curated-edited"
)

// IsCurated reports whether e is a curated bullet's entry.
func (e Entry) IsCurated() bool { return e.Type == TypeCurated || e.Type == TypeCuratedEdited }

// Manifest is the whole file.
type Manifest struct {
	SchemaVersion int     `json:"schemaVersion"`
	Entries       []Entry `json:"entries"`

	byID map[string]int // observation -> index in Entries, built on first lookup
}

// Migration is something Load changed while reading devflow's format.
type Migration struct {
	ObservationID string
	From, To      string
}

// Load reads the manifest at path; a missing file is an empty manifest.
// devflow's absolute paths are made relative to root, also when they were
// written on another machine (the part from .claude/ or .memory/ on).
func Load(path, root string) (*Manifest, []Migration, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{SchemaVersion: SchemaVersion}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return Parse(data, root)
}

// LoadProject loads the manifest of a project; its error names the file
// and what to do about it.
func LoadProject(p *project.Project) (*Manifest, []Migration, error) {
	m, migrated, _, err := LoadProjectData(p)
	return m, migrated, err
}

// LoadProjectData is LoadProject that also returns the bytes it read (nil
// for a missing file), for a caller that must prove later what it judged.
func LoadProjectData(p *project.Project) (*Manifest, []Migration, []byte, error) {
	data, err := os.ReadFile(p.Path(project.ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &Manifest{SchemaVersion: SchemaVersion}, nil, nil, nil
	}
	var m *Manifest
	var migrated []Migration
	if err == nil {
		m, migrated, err = Parse(data, p.Root)
	}
	if err != nil {
		return nil, nil, nil, &ReadError{Err: err}
	}
	return m, migrated, data, nil
}

// ReadError is a manifest that cannot be read. How to get it back depends
// on whether git has a copy, which only doctor looks up: the message sends
// the person there.
type ReadError struct{ Err error }

func (e *ReadError) Error() string {
	return fmt.Sprintf("%s: %v (fix the JSON at the place named, or run 'devlearn doctor' for how to get it back)", project.ManifestFile, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Parse reads manifest bytes (see Load).
func Parse(data []byte, root string) (*Manifest, []Migration, error) {
	m := &Manifest{}
	if len(bytes.TrimSpace(data)) == 0 {
		return &Manifest{SchemaVersion: SchemaVersion}, nil, nil
	}
	if err := decode(data, m); err != nil {
		if line, col, ok := jsonpos.Of(data, err); ok {
			return nil, nil, fmt.Errorf("line %d, column %d: not valid JSON: %w", line, col, err)
		}
		return nil, nil, fmt.Errorf("not a manifest: %w", err)
	}
	var migrated []Migration
	for i := range m.Entries {
		e := &m.Entries[i]
		if rel, changed := relative(e.Path, root); changed {
			migrated = append(migrated, Migration{ObservationID: e.ObservationID, From: e.Path, To: rel})
			e.Path = rel
		}
	}
	m.SchemaVersion = SchemaVersion
	return m, migrated, nil
}

// decode is encoding/json's Unmarshal: a manifest as devlearn writes it
// read by decodeFast, any other by go-json-experiment's decoder under its
// options for encoding/json's semantics (a third of encoding/json's time).
// Where that decoder refuses, encoding/json decodes again, so that what is
// accepted, and the error of what is not, are encoding/json's.
func decode(data []byte, m *Manifest) error {
	if fast, ok := decodeFast(data); ok {
		*m = fast
		return nil
	}
	if jsonv2.Unmarshal(data, m, jsonv1.DefaultOptionsV1()) == nil {
		return nil
	}
	*m = Manifest{}
	return json.Unmarshal(data, m)
}

func relative(p, root string) (string, bool) {
	slash := filepath.ToSlash(p)
	if !strings.HasPrefix(slash, "/") && !filepath.IsAbs(p) {
		return slash, slash != p
	}
	if root != "" {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r), true
		}
	}
	for _, dir := range []string{"/.claude/", "/.memory/"} {
		if i := strings.LastIndex(slash, dir); i >= 0 {
			return slash[i+1:], true
		}
	}
	return slash, false
}

// Get returns the entry of an observation, or nil.
func (m *Manifest) Get(id string) *Entry {
	if m.byID == nil {
		m.byID = make(map[string]int, len(m.Entries))
		for i, e := range m.Entries {
			if _, dup := m.byID[e.ObservationID]; !dup {
				m.byID[e.ObservationID] = i
			}
		}
	}
	if i, ok := m.byID[id]; ok {
		return &m.Entries[i]
	}
	return nil
}

// Put adds the entry of an observation or replaces it: never two entries
// for one observation, whatever crash came before.
func (m *Manifest) Put(e Entry) {
	if cur := m.Get(e.ObservationID); cur != nil {
		*cur = e
		return
	}
	m.byID[e.ObservationID] = len(m.Entries)
	m.Entries = append(m.Entries, e)
}

// Remove drops an observation's entry.
func (m *Manifest) Remove(id string) {
	m.Entries = slices.DeleteFunc(m.Entries, func(e Entry) bool { return e.ObservationID == id })
	m.byID = nil
}

// Bytes writes the manifest with entries in a stable order (path, anchor,
// observation), so that diffs and merges stay small.
func (m *Manifest) Bytes() []byte {
	out := Manifest{SchemaVersion: SchemaVersion, Entries: slices.Clone(m.Entries)}
	if out.Entries == nil {
		out.Entries = []Entry{}
	}
	sortEntries(out.Entries)
	return out.appendIndented(make([]byte, 0, 64+len(out.Entries)*320))
}

func sortEntries(entries []Entry) {
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.AnchorID, b.AnchorID); c != 0 {
			return c
		}
		return strings.Compare(a.ObservationID, b.ObservationID)
	})
}

// appendIndented appends m as json.MarshalIndent(m, "", "  ") writes it,
// and a newline: a bulk render writes a manifest of a thousand entries,
// and encoding/json took 4 ms to, by reflection and a second pass to
// indent.
func (m *Manifest) appendIndented(b []byte) []byte {
	b = append(b, "{\n  \"schemaVersion\": "...)
	b = strconv.AppendInt(b, int64(m.SchemaVersion), 10)
	b = append(b, ",\n  \"entries\": ["...)
	field := func(key, v string, last bool) {
		b = append(b, "      \""...)
		b = append(b, key...)
		b = append(b, "\": "...)
		b = jsonstr.Append(b, v)
		if !last {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	for i, e := range m.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\n"...)
		field("observationId", e.ObservationID, false)
		field("type", e.Type, false)
		field("path", e.Path, false)
		field("contentHash", e.ContentHash, false)
		field("renderedAt", e.RenderedAt, e.AnchorID == "" && e.Sources == "")
		if e.AnchorID != "" {
			field("anchorId", e.AnchorID, e.Sources == "")
		}
		if e.Sources != "" {
			field("sources", e.Sources, true)
		}
		b = append(b, "    }"...)
	}
	if len(m.Entries) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...)
}
