package reconcile

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/handover"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/stamp"
)

// handOver hands over every file artifact of p with the hash its manifest
// records, as a render that wrote them does at its end.
func handOver(t *testing.T, p *project.Project) {
	t.Helper()
	m, _, err := manifest.LoadProject(p)
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]handover.Written{}
	for _, e := range m.Entries {
		if e.AnchorID == "" {
			written[e.Path] = handover.Written{Hash: e.ContentHash, Stamp: stamp.Of(p.Path(e.Path))}
		}
	}
	handover.Write(p, written)
}

func fullRun(t *testing.T, p *project.Project) *Result {
	t.Helper()
	r := &Reconciler{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, benchNow, evolve.Trigger{Command: "test"}),
		Opts:   Options{Now: benchNow, Config: config.Default(), Full: true},
	}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// editInPlace changes one byte of rel where it is (same inode, same size)
// and sets its mtime back: a write in the same clock tick as the last one.
func editInPlace(t *testing.T, p *project.Project, rel string) {
	t.Helper()
	path := p.Path(rel)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	data[len(data)-3] ^= 1
	f, _ := os.OpenFile(path, os.O_WRONLY, 0)
	f.WriteAt(data, 0)
	f.Close()
	os.Chtimes(path, st.ModTime(), st.ModTime())
	if after, _ := os.Stat(path); after.ModTime() != st.ModTime() || after.Size() != st.Size() {
		t.Fatal("the stamp was not kept")
	}
}

// A file the render wrote in the last tick before it took the stamps is
// racy and not handed over: a same-size write in that tick, right after
// the render, keeps the stamp, and reconcile still reads it and sees it.
func TestHandOverRacyEditIsCaught(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	racy := project.CommandsDir + "/lesson-0.md"
	// Written in the tick the stamps are taken: an mtime at (or, for a
	// clock tick that comes late, after) the hand-over's time.
	soon := time.Now().Add(time.Second)
	os.Chtimes(p.Path(racy), soon, soon)
	handOver(t, p)
	f := handover.Load(p)
	if f.Has(racy) || !f.Has(project.CommandsDir+"/lesson-4.md") {
		t.Fatal("the racy file is handed over, or the settled one is not")
	}
	editInPlace(t, p, racy)
	if r := quickRun(t, p); r.Edits != 1 || r.Unchanged != 7 {
		t.Fatalf("the same-tick edit was not seen: %+v", r)
	}
}

// A handed-over file whose stamp is unchanged is not read: its hash is the
// render's. The content below is changed with its stamp set back, which
// no write after the hand-over can do (its mtime was settled): only a
// reconcile that did not read the file misses it.
func TestHandOverSparesTheReads(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	handOver(t, p)
	editInPlace(t, p, project.CommandsDir+"/lesson-4.md")
	if r := fullRun(t, p); r.Edits != 0 || r.Unchanged != 8 {
		t.Fatalf("the handed-over file was read: %+v", r)
	}
	// Its proof for the quiet-run cache is the stamp.
	if line := cacheLine(t, p, project.CommandsDir+"/lesson-4.md"); !strings.HasPrefix(line, "s ") {
		t.Fatalf("proved by %q", line)
	}
	os.Remove(handover.Path(p))
	if r := fullRun(t, p); r.Edits != 1 {
		t.Fatalf("without the hand-over the file must be read: %+v", r)
	}
}

// A missing, damaged, foreign or stale hand-over changes nothing but
// speed: the answer is the one given without any.
func TestHandOverChangesNothingButSpeed(t *testing.T) {
	lesson0, lesson1 := project.CommandsDir+"/lesson-0.md", project.SkillsDir+"/lesson-1/SKILL.md"
	changes := func(p *project.Project) {
		os.WriteFile(p.Path(lesson0), []byte("a person's own version\n"), 0o644)
		os.Remove(p.Path(lesson1))
	}
	variants := map[string]func(t *testing.T, p *project.Project){
		"none": func(*testing.T, *project.Project) {},
		"stale: the files changed after it": func(t *testing.T, p *project.Project) {
			handOver(t, p)
		},
		"damaged": func(t *testing.T, p *project.Project) {
			handOver(t, p)
			data, _ := os.ReadFile(handover.Path(p))
			i := strings.Index(string(data), "lesson-4")
			data[i-2] ^= 1 // a hash's last digit
			os.WriteFile(handover.Path(p), data, 0o644)
		},
		"cut short": func(t *testing.T, p *project.Project) {
			handOver(t, p)
			data, _ := os.ReadFile(handover.Path(p))
			os.WriteFile(handover.Path(p), data[:len(data)/2], 0o644)
		},
		"another version": func(t *testing.T, p *project.Project) {
			handOver(t, p)
			data, _ := os.ReadFile(handover.Path(p))
			os.WriteFile(handover.Path(p), []byte(strings.Replace(string(data), "devlearn-handover 1", "devlearn-handover 9", 1)), 0o644)
		},
		"another project's": func(t *testing.T, p *project.Project) {
			other := benchProjectT(t, 8)
			os.WriteFile(p.Path(project.CommandsDir+"/lesson-4.md"), []byte("not the other project's lesson\n"), 0o644)
			age(t, other.Root)
			age(t, p.Root)
			handOver(t, other)
			data, _ := os.ReadFile(handover.Path(other))
			os.MkdirAll(p.StatePath("cache", p.WorktreeID()), 0o755)
			os.WriteFile(handover.Path(p), data, 0o644)
		},
	}
	var want *Result
	for _, name := range []string{"none", "stale: the files changed after it", "damaged", "cut short", "another version", "another project's"} {
		p := benchProjectT(t, 8)
		age(t, p.Root)
		variants[name](t, p)
		changes(p)
		got := fullRun(t, p)
		if name == "another project's" {
			// Its own edit on top: the other project's hand-over must
			// not hide it (its stamps are the other files').
			if got.Edits != 2 {
				t.Fatalf("%s: %+v", name, got)
			}
			continue
		}
		if want == nil {
			want = got
			if want.Edits != 1 || want.Deletions != 1 {
				t.Fatalf("without a hand-over: %+v", want)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
}

// The stamps a run judged handed-over files by are their proofs in the
// quiet-run cache, kept without stamping the files again: the next run is
// answered from the cache, and a write to one of them since is seen.
func TestHandOverProofsInTheCache(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	handOver(t, p)
	if r := fullRun(t, p); r.Unchanged != 8 {
		t.Fatalf("%+v", r)
	}
	if r := cached(p, benchNow, config.Default(), time.Now()); r == nil || r.Unchanged != 8 {
		t.Fatalf("the cache must answer: %+v", r)
	}
	os.WriteFile(p.Path(project.CommandsDir+"/lesson-4.md"), []byte("a person's version\n"), 0o644)
	if r := cached(p, benchNow, config.Default(), time.Now()); r != nil {
		t.Fatalf("the cache hid a write to a handed-over file: %+v", r)
	}
	if r := quickRun(t, p); r.Edits != 1 {
		t.Fatalf("the write was not seen: %+v", r)
	}
}
