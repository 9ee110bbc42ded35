package migrate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/settings"
)

// Devflow is what an existing devflow installation left in a project. Its
// files are at the paths devlearn uses, in formats devlearn reads, so
// adopting it is mostly a matter of saying so; the migrations do the rest.
type Devflow struct {
	LogLines         int              `json:"log_lines"`         // snapshot lines without "op", read as they are
	ManifestEntries  int              `json:"manifest_entries"`  // entries in the manifest
	ManifestAbsolute int              `json:"manifest_absolute"` // of which with absolute paths
	Sections         int              `json:"knowledge_sections"`
	V1Entries        int              `json:"v1_entries"`    // written by devflow's first extractor
	SkillFolders     []string         `json:"skill_folders"` // .claude/skills/self-learning:<slug>
	LearningHooks    []settings.Entry `json:"learning_hooks"`
	OtherHooks       []settings.Entry `json:"other_hooks"`
	ProjectPatterns  bool             `json:"project_patterns"`
	// SettingsError is set when .claude/settings.json could not be read.
	SettingsError string `json:"settings_error,omitempty"`
}

// Found reports whether anything of devflow's is there.
func (d *Devflow) Found() bool {
	return d.LogLines > 0 || d.ManifestAbsolute > 0 || d.V1Entries > 0 || len(d.SkillFolders) > 0 ||
		len(d.LearningHooks) > 0 || len(d.OtherHooks) > 0 || d.ProjectPatterns
}

// DetectDevflow looks for devflow's files in p. It only reads.
func DetectDevflow(p *project.Project) (*Devflow, error) {
	d := &Devflow{}
	_, err := jsonl.ScanFile(p.Path(project.LogFile), func(n int, line []byte) error {
		var fields map[string]json.RawMessage
		if json.Unmarshal(line, &fields) == nil {
			if _, ok := fields["op"]; !ok {
				d.LogLines++
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, jsonl.ErrNotExist) {
		return nil, err
	}
	if data, err := os.ReadFile(p.Path(project.ManifestFile)); err == nil {
		var raw manifest.Manifest
		if json.Unmarshal(data, &raw) == nil {
			d.ManifestEntries = len(raw.Entries)
			for _, e := range raw.Entries {
				if filepath.IsAbs(e.Path) || strings.HasPrefix(e.Path, "/") {
					d.ManifestAbsolute++
				}
			}
		}
	}
	docs, err := knowfile.ReadAll(p)
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		for _, s := range doc.Sections {
			if s.Anchor == "" {
				continue
			}
			d.Sections++
			if DevflowV1(s) {
				d.V1Entries++
			}
		}
	}
	if entries, err := os.ReadDir(p.Path(project.SkillsDir)); err == nil {
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), "self-learning:") {
				d.SkillFolders = append(d.SkillFolders, project.SkillsDir+"/"+e.Name())
			}
		}
	}
	if data, err := os.ReadFile(p.Path(project.SettingsFile)); err == nil {
		f, err := settings.Parse(project.SettingsFile, data)
		if err != nil {
			d.SettingsError = err.Error()
		} else {
			for _, e := range f.Devflow() {
				if settings.IsDevflowLearning(e.Command) {
					d.LearningHooks = append(d.LearningHooks, e)
				} else {
					d.OtherHooks = append(d.OtherHooks, e)
				}
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if _, err := os.Stat(p.Path(ProjectPatternsFile)); err == nil {
		d.ProjectPatterns = true
	}
	return d, nil
}
