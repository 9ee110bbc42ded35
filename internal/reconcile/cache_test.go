package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// age makes every file of the project old, as it is between two sessions,
// so that the quiet-run cache trusts their fingerprints.
func age(t *testing.T, root string) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func quickRun(t *testing.T, p *project.Project) *Result {
	t.Helper()
	r := &Reconciler{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, benchNow, evolve.Trigger{Command: "test"}),
		Opts:   Options{Now: benchNow, Config: config.Default()},
	}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The cache may only ever save time: every change it could hide must still
// be found.
func TestQuietRunCacheNeverHidesAChange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(p *project.Project) // before the files are aged
		change func(p *project.Project)
		check  func(r *Result) bool
	}{
		{"same-size edit of a file", nil, func(p *project.Project) {
			path := p.Path(project.CommandsDir + "/lesson-0.md")
			b, _ := os.ReadFile(path)
			b[len(b)-3] = 'X'
			os.WriteFile(path, b, 0o644)
		}, func(r *Result) bool { return r.Edits == 1 }},
		{"deleted file", nil, func(p *project.Project) { os.Remove(p.Path(project.SkillsDir + "/lesson-1/SKILL.md")) },
			func(r *Result) bool { return r.Deletions == 1 }},
		{"deleted section", nil, func(p *project.Project) {
			b, _ := os.ReadFile(p.Path(project.PitfallsFile))
			os.WriteFile(p.Path(project.PitfallsFile), b[:len(b)/2], 0o644)
		}, func(r *Result) bool { return r.Deletions > 0 }},
		{"referenced folder gone", nil, func(p *project.Project) { os.RemoveAll(p.Path("src")) },
			func(r *Result) bool { return r.Stale > 0 }},
		{"orphan added", nil, func(p *project.Project) {
			os.WriteFile(p.Path(project.CommandsDir+"/new.md"), []byte("---\nsource: self-learning:obs_x\n---\n"), 0o644)
		}, func(r *Result) bool { return len(r.Details) == 1 && r.Details[0].What == "orphan" }},
		// An orphan left alone is part of the answer: what its file says
		// must be read again when it changes, though its folder does not.
		{"orphan edited in place", func(p *project.Project) {
			os.WriteFile(p.Path(project.CommandsDir+"/new.md"), []byte("---\nsource: self-learning:obs_x\n---\n"), 0o644)
		}, func(p *project.Project) {
			os.WriteFile(p.Path(project.CommandsDir+"/new.md"), []byte("---\nsource: self-learning:obs_y\n---\n"), 0o644)
		}, func(r *Result) bool { return len(r.Details) == 1 && r.Details[0].ID == "obs_y" }},
		// A skill file appearing in a folder that was already there changes
		// no listing reconcile reads: the file itself is watched.
		{"skill file added to an empty skill folder", func(p *project.Project) {
			os.MkdirAll(p.Path(project.SkillsDir+"/new"), 0o755)
		}, func(p *project.Project) {
			os.WriteFile(p.Path(project.SkillsDir+"/new/SKILL.md"), []byte("---\nsource: self-learning:obs_x\n---\n"), 0o644)
		}, func(r *Result) bool { return len(r.Details) == 1 && r.Details[0].What == "orphan" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := benchProjectT(t, 8)
			if tc.setup != nil {
				tc.setup(p)
			}
			age(t, p.Root)
			if r := quickRun(t, p); r.Unchanged != 8 {
				t.Fatalf("first run %+v", r)
			}
			if _, err := os.Stat(cachePath(p)); err != nil {
				t.Fatal("a quiet run on old files must leave the cache")
			}
			if r := cached(p, benchNow, config.Default(), time.Now()); r == nil || r.Unchanged != 8 {
				t.Fatalf("the cache must answer the next run: %+v", r)
			}
			tc.change(p)
			if r := quickRun(t, p); !tc.check(r) {
				t.Fatalf("the change was hidden: %+v", r)
			}
		})
	}
}

// The config (the project's file or the global one) sets the thresholds of
// adoption and staleness: under other thresholds the cache must not answer.
func TestQuietRunCacheFollowsTheConfig(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	quickRun(t, p)
	if cached(p, benchNow, config.Default(), time.Now()) == nil {
		t.Fatal("the cache must answer the next run")
	}
	lower := config.Default()
	th := lower.Thresholds.Workflow
	th.Required--
	lower.Thresholds.Workflow = th
	if r := cached(p, benchNow, lower, time.Now()); r != nil {
		t.Fatalf("the cache answered under other thresholds: %+v", r)
	}
}

// Right after a render wrote the artifacts, they are racy: the run that
// checks them keeps the hash of what it read, and the next run is answered
// from the cache after comparing their content, not their stamps alone.
func TestQuietRunCacheRightAfterAWrite(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	fresh := p.Path(project.CommandsDir + "/lesson-0.md")
	data, _ := os.ReadFile(fresh)
	os.WriteFile(fresh, data, 0o644) // rewritten the moment before the run
	// Its mtime is put where a write in the run's own tick leaves it: on a
	// loaded machine the run could otherwise start after the file had
	// settled (the window is the clock's tick on a file system that keeps
	// nanoseconds), and the cache would rightly trust it.
	soon := time.Now().Add(time.Second)
	os.Chtimes(fresh, soon, soon)
	if r := quickRun(t, p); r.Unchanged != 8 {
		t.Fatalf("first run %+v", r)
	}
	line := cacheLine(t, p, project.CommandsDir+"/lesson-0.md")
	if strings.Fields(line)[5] == "-" {
		t.Fatalf("the file written just before is trusted by its stamp: %q", line)
	}
	// The runs below start in the tick the file was written (a slow first
	// run would otherwise have let the file settle, after which no write
	// can keep its stamp, and the cache rightly trusts it).
	st, _ := os.Stat(fresh)
	inTick := st.ModTime()
	if r := cached(p, benchNow, config.Default(), inTick); r == nil || r.Unchanged != 8 {
		t.Fatalf("the cache must answer the run right after a write: %+v", r)
	}

	// A same-size edit in the same tick keeps the stamp: size, inode and,
	// set back here, the mtime. Only the content tells.
	edited := append([]byte(nil), data...)
	edited[len(edited)-3] = 'X'
	f, _ := os.OpenFile(fresh, os.O_WRONLY, 0)
	f.WriteAt(edited, 0)
	f.Close()
	os.Chtimes(fresh, st.ModTime(), st.ModTime())
	if after, _ := os.Stat(fresh); after.ModTime() != st.ModTime() || after.Size() != st.Size() {
		t.Fatal("the stamp was not kept")
	}
	if r := cached(p, benchNow, config.Default(), inTick); r != nil {
		t.Fatalf("the cache hid a racy same-size edit: %+v", r)
	}
	if r := quickRun(t, p); r.Edits != 1 {
		t.Fatalf("the edit was not seen: %+v", r)
	}
}

// Once a racy file proved unchanged by its content is settled, the cache
// records it by its stamp, so that later runs stop reading it.
func TestQuietRunCacheSettlesRacyFiles(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	fresh := p.Path(project.CommandsDir + "/lesson-0.md")
	data, _ := os.ReadFile(fresh)
	os.WriteFile(fresh, data, 0o644)
	// Racy for any run started soon after, however loaded the machine: a
	// whole second's stamp, a second ahead, is racy for three (written
	// "just now", a run started a few milliseconds later would not be).
	ahead := time.Now().Truncate(time.Second).Add(time.Second)
	if err := os.Chtimes(fresh, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	quickRun(t, p)
	if strings.Fields(cacheLine(t, p, project.CommandsDir+"/lesson-0.md"))[5] == "-" {
		t.Fatal("not racy")
	}
	if r := cached(p, benchNow, config.Default(), time.Now().Add(time.Minute)); r == nil {
		t.Fatal("the cache must answer")
	}
	if line := cacheLine(t, p, project.CommandsDir+"/lesson-0.md"); strings.Fields(line)[5] != "-" {
		t.Fatalf("a settled file is still checked by content: %q", line)
	}
	if r := cached(p, benchNow, config.Default(), time.Now()); r == nil || r.Unchanged != 8 {
		t.Fatalf("the rewritten cache must answer: %+v", r)
	}
	os.WriteFile(fresh, append(data, '\n'), 0o644)
	if r := quickRun(t, p); r.Edits != 1 {
		t.Fatalf("an edit after settling was not seen: %+v", r)
	}
}

// A log written just before the run is racy and its bytes are judged by
// the fold, not by reconcile: no cache is kept, the next run checks. Its
// stamp is set a second ahead, which is racy for any run started before
// it: written "just before", a loaded machine could start the run after
// the racy window had passed.
func TestQuietRunCacheGivesUpOnARacyLog(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	data, _ := os.ReadFile(p.Path(project.LogFile))
	os.WriteFile(p.Path(project.LogFile), data, 0o644)
	ahead := time.Now().Add(time.Second)
	if err := os.Chtimes(p.Path(project.LogFile), ahead, ahead); err != nil {
		t.Fatal(err)
	}
	quickRun(t, p)
	if _, err := os.Stat(cachePath(p)); err == nil {
		t.Fatal("a cache was kept with the log racy")
	}
}

func cacheLine(t *testing.T, p *project.Project, name string) string {
	t.Helper()
	data, err := os.ReadFile(cachePath(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasSuffix(line, " "+name) {
			return line
		}
	}
	t.Fatalf("%s is not in the cache", name)
	return ""
}

// The cache is written without a sync: one cut short at a line's end (a
// crash) or damaged must not answer, as a shorter list of proofs would
// prove too little.
func TestQuietRunCacheCutOrDamagedDoesNotAnswer(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	quickRun(t, p)
	data, err := os.ReadFile(cachePath(p))
	if err != nil || cached(p, benchNow, config.Default(), time.Now()) == nil {
		t.Fatalf("the cache must answer: %v", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for name, bad := range map[string]string{
		"a proof cut off":   strings.Join(lines[:len(lines)-2], ""),
		"a byte changed":    strings.Replace(string(data), " 1 - ", " 0 - ", 1),
		"the checksum gone": strings.Replace(string(data), lines[0], strings.Join(strings.Fields(lines[0])[:4], " ")+"\n", 1),
		"an older version":  strings.Replace(string(data), cacheVersion, "devlearn-reconcile-cache 3", 1),
	} {
		if bad == string(data) {
			t.Fatalf("%s: nothing changed", name)
		}
		os.WriteFile(cachePath(p), []byte(bad), 0o644)
		if r := cached(p, benchNow, config.Default(), time.Now()); r != nil {
			t.Errorf("%s: the cache answered", name)
		}
	}
	os.Remove(cachePath(p))
	if r := quickRun(t, p); r.Unchanged != 8 {
		t.Fatalf("without the cache: %+v", r)
	}
}

// The quiet-run cache's config key changes with every leaf of the config
// (an answer given under another config is not this one's) and with
// nothing else: the same config, read twice, has the same key.
func TestConfigKeyFollowsEveryLeaf(t *testing.T) {
	base := configKey(config.Default())
	if configKey(config.Default()) != base {
		t.Fatal("the same config has two keys")
	}
	var paths []string
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() {
					walk(v.Field(i), path+"."+f.Name)
				}
			}
			return
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Float64:
			v.SetFloat(v.Float() + 0.5)
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		case reflect.Map:
			if v.IsNil() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			v.SetMapIndex(reflect.Zero(v.Type().Key()), reflect.Zero(v.Type().Elem()))
		default:
			t.Fatalf("%s: a %s in the config: teach appendValue and this test", path, v.Kind())
		}
		paths = append(paths, path)
	}
	// Each leaf changed alone, in a fresh default config.
	var leaves []string
	walk(reflect.ValueOf(config.Default()).Elem(), "")
	leaves, paths = paths, nil
	for i, leaf := range leaves {
		cfg := config.Default()
		n := 0
		var one func(v reflect.Value, path string)
		one = func(v reflect.Value, path string) {
			if v.Kind() == reflect.Struct {
				for j := range v.NumField() {
					if f := v.Type().Field(j); f.IsExported() {
						one(v.Field(j), path+"."+f.Name)
					}
				}
				return
			}
			if n++; n-1 == i {
				walk(v, path)
			}
		}
		one(reflect.ValueOf(cfg).Elem(), "")
		if configKey(cfg) == base {
			t.Errorf("%s changed, the key did not", leaf)
		}
	}
	if len(leaves) < 20 {
		t.Fatalf("%d leaves walked", len(leaves))
	}
}
