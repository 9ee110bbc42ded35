package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
)

// crashBinary builds devlearn with the devlearn_crash tag, whose
// crashpoints can stop the process dead (exit 137, like kill -9).
func crashBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the crash test uses POSIX process exits")
	}
	bin, err := buildCrashBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var crashBuild struct {
	once sync.Once
	bin  string
	err  error
}

// buildCrashBinary builds the crash binary once per test process, for the
// crash tests and the scripts' crash command. A binary built already (go
// build -tags devlearn_crash), named by $DEVLEARN_CRASH_BINARY, saves the
// build when iterating on one test.
func buildCrashBinary() (string, error) {
	crashBuild.once.Do(func() {
		if bin := os.Getenv("DEVLEARN_CRASH_BINARY"); bin != "" {
			crashBuild.bin = bin
			return
		}
		dir, err := os.MkdirTemp("", "devlearn-crash-")
		if err != nil {
			crashBuild.err = err
			return
		}
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		bin := filepath.Join(dir, "devlearn-crash")
		out, err := exec.Command(goBin, "build", "-tags", "devlearn_crash", "-o", bin, ".").CombinedOutput()
		if err != nil {
			crashBuild.err = fmt.Errorf("building the crash binary: %v\n%s", err, out)
			return
		}
		crashBuild.bin = bin
	})
	return crashBuild.bin, crashBuild.err
}

// The log the crash test renders: one ready observation of every type,
// two decisions so one run adds two sections, and a hand-written ADR-001
// that must survive everything.
const crashLog = `{"op":"observe","eid":"a1","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_1afc0f9bd06a","type":"workflow","pattern":"Cut a release: bump the version, update the changelog, tag","details":"Run scripts/release.sh","quality_ok":true}
{"op":"observe","eid":"a2","at":"2026-05-08T09:00:00Z","src":"s2","id":"obs_1afc0f9bd06a","type":"workflow","pattern":"Cut a release: bump the version, update the changelog, tag","quality_ok":true}
{"op":"observe","eid":"b1","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_c7b7a16d710f","type":"procedural","pattern":"Run the API tests before changing server routes","quality_ok":true}
{"op":"promote","eid":"b2","at":"2026-05-05T09:00:00Z","src":"user","id":"obs_c7b7a16d710f"}
{"op":"observe","eid":"c1","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_dcf334774def","type":"decision","pattern":"Keep configuration in plain JSON files","details":"context: a; decision: b; rationale: c","quality_ok":true}
{"op":"observe","eid":"c2","at":"2026-05-05T09:00:00Z","src":"s2","id":"obs_dcf334774def","type":"decision","pattern":"Keep configuration in plain JSON files","quality_ok":true}
{"op":"observe","eid":"d1","at":"2026-05-04T10:00:00Z","src":"s1","id":"obs_c38520d84087","type":"decision","pattern":"Use the event log for every learned fact","quality_ok":true}
{"op":"observe","eid":"d2","at":"2026-05-05T10:00:00Z","src":"s2","id":"obs_c38520d84087","type":"decision","pattern":"Use the event log for every learned fact","quality_ok":true}
{"op":"observe","eid":"e1","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_f8d7e6856637","type":"pitfall","pattern":"Bumping the version without a CHANGELOG.md entry","details":"area: CHANGELOG.md; issue: no entry","quality_ok":true}
{"op":"observe","eid":"e2","at":"2026-05-05T09:00:00Z","src":"s2","id":"obs_f8d7e6856637","type":"pitfall","pattern":"Bumping the version without a CHANGELOG.md entry","quality_ok":true}
`

const handADR = `# Architectural Decisions

## ADR-001: Use Go for the CLI

- **Date**: 2026-01-01
- **Status**: Accepted
- **Context**: written by hand
- **Decision**: Go
- **Consequences**: one binary
`

var crashIDs = []string{"obs_1afc0f9bd06a", "obs_c7b7a16d710f", "obs_dcf334774def", "obs_c38520d84087", "obs_f8d7e6856637"}

func newCrashRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, ".memory", "knowledge"), 0o755)
	os.WriteFile(filepath.Join(dir, ".memory", "learning-log.jsonl"), []byte(crashLog), 0o644)
	os.WriteFile(filepath.Join(dir, ".memory", "knowledge", "decisions.md"), []byte(handADR), 0o644)
	return dir
}

// crashThenRerun runs render-ready in dir killed at point, then once more
// to its end, as a person would after the crash.
func crashThenRerun(t *testing.T, bin, dir, point string) {
	t.Helper()
	if code, out := runCrash(t, bin, dir, "DEVLEARN_CRASH_AT="+point); code != 137 {
		t.Fatalf("crash run: exit %d, want 137\n%s", code, out)
	}
	if code, out := runCrash(t, bin, dir); code != 0 {
		t.Fatalf("rerun after the crash: exit %d\n%s", code, out)
	}
}

func runCrash(t *testing.T, bin, dir string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, "render-ready")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"DEVLEARN_NOW=2026-05-09T09:00:00Z", "DEVLEARN_HOME=" + filepath.Join(dir, ".git", "home")}, env...)...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// projectFiles is every file render writes, by relative path.
func projectFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sub := range []string{".claude", ".memory/knowledge", ".memory/.learning-manifest.json"} {
		filepath.Walk(filepath.Join(dir, sub), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				b, _ := os.ReadFile(p)
				out[filepath.ToSlash(rel)] = string(b)
			}
			return nil
		})
	}
	return out
}

// Render is stopped dead at every write point in turn, then run again.
// Whatever the point, the result must be exactly the result of a run that
// never crashed: no duplicate artifact, section, number or manifest entry,
// nothing lost, and an audit trail that accounts for every file.
func TestRenderCrashAtEveryWritePoint(t *testing.T) {
	bin := crashBinary(t)

	ref := newCrashRepo(t)
	trace := filepath.Join(t.TempDir(), "trace")
	if code, out := runCrash(t, bin, ref, "DEVLEARN_CRASH_TRACE="+trace); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, out)
	}
	want := projectFiles(t, ref)
	checkRendered(t, ref, want)
	b, _ := os.ReadFile(trace)
	points := strings.Fields(string(b))
	if len(points) < 8 {
		t.Fatalf("only %d write points traced: %v", len(points), points)
	}

	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			dir := newCrashRepo(t)
			crashThenRerun(t, bin, dir, point)
			if code, out := runCrash(t, bin, dir); code != 0 || !strings.Contains(out, "Nothing is ready") {
				t.Fatalf("third run should find nothing to do: exit %d\n%s", code, out)
			}
			got := projectFiles(t, dir)
			if !equalMaps(got, want) {
				t.Fatalf("after a crash at %s the files differ from a clean run:\n%s", point, diffMaps(got, want))
			}
			checkRendered(t, dir, got)
		})
	}
	t.Run("bulk", func(t *testing.T) { bulkRenderCrashKeepsItsPack(t, bin) })
}

// checkRendered verifies the invariants on their own terms, not only by
// comparison with the reference run.
func checkRendered(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	// One artifact per observation.
	bySource := map[string]int{}
	for path, body := range files {
		if strings.HasPrefix(path, ".claude/") {
			for _, id := range crashIDs {
				if strings.Contains(body, "source: self-learning:"+id) {
					bySource[id]++
				}
			}
		}
	}
	for _, f := range []struct {
		path string
		kind knowfile.Kind
	}{{".memory/knowledge/decisions.md", knowfile.Decisions}, {".memory/knowledge/pitfalls.md", knowfile.Pitfalls}} {
		doc := knowfile.Parse(f.kind, []byte(files[f.path]))
		numbers := map[int]bool{}
		for _, s := range doc.Sections {
			if numbers[s.Number] {
				t.Errorf("%s: %s appears twice", f.path, s.Anchor)
			}
			numbers[s.Number] = true
			if id := s.Source(); id != "" {
				bySource[id]++
			}
		}
	}
	for _, id := range crashIDs {
		if bySource[id] != 1 {
			t.Errorf("%s has %d artifacts, want 1", id, bySource[id])
		}
	}
	if !strings.Contains(files[".memory/knowledge/decisions.md"], "## ADR-001: Use Go for the CLI") {
		t.Error("the hand-written ADR-001 was lost")
	}
	// One manifest entry per observation, with the hash of what is on disk.
	man, _, err := manifest.Parse([]byte(files[".memory/.learning-manifest.json"]), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Entries) != len(crashIDs) {
		t.Errorf("manifest has %d entries, want %d", len(man.Entries), len(crashIDs))
	}
	for _, e := range man.Entries {
		content := files[e.Path]
		if e.AnchorID != "" {
			kind := knowfile.Decisions
			if strings.HasPrefix(e.AnchorID, "PF") {
				kind = knowfile.Pitfalls
			}
			s := knowfile.Parse(kind, []byte(content)).ByAnchor(e.AnchorID)
			if s == nil || s.Source() != e.ObservationID || s.Hash() != e.ContentHash {
				t.Errorf("manifest entry %+v does not match its section", e)
			}
		} else if !contenthash.Matches(e.ContentHash, []byte(content)) {
			t.Errorf("manifest entry %+v does not match its file", e)
		}
	}
	// The audit trail accounts for every file: replaying it ends at what is
	// on disk.
	lines, _ := os.ReadFile(filepath.Join(dir, ".memory", "evolution", "log.jsonl"))
	last := map[string]string{}
	for _, l := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		var e evolve.Entry
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("audit log line %q: %v", l, err)
		}
		for _, f := range e.Files {
			if prev, ok := last[f.Path]; ok && prev != f.Before {
				t.Errorf("audit log: %s changes from %s but was left at %s", f.Path, f.Before, prev)
			}
			last[f.Path] = f.After
		}
	}
	for path, body := range files {
		if last[path] != evolve.BlobHash([]byte(body)) {
			t.Errorf("audit log says %s is %s, disk has %s", path, last[path], evolve.BlobHash([]byte(body)))
		}
	}
	// No temporary file left behind.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".devlearn-tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diffMaps(got, want map[string]string) string {
	var keys []string
	seen := map[string]bool{}
	for k := range got {
		keys, seen[k] = append(keys, k), true
	}
	for k := range want {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if got[k] != want[k] {
			fmt.Fprintf(&b, "== %s\n-- got:\n%s\n-- want:\n%s\n", k, got[k], want[k])
		}
	}
	return b.String()
}

// bulkCrashLog is 70 ready workflow lessons (the devflow format): a batch
// large enough to keep its copies in one pack.
func bulkCrashLog() string {
	var b strings.Builder
	for i := range 70 {
		fmt.Fprintf(&b, `{"confidence":0.95,"details":"area: scripts/%d","evidence":["user: again"],"first_seen":"2026-04-01T00:00:00Z","id":"obs_%08x","last_seen":"2026-04-09T00:00:00Z","observations":4,"pattern":"Lesson number %d about the build scripts","quality_ok":true,"status":"ready","type":"workflow"}`+"\n", i, i, i)
	}
	return b.String()
}

// A bulk render is stopped dead at the first and last pass of each of its
// write points, the pack of its kept copies among them, then run again:
// the files are those of a run that never crashed, and every content the
// audit log names is kept whole (in the one pack), for history and revert.
// (A part of TestRenderCrashAtEveryWritePoint, which builds the binary.)
func bulkRenderCrashKeepsItsPack(t *testing.T, bin string) {
	newRepo := func(t *testing.T) string {
		dir := t.TempDir()
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		os.MkdirAll(filepath.Join(dir, ".memory"), 0o755)
		os.WriteFile(filepath.Join(dir, ".memory", "learning-log.jsonl"), []byte(bulkCrashLog()), 0o644)
		return dir
	}
	ref := newRepo(t)
	trace := filepath.Join(t.TempDir(), "trace")
	if code, out := runCrash(t, bin, ref, "DEVLEARN_CRASH_TRACE="+trace); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, out)
	}
	want := projectFiles(t, ref)
	b, _ := os.ReadFile(trace)
	first, last := map[string]string{}, map[string]string{}
	var names []string
	for _, id := range strings.Fields(string(b)) {
		name, _, _ := strings.Cut(id, "#")
		if _, ok := first[name]; !ok {
			first[name] = id
			names = append(names, name)
		}
		last[name] = id
	}
	if _, ok := first["evolve:packed"]; !ok {
		t.Fatalf("the bulk render packed nothing: %v", names)
	}
	var points []string
	for _, name := range names {
		points = append(points, first[name])
		if last[name] != first[name] {
			points = append(points, last[name])
		}
	}
	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			dir := newRepo(t)
			crashThenRerun(t, bin, dir, point)
			if got := projectFiles(t, dir); !equalMaps(got, want) {
				t.Fatalf("after a crash at %s the files differ from a clean run:\n%s", point, diffMaps(got, want))
			}
			p, err := project.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			entries, _, err := evolve.ReadLog(p)
			if err != nil || len(entries) == 0 {
				t.Fatalf("audit log: %d entries, %v", len(entries), err)
			}
			for _, e := range entries {
				for _, fc := range e.Files {
					for _, h := range []string{fc.Before, fc.After} {
						// Not the file itself: the kept copy.
						if _, ok, err := evolve.Content(p, "not-a-file", h); err != nil || !ok {
							t.Errorf("%s: %s of %s is not kept (%v)", e.ID, h, fc.Path, err)
						}
					}
				}
			}
			if packs, err := evolve.Packs(p); err != nil || len(packs) != 1 {
				t.Errorf("packs %v %v, want the one", packs, err)
			}
		})
	}
}
