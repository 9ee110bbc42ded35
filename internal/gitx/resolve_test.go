package gitx

import (
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
)

// learnedBranches builds a repository where main and task/x each rendered
// a new ADR-002 and logged events, and returns the three versions of each
// file as the driver would see them.
func learnedBranches(t *testing.T) (g *gitRepo, base, ours, theirs map[string]string) {
	t.Helper()
	g = newGitRepo(t)
	dec, log, man := ".memory/knowledge/decisions.md", ".memory/learning-log.jsonl", ".memory/.learning-manifest.json"
	a1 := adr(1, "A", "obs_a", "2026-05-01")
	entry := func(id, anchor, body, at string) manifest.Entry {
		return manifest.Entry{ObservationID: id, Type: "decision", Path: dec, ContentHash: knowfile.HashText(body), RenderedAt: at, AnchorID: anchor}
	}
	o2, t2 := adr(2, "Ours", "obs_o", "2026-05-03"), adr(2, "Theirs", "obs_t", "2026-05-02")
	base = map[string]string{
		dec: string(decisions(a1)),
		log: "{\"op\":\"observe\",\"eid\":\"e1\"}\n",
		man: string(entryJSON(entry("obs_a", "ADR-001", a1, "2026-05-01T00:00:00Z"))),
	}
	ours = map[string]string{
		dec: string(decisions(a1, o2)),
		log: base[log] + "{\"op\":\"observe\",\"eid\":\"o\"}\n",
		man: string(entryJSON(entry("obs_a", "ADR-001", a1, "2026-05-01T00:00:00Z"), entry("obs_o", "ADR-002", o2, "2026-05-03T00:00:00Z"))),
	}
	theirs = map[string]string{
		dec: string(decisions(a1, t2)),
		log: base[log] + "{\"op\":\"observe\",\"eid\":\"t\"}\n",
		man: string(entryJSON(entry("obs_a", "ADR-001", a1, "2026-05-01T00:00:00Z"), entry("obs_t", "ADR-002", t2, "2026-05-02T00:00:00Z"))),
	}
	files := func(m map[string]string) []string {
		var out []string
		for _, p := range []string{dec, log, man} {
			out = append(out, p, m[p])
		}
		return out
	}
	g.commit(g.dir, "base", append(files(base), ".gitattributes", GitAttributes())...)
	g.git("branch", "task/x")
	g.commit(g.dir, "ours", files(ours)...)
	g.git("checkout", "-q", "task/x")
	g.commit(g.dir, "theirs", files(theirs)...)
	g.git("checkout", "-q", "main")
	return g, base, ours, theirs
}

// A merge without the driver (no config for it: git's line merge) leaves
// conflicts; Resolve makes from git's index exactly what the driver makes,
// stages it, and settles the manifest's anchors.
func TestResolveFromIndex(t *testing.T) {
	g, base, ours, theirs := learnedBranches(t)
	if _, err := g.tryGitIn(g.dir, "merge", "-q", "--no-edit", "task/x"); err == nil {
		t.Fatal("git's line merge should conflict")
	}
	if u := g.git("ls-files", "-u"); !strings.Contains(u, "decisions.md") || !strings.Contains(u, "learning-log.jsonl") {
		t.Fatalf("unmerged:\n%s", u)
	}
	res, err := Resolve(bg, ResolveOptions{Dir: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unresolved()) != 0 || res.StageHint != "" || len(res.Unstaged) != 0 {
		t.Fatalf("%+v", res)
	}
	for _, p := range []string{".memory/knowledge/decisions.md", ".memory/learning-log.jsonl"} {
		want := MergeFile(p, []byte(base[p]), []byte(ours[p]), []byte(theirs[p])).Data
		if got := g.read(g.dir, p); got != string(want) {
			t.Errorf("%s:\n%s\nwant\n%s", p, got, want)
		}
	}
	// ADR-002 went to the earlier (theirs, 05-02); ours' became ADR-003,
	// and the manifest follows, hash included (a pure renumbering).
	if !slices.Equal(res.Anchors, []Reanchored{{ObservationID: "obs_o", Path: ".memory/knowledge/decisions.md", From: "ADR-002", To: "ADR-003", HashFollowed: true}}) {
		t.Fatalf("anchors %+v", res.Anchors)
	}
	m, _, err := manifest.Parse([]byte(g.read(g.dir, ".memory/.learning-manifest.json")), g.dir)
	if err != nil {
		t.Fatal(err)
	}
	d := knowfile.Parse(knowfile.Decisions, []byte(g.read(g.dir, ".memory/knowledge/decisions.md")))
	for _, e := range m.Entries {
		s := d.BySource(e.ObservationID)
		if s == nil || s.Anchor != e.AnchorID || s.Hash() != e.ContentHash {
			t.Errorf("manifest entry %+v does not match its section", e)
		}
	}
	if u := g.git("ls-files", "-u"); u != "" {
		t.Fatalf("still unmerged:\n%s", u)
	}
	if st := g.status(g.dir); strings.Contains(st, "UU") || strings.Contains(st, "??") || strings.Contains(st, " M") {
		t.Fatalf("status after resolve:\n%s", st)
	}
	g.git("commit", "-q", "--no-edit")
	g.checkRepo("main")

	// Run again: nothing left to do.
	res, err = Resolve(bg, ResolveOptions{Dir: g.dir})
	if err != nil || len(res.Files) != 0 || len(res.Anchors) != 0 || len(res.Written) != 0 {
		t.Fatalf("second run: %+v %v", res, err)
	}
}

// A file committed with its conflict markers (no record of the conflict
// left in git) is merged from the sides its markers hold.
func TestResolveFromMarkers(t *testing.T) {
	g, base, ours, theirs := learnedBranches(t)
	p := ".memory/knowledge/decisions.md"
	marked, clean := MergeTextMarked([]byte(base[p]), []byte(ours[p]), []byte(theirs[p]), 0)
	if clean {
		t.Fatal("want markers")
	}
	g.commit(g.dir, "merged on a web page, markers and all", p, string(marked))
	res, err := Resolve(bg, ResolveOptions{Dir: g.dir, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].From != FromMarkers || !res.Files[0].Clean || g.read(g.dir, p) != string(marked) {
		t.Fatalf("dry run: %+v", res)
	}
	res, err = Resolve(bg, ResolveOptions{Dir: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	want := MergeFile(p, []byte(base[p]), []byte(ours[p]), []byte(theirs[p])).Data
	if got := g.read(g.dir, p); got != string(want) {
		t.Fatalf("from markers:\n%s\nwant\n%s", got, want)
	}
	if !slices.Contains(res.Unstaged, p) || res.Files[0].Staged {
		t.Fatalf("%+v", res)
	}
}

// A knowledge file a person rewrote is left in conflict, with the reason.
func TestResolveLeavesARewrite(t *testing.T) {
	g := newGitRepo(t)
	p := ".memory/knowledge/decisions.md"
	a1 := adr(1, "A", "obs_a", "2026-05-01")
	g.commit(g.dir, "base", p, string(decisions(a1)), ".gitattributes", GitAttributes())
	g.git("branch", "task/x")
	g.commit(g.dir, "rewrite", p, "# Decisions\n\n## Background\n\nWe keep config in JSON. That is all.\n")
	g.git("checkout", "-q", "task/x")
	g.commit(g.dir, "learn", p, string(decisions(a1, adr(2, "B", "obs_b", "2026-05-02"))))
	g.git("checkout", "-q", "main")
	if _, err := g.tryGitIn(g.dir, "merge", "-q", "--no-edit", "task/x"); err == nil {
		t.Fatal("want a conflict")
	}
	before := g.read(g.dir, p)
	res, err := Resolve(bg, ResolveOptions{Dir: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Unresolved(), []string{p}) || res.Files[0].Reason != `ours is not in devlearn's format: "## Background" is not a numbered entry (## ADR-NNN: title); both sides changed the same lines` || g.read(g.dir, p) != before {
		t.Fatalf("%+v", res)
	}
	if u := g.git("ls-files", "-u"); u == "" {
		t.Fatal("the conflict must stay recorded")
	}
}

// devlearn merge takes the same merges: renumbered like the driver, and a
// conflict by meaning refuses the merge with its reason.
func TestMergeUsesTheDriversMerges(t *testing.T) {
	g, base, ours, theirs := learnedBranches(t)
	res, err := Merge(bg, g.opts("task/x"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".memory/knowledge/decisions.md", ".memory/learning-log.jsonl", ".memory/.learning-manifest.json"} {
		want := Drive(p, []byte(base[p]), []byte(ours[p]), []byte(theirs[p]), 0)
		if !want.Clean || g.git("show", "main:"+p)+"\n" != string(want.Data) {
			t.Errorf("%s differs from the driver's merge", p)
		}
	}
	if !slices.Contains(res.Paths, PathResult{Path: ".memory/knowledge/decisions.md", How: MergedByRule}) {
		t.Fatalf("paths %+v", res.Paths)
	}

	p := ".memory/knowledge/decisions.md"
	a1 := adr(1, "A", "obs_a", "2026-05-01")
	g.git("checkout", "-q", "-b", "clash", "main~1")
	g.commit(g.dir, "by hand", p, string(decisions(a1, adr(2, "Ours", "obs_o", "2026-05-03"), adr(3, "Mine", "", "2026-05-04"))))
	g.git("checkout", "-q", "-b", "task/y", "task/x")
	g.commit(g.dir, "learned", p, string(decisions(a1, adr(2, "Theirs", "obs_t", "2026-05-02"), adr(3, "Learned", "obs_l", "2026-05-04"))))
	g.git("checkout", "-q", "clash")
	opts := g.opts("task/y")
	opts.Into = "clash"
	res, err = Merge(bg, opts)
	mustRefused(t, err)
	if len(res.Conflicts) != 1 || res.Conflicts[0] != (Conflict{Path: p, Reason: "ADR-003 is used by a hand-written entry and by another entry; renumber one of them by hand"}) {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
}

// With other paths still in conflict, resolve writes devlearn's files but
// leaves staging to git, and names what to add.
func TestResolveWithOtherConflicts(t *testing.T) {
	g, _, _, _ := learnedBranches(t)
	g.commit(g.dir, "ours code", "app.txt", "ours\n")
	g.git("checkout", "-q", "task/x")
	g.commit(g.dir, "theirs code", "app.txt", "theirs\n")
	g.git("checkout", "-q", "main")
	if _, err := g.tryGitIn(g.dir, "merge", "-q", "--no-edit", "task/x"); err == nil {
		t.Fatal("want conflicts")
	}
	res, err := Resolve(bg, ResolveOptions{Dir: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Other, []string{"app.txt"}) || res.StageHint != "other paths are still in conflict" || len(res.Unstaged) != 3 || len(res.Unresolved()) != 0 {
		t.Fatalf("%+v", res)
	}
	u := g.git("ls-files", "-u")
	if !strings.Contains(u, "app.txt") || !strings.Contains(u, "decisions.md") {
		t.Fatalf("the index must be as git left it:\n%s", u)
	}
	if HasMarkers([]byte(g.read(g.dir, ".memory/knowledge/decisions.md"))) {
		t.Fatal("decisions.md not resolved on disk")
	}
	g.write(g.dir, "app.txt", "both\n")
	g.git("add", "app.txt", ".memory")
	g.git("commit", "-q", "--no-edit")
	g.checkRepo("main")
}
