package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/settings"
)

// All is every migration, in the order they run. Append new ones at the
// end; never renumber or rename one that shipped.
func All() []Migration {
	return []Migration{
		{ID: "home-private-v1", Scope: MachineScope, Description: "make $DEVLEARN_HOME private: it holds the trust store, which decides what runs", Plan: homePrivate},
		{ID: "devflow-manifest-relative", Scope: ProjectScope, Description: "rewrite devflow's manifest with paths relative to the repository", Plan: manifestRelative},
		{ID: "devflow-learning-hooks-off", Scope: ProjectScope, Description: "disable devflow's learning hooks in .claude/settings.json (their background job would rewrite the log)", Plan: devflowHooksOff},
		{ID: "purge-legacy-knowledge-v2", Scope: ProjectScope, Description: "remove devflow's pre-v2 entries ADR-002, PF-001, PF-003, PF-005 when their content shows devflow wrote them, and its orphan PROJECT-PATTERNS.md", Plan: purgeV2},
		{ID: "purge-legacy-knowledge-v3", Scope: ProjectScope, Description: "remove every remaining entry devflow's pre-v2 extractor wrote; keep and list hand-written ones", Plan: purgeV3},
	}
}

// homePrivate takes group and other permissions off $DEVLEARN_HOME and the
// trust store: anyone who could write them could make devlearn run a
// command of their choosing.
func homePrivate(c *Context) (*Outcome, error) {
	o := &Outcome{}
	var fix []string
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{c.Home, 0o700}, {filepath.Join(c.Home, "trust.json"), 0o600}} {
		fi, err := os.Stat(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			fix = append(fix, p.path)
			o.Did = append(o.Did, fmt.Sprintf("%s: mode %v → %v", p.path, fi.Mode().Perm(), p.mode))
		}
	}
	o.Apply = func() error {
		for _, p := range fix {
			mode := os.FileMode(0o600)
			if p == c.Home {
				mode = 0o700
			}
			if err := safefile.Chmod(c.Home, p, mode); err != nil {
				return err
			}
		}
		return nil
	}
	return o, nil
}

// manifestRelative writes devflow's manifest (absolute paths, written on
// whatever machine ran devflow) with relative paths, so it means the same
// in every clone.
func manifestRelative(c *Context) (*Outcome, error) {
	o := &Outcome{}
	data, err := c.ReadFile(project.ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return nil, err
	}
	m, migrated, err := manifest.Parse(data, c.Proj.Root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; fix it (or 'devlearn resolve' a conflicted one) and run 'devlearn init' again", project.ManifestFile, err)
	}
	for _, mg := range migrated {
		o.Did = append(o.Did, fmt.Sprintf("%s: %s → %s", mg.ObservationID, mg.From, mg.To))
	}
	for _, e := range m.Entries {
		if filepath.IsAbs(e.Path) || strings.HasPrefix(e.Path, "/") {
			o.Kept = append(o.Kept, fmt.Sprintf("%s: %s is outside this repository; left as it is", e.ObservationID, e.Path))
		}
	}
	if len(migrated) > 0 {
		o.Changes = append(o.Changes, evolve.Change{Path: project.ManifestFile, Data: m.Bytes()})
	}
	return o, nil
}

func devflowHooksOff(c *Context) (*Outcome, error) {
	o := &Outcome{}
	data, err := c.ReadFile(project.SettingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := settings.Parse(project.SettingsFile, data)
	if err != nil {
		return nil, fmt.Errorf("%w; fix the file, then run 'devlearn init' again", err)
	}
	for _, e := range f.RemoveDevflowLearning() {
		o.Did = append(o.Did, fmt.Sprintf("disabled devflow's %s hook %q", e.Event, e.Command))
	}
	for _, e := range f.Devflow() {
		o.Kept = append(o.Kept, fmt.Sprintf("devflow's %s hook %q: not a learning hook", e.Event, e.Command))
	}
	if len(o.Did) > 0 {
		o.Changes = append(o.Changes, evolve.Change{Path: project.SettingsFile, Data: f.Bytes()})
	}
	return o, nil
}

// devflowV1Source matches the Source line devflow's pre-v2 extractor wrote:
// the devflow command that produced the entry, in backticks
// ("`/implement #99`", "`/code-review feat/x`"). Learned entries carry
// "self-learning:<id>" instead, and people's own entries carry neither.
var devflowV1Source = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^`/[a-z][a-z0-9:-]*(\\s[^`]*)?`$") })

// DevflowV1 reports whether a knowledge section is recognisably one that
// devflow's pre-v2 extractor wrote, by its content.
func DevflowV1(s *knowfile.Section) bool {
	return s.Anchor != "" && devflowV1Source().MatchString(strings.TrimSpace(s.Field("Source")))
}

// purgeSections removes the sections drop selects from both knowledge
// files, and says what it removed and which hand-written entries it kept.
func purgeSections(c *Context, o *Outcome, drop func(*knowfile.Section) bool, reportKept func(*knowfile.Section) bool) error {
	for _, kf := range knowfile.Kinds() {
		data, err := c.ReadFile(kf.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if gitx.HasMarkers(data) {
			return fmt.Errorf("%s has conflict markers: resolve them first ('devlearn resolve', or by hand), then run 'devlearn init' again", kf.Path)
		}
		doc := knowfile.Parse(kf, data)
		var kept []*knowfile.Section
		for _, s := range doc.Sections {
			if drop(s) {
				o.Did = append(o.Did, fmt.Sprintf("removed %s %q from %s (written by devflow's pre-v2 extractor: Source %s)", s.Anchor, s.Title, kf.Path, s.Field("Source")))
				continue
			}
			kept = append(kept, s)
			if reportKept(s) {
				o.Kept = append(o.Kept, fmt.Sprintf("%s %q in %s: no Source line, so it is yours", s.Anchor, s.Title, kf.Path))
			}
		}
		if len(kept) < len(doc.Sections) {
			doc.Sections = kept
			o.Changes = append(o.Changes, evolve.Change{Path: kf.Path, Data: doc.Bytes()})
		}
	}
	return nil
}

// The entries devflow's v2 audit found to be noise from its first
// extractor. devflow removed them by number alone; in a real project those
// numbers may be anyone's, so each is removed only if its content shows
// devflow's first extractor wrote it.
var legacyV2 = []string{"ADR-002", "PF-001", "PF-003", "PF-005"}

func purgeV2(c *Context) (*Outcome, error) {
	o := &Outcome{}
	err := purgeSections(c, o,
		func(s *knowfile.Section) bool { return slices.Contains(legacyV2, s.Anchor) && DevflowV1(s) },
		func(s *knowfile.Section) bool {
			return slices.Contains(legacyV2, s.Anchor) && s.Source() == "" && !DevflowV1(s)
		})
	if err != nil {
		return nil, err
	}
	if err := purgeProjectPatterns(c, o); err != nil {
		return nil, err
	}
	return o, nil
}

func purgeV3(c *Context) (*Outcome, error) {
	o := &Outcome{}
	err := purgeSections(c, o, DevflowV1, func(s *knowfile.Section) bool {
		return s.Anchor != "" && s.Source() == "" && !DevflowV1(s)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// ProjectPatternsFile is the pattern file early devflow versions generated.
const ProjectPatternsFile = ".memory/PROJECT-PATTERNS.md"

var discovered = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(discovered: \d{4}-\d{2}-\d{2}\)\.?\s*$`) })

// DevflowPatterns reports whether PROJECT-PATTERNS.md is the file devflow
// generated: every bullet ends with devflow's "(discovered: YYYY-MM-DD)"
// stamp. A file with any other bullet has been written by someone else.
func DevflowPatterns(data []byte) bool {
	bullets := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if !bytes.HasPrefix(t, []byte("- ")) && !bytes.HasPrefix(t, []byte("* ")) {
			continue
		}
		bullets++
		if !discovered().Match(t) {
			return false
		}
	}
	return bullets > 0
}

func purgeProjectPatterns(c *Context, o *Outcome) error {
	data, err := c.ReadFile(ProjectPatternsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !DevflowPatterns(data) {
		o.Kept = append(o.Kept, ProjectPatternsFile+": it holds lines devflow did not generate")
		return nil
	}
	o.Did = append(o.Did, "removed "+ProjectPatternsFile+" (generated by an early devflow; nothing reads it)")
	o.Changes = append(o.Changes, evolve.Change{Path: ProjectPatternsFile, Remove: true})
	return nil
}
