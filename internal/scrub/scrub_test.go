package scrub

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
)

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

const adr = `# Architectural Decisions

## ADR-001: Keep the staging key out of the repo

- **Status**: Accepted
- **Context**: the key ` + secret + ` was pasted in a session
- **Source**: self-learning:obs_aaaaaaaaaaaa
`

const pf = `# Known Pitfalls

## PF-001: Tokens in logs

- **Status**: Active
- **Issue**: the token ` + secret + ` showed up in a log (edited by hand)
- **Source**: self-learning:obs_bbbbbbbbbbbb
`

const command = "---\ndescription: Deploy with " + secret + "\nsource: self-learning:obs_cccccccccccc\n---\nRun make deploy.\n"

// fixture is a project where the secret is everywhere devlearn keeps
// things, and in a few places it must not touch.
func fixture(t *testing.T) (*project.Project, map[string]string) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	adrSec := knowfile.Parse(knowfile.Decisions, []byte(adr)).BySource("obs_aaaaaaaaaaaa")
	man := &manifest.Manifest{SchemaVersion: manifest.SchemaVersion}
	man.Put(manifest.Entry{ObservationID: "obs_aaaaaaaaaaaa", Type: "decision", Path: project.DecisionsFile, AnchorID: "ADR-001", ContentHash: adrSec.Hash(), RenderedAt: "2026-05-01T00:00:00Z"})
	man.Put(manifest.Entry{ObservationID: "obs_bbbbbbbbbbbb", Type: "pitfall", Path: project.PitfallsFile, AnchorID: "PF-001", ContentHash: "0000", RenderedAt: "2026-05-01T00:00:00Z"})
	man.Put(manifest.Entry{ObservationID: "obs_cccccccccccc", Type: "workflow", Path: project.CommandsDir + "/deploy.md", ContentHash: contenthash.Hash([]byte(command)), RenderedAt: "2026-05-01T00:00:00Z"})
	files := map[string]string{
		project.LogFile: `{"op":"observe","id":"obs_1","pattern":"p","details":"use ` + secret + `"}` + "\n" +
			`{"op":"observe","id":"obs_2","pattern":"clean"}` + "\n" +
			`torn line with ` + secret + "\n",
		project.TasksDir + "/feature.jsonl":                    `{"op":"gate","output":"curl -H 'X: ` + secret + `'"}` + "\n",
		project.CommandsDir + "/deploy.md":                     command,
		project.SkillsDir + "/" + secret + "/SKILL.md":         "---\nname: x\n---\nclean\n",
		project.DecisionsFile:                                  adr,
		project.PitfallsFile:                                   pf,
		project.EntriesDir + "/staging.md":                     "---\nkey: staging\nsummary: " + secret + "\ntags: [a]\n---\nbody\n",
		project.EntriesDir + "/clean.md":                       "---\nkey: clean\n---\nnothing here\n",
		project.ConfigFile:                                     `{"extractor": {"command": ["tool", "--token", "` + secret + `"]}}`,
		project.ManifestFile:                                   string(man.Bytes()),
		"README.md":                                            "not devlearn's: " + secret + "\n",
		".git/devlearn/objects/ab/cdef":                        "an old copy with " + secret + "\n",
		".git/devlearn/objects/12/3456":                        "an old copy without\n",
		".git/devlearn/cache/knowledge-main.bin":               "\x00\x01bin " + secret + "\xff",
		".git/devlearn/logs/hooks.log":                         "2026-05-01 error near " + secret + "\n",
		".git/devlearn/sessions/s1/state.json":                 `{"injected":["` + secret + `"]}` + "\n",
		".git/devlearn/locks/main/x.lock":                      secret,
		".git/devlearn/pending/main.json.unrelated-not-a-file": "",
	}
	for rel, body := range files {
		path := p.Path(rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An audit log entry whose reason quotes the secret.
	w := evolve.New(p, now.Add(-time.Hour), evolve.Trigger{Command: "test"})
	if _, err := w.Apply(context.Background(), evolve.Reason{Text: "render " + secret}, evolve.Change{Path: "other.md", Data: []byte("x\n")}); err != nil {
		t.Fatal(err)
	}
	return p, files
}

// holders lists every file under root that still holds the secret.
func holders(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), secret) {
				rel, _ := filepath.Rel(root, path)
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestRun(t *testing.T) {
	p, files := fixture(t)
	m := literal(t, secret)
	w := evolve.New(p, now, evolve.Trigger{Command: "redact"})

	// A dry run finds everything and changes nothing.
	snapshot := map[string]string{}
	for _, h := range holders(t, p.Root) {
		b, _ := os.ReadFile(p.Path(h))
		snapshot[h] = string(b)
	}
	dry, err := Run(context.Background(), Options{Proj: p, Match: m, Writer: w, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for h, body := range snapshot {
		if b, _ := os.ReadFile(p.Path(h)); string(b) != body {
			t.Errorf("dry run changed %s", h)
		}
	}
	if len(dry.Entries) != 0 || !dry.DryRun {
		t.Errorf("dry run: %+v", dry)
	}

	res, err := Run(context.Background(), Options{Proj: p, Match: m, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Found{}
	for _, f := range res.Found {
		got[f.Path+"|"+f.Action] = f
	}
	want := map[string][]int{
		project.LogFile + "|scrubbed":                           {1, 3},
		project.TasksDir + "/feature.jsonl|scrubbed":            {1},
		project.CommandsDir + "/deploy.md|scrubbed":             {2},
		project.DecisionsFile + "|scrubbed":                     {6},
		project.PitfallsFile + "|scrubbed":                      {6},
		project.EntriesDir + "/staging.md|scrubbed":             {3},
		project.EvolutionLog + "|scrubbed":                      {1},
		project.ConfigFile + "|reported":                        {1},
		project.SkillsDir + "/" + secret + "/SKILL.md|reported": nil,
		".git/devlearn/objects/ab/cdef|deleted":                 {1},
		".git/devlearn/cache/knowledge-main.bin|deleted":        nil,
		".git/devlearn/logs/hooks.log|scrubbed":                 {1},
		".git/devlearn/sessions/s1/state.json|scrubbed":         {1},
	}
	for k, lines := range want {
		f, ok := got[k]
		if !ok {
			t.Errorf("not found: %s", k)
			continue
		}
		if !slices.Equal(f.Lines, lines) {
			t.Errorf("%s: lines %v, want %v", k, f.Lines, lines)
		}
	}
	if len(res.Found) != len(want) {
		t.Errorf("found %d places, want %d: %+v", len(res.Found), len(want), res.Found)
	}
	if len(dry.Found) != len(res.Found) || dry.Total != res.Total {
		t.Errorf("the dry run found %d (%d), the run %d (%d)", len(dry.Found), dry.Total, len(res.Found), res.Total)
	}
	for _, f := range dry.Found {
		if f.Action != Reported && !strings.HasPrefix(f.Action, "would be ") {
			t.Errorf("dry run action %q", f.Action)
		}
	}
	if len(res.Entries) != 2 {
		t.Errorf("audit entries %v, want the batch and the audit log's rewrite", res.Entries)
	}

	// What is left holds it only where a person must act, or where it is
	// not devlearn's to touch.
	left := holders(t, p.Root)
	wantLeft := []string{".git/devlearn/locks/main/x.lock", project.ConfigFile, "README.md", project.SkillsDir + "/" + secret + "/SKILL.md"}
	slices.Sort(wantLeft)
	// The skill's file holds no secret: only its folder's name does.
	wantLeft = slices.DeleteFunc(wantLeft, func(s string) bool { return strings.HasSuffix(s, "SKILL.md") })
	if !slices.Equal(left, wantLeft) {
		t.Errorf("still holding it: %v, want %v", left, wantLeft)
	}
	if _, err := os.Stat(p.Path(".git/devlearn/objects/12/3456")); err != nil {
		t.Error("a kept copy without the secret was deleted")
	}

	// The manifest follows the scrubbed artifacts, but not an artifact a
	// person had already edited.
	man, _, err := manifest.Load(p.Path(project.ManifestFile), p.Root)
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := os.ReadFile(p.Path(project.CommandsDir + "/deploy.md"))
	if e := man.Get("obs_cccccccccccc"); !contenthash.Matches(e.ContentHash, cmd) {
		t.Error("the command's hash was not updated")
	}
	dec, _ := os.ReadFile(p.Path(project.DecisionsFile))
	if e, sec := man.Get("obs_aaaaaaaaaaaa"), knowfile.Parse(knowfile.Decisions, dec).BySource("obs_aaaaaaaaaaaa"); e.ContentHash != sec.Hash() {
		t.Error("the ADR section's hash was not updated")
	}
	if e := man.Get("obs_bbbbbbbbbbbb"); e.ContentHash != "0000" {
		t.Error("a person's edit was hidden from reconcile")
	}

	// The audit log records both, and nothing that was replaced was kept.
	entries, problems, err := evolve.ReadLog(p)
	if err != nil || len(problems) > 0 || len(entries) != 3 {
		t.Fatalf("audit log: %d entries, %v, %v", len(entries), problems, err)
	}
	if !strings.Contains(entries[0].Reason.Text, "render [REDACTED:literal]") {
		t.Errorf("old entry: %q", entries[0].Reason.Text)
	}
	for _, fc := range entries[1].Files {
		if fc.Path == project.ManifestFile {
			continue
		}
		if _, err := os.Stat(w.ObjectPath(fc.Before)); err == nil {
			t.Errorf("%s: the scrubbed content was kept", fc.Path)
		}
	}

	// Running it again finds only what it must leave.
	again, err := Run(context.Background(), Options{Proj: p, Match: m, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again.Found {
		if f.Action != Reported {
			t.Errorf("second run: %+v", f)
		}
	}
	if len(again.Entries) != 0 {
		t.Errorf("second run wrote %v", again.Entries)
	}
	_ = files
}

func TestRunWaitsForTheLogLock(t *testing.T) {
	p, _ := fixture(t)
	unlock, err := jsonl.Lock(context.Background(), p.LockPath(project.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, err = Run(context.Background(), Options{Proj: p, Match: literal(t, secret), Writer: evolve.New(p, now, evolve.Trigger{Command: "redact"}), LockWait: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "in use by another devlearn process (waited 50ms); nothing was changed") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(p.Path(project.LogFile)); !strings.Contains(string(b), secret) {
		t.Fatal("the log was rewritten without its lock")
	}
}

func TestRunNothingFound(t *testing.T) {
	p, _ := fixture(t)
	res, err := Run(context.Background(), Options{Proj: p, Match: literal(t, "not-there-anywhere"), Writer: evolve.New(p, now, evolve.Trigger{Command: "redact"})})
	if err != nil || len(res.Found) != 0 || res.Total != 0 || len(res.Entries) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

// A bulk batch keeps its copies in one pack (evolve): redact finds and
// deletes them copy by copy, as loose ones, and leaves the others kept.
func TestRunDealsWithPackedCopiesOneByOne(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	var changes, clean []evolve.Change
	for i := range 100 {
		body := "note " + strings.Repeat("n", i) + "\n"
		if i%40 == 0 {
			body += "the key " + secret + "\n"
		}
		changes = append(changes, evolve.Change{Path: "notes/" + strings.Repeat("n", i+1) + ".md", Data: []byte(body)})
		clean = append(clean, evolve.Change{Path: "other/" + strings.Repeat("o", i+1) + ".md", Data: []byte(body[:5+i] + "\n")})
	}
	w := evolve.New(p, now.Add(-time.Hour), evolve.Trigger{Command: "test"})
	var hashes []string
	for _, batch := range [][]evolve.Change{changes, clean} {
		e, err := w.Apply(context.Background(), evolve.Reason{Text: "bulk"}, batch...)
		if err != nil {
			t.Fatal(err)
		}
		for _, fc := range e.Files {
			hashes = append(hashes, fc.After)
		}
	}
	packs, _ := evolve.Packs(p)
	if len(packs) != 2 {
		t.Fatalf("packs %v, want one per batch", packs)
	}
	// The copies stay readable once the files are gone.
	for _, c := range append(changes, clean...) {
		os.Remove(p.Path(c.Path))
	}
	secretCopies := []string{}
	for _, c := range changes {
		if strings.Contains(string(c.Data), secret) {
			secretCopies = append(secretCopies, filepath.ToSlash(must(p.Rel(evolve.ObjectPath(p, evolve.BlobHash(c.Data))))))
		}
	}
	slices.Sort(secretCopies)

	for _, dry := range []bool{true, false} {
		res, err := Run(context.Background(), Options{Proj: p, Match: literal(t, secret), Writer: evolve.New(p, now, evolve.Trigger{Command: "redact"}), DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, f := range res.Found {
			if strings.Contains(f.Path, "/objects/") {
				found = append(found, f.Path)
				if f.Count != 1 || !slices.Equal(f.Lines, []int{2}) || !strings.Contains(f.Action, Deleted) || f.Note != keptCopyNote {
					t.Errorf("dry %v: %+v", dry, f)
				}
			}
		}
		if !slices.Equal(found, secretCopies) {
			t.Fatalf("dry %v: found %v, want %v", dry, found, secretCopies)
		}
		after, _ := evolve.Packs(p)
		if dry && !slices.Equal(after, packs) {
			t.Fatalf("a dry run changed the packs: %v", after)
		}
		if !dry && (len(after) != 1 || !slices.Contains(packs, after[0])) {
			t.Fatalf("packs after: %v, want only the one of %v without a match", after, packs)
		}
	}
	if left := holders(t, p.StateDir()); len(left) != 0 {
		t.Fatalf("still holding it: %v", left)
	}
	kept := 0
	for _, h := range hashes {
		data, ok, err := evolve.Content(p, "gone.md", h)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			kept++
			if strings.Contains(string(data), secret) {
				t.Fatalf("%s still kept", h)
			}
		}
	}
	if kept != len(hashes)-len(secretCopies) {
		t.Fatalf("%d copies kept, want %d", kept, len(hashes)-len(secretCopies))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
