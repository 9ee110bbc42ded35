package genuine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Runner runs the built binary as a user would, each repository in a
// folder of its own with a home of its own.
type Runner struct {
	Bin  string // the devlearn binary
	Work string // where repositories are made
	// Timeout bounds each call; 0 means two minutes.
	Timeout time.Duration
	// Config, when set, is a global config.json every repository's home
	// starts with: devlearn measured as configured so (the LLM route, say).
	Config string

	// template is a repository and its home as `devlearn init` left them,
	// made once: every repository starts as a copy of it.
	template     sync.Once
	templateName string
	templateErr  error
}

// Observation is what `learn --list --json` prints of one observation.
type Observation struct {
	ID         string  `json:"id"`
	Type       string  `json:"type"`
	Pattern    string  `json:"pattern"`
	Details    string  `json:"details"`
	Status     string  `json:"status"`
	Count      int     `json:"count"`
	Confidence float64 `json:"confidence"`
}

// Text is what a label is matched against: the pattern and the details.
func (o Observation) Text() string { return o.Pattern + " " + o.Details }

// Ready reports an observation the thresholds made ready (or already
// rendered).
func (o Observation) Ready() bool { return o.Status == "ready" || o.Status == "created" }

// Sighting is one observe event of the log: one session's sighting of an
// observation, with the text that session gave it.
type Sighting struct {
	ID, Session, Pattern, Details string
}

// Repo is one repository's outcome.
type Repo struct {
	Observations []Observation
	Sightings    []Sighting
	Problems     []string // calls that failed, sessions that could not be read
	Read         map[string]bool
	// Files maps the session ids the transcripts give to their files.
	Files map[string]string
}

// Ingest is one ingest call: the transcripts, and the time it runs at
// ("" for the clock).
type Ingest struct {
	Files []string
	Now   string
}

// initRepo makes a repository named name set up with devlearn, and its
// own home: a copy of the template, which was made once with git's first
// commit and `devlearn init` (nothing init writes names its folder). Two
// git calls and an init for each of a few hundred repositories were a
// third of make eval's time.
func (r *Runner) initRepo(ctx context.Context, name string) (dir, home string, env []string, err error) {
	r.template.Do(func() {
		r.templateName = "template"
		tdir, _, tenv, err := r.makeRepo(ctx, r.templateName)
		if err == nil {
			if _, errOut, ierr := r.run(ctx, tdir, tenv, "init"); ierr != nil {
				err = fmt.Errorf("devlearn init: %v: %s", ierr, firstLine(errOut))
			}
		}
		if err == nil && r.Config != "" {
			err = r.copyConfig(filepath.Join(r.Work, r.templateName, "home", ".devlearn"))
		}
		r.templateErr = err
	})
	if r.templateErr != nil {
		return "", "", nil, r.templateErr
	}
	if err := os.CopyFS(filepath.Join(r.Work, name), os.DirFS(filepath.Join(r.Work, r.templateName))); err != nil {
		return "", "", nil, err
	}
	dir, home = filepath.Join(r.Work, name, "repo"), filepath.Join(r.Work, name, "home")
	return dir, home, repoEnv(home), nil
}

// copyConfig puts the measured configuration in a home's devlearn folder.
func (r *Runner) copyConfig(dir string) error {
	b, err := os.ReadFile(r.Config)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644)
}

// makeRepo makes the folders of a repository named name and its own home,
// with git's first commit, and the environment devlearn runs in there.
func (r *Runner) makeRepo(ctx context.Context, name string) (dir, home string, env []string, err error) {
	dir = filepath.Join(r.Work, name, "repo")
	home = filepath.Join(r.Work, name, "home")
	for _, d := range []string{dir, filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", nil, err
		}
	}
	env = repoEnv(home)
	// No template: git's sample hooks would be copied into every repository.
	for _, args := range [][]string{{"init", "-q", "--template="}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", nil, fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return dir, home, env, nil
}

// repoEnv is the environment devlearn runs in for a repository whose home
// is home: that home's folders, no clock and no switch of the caller's.
func repoEnv(home string) []string {
	env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "DEVLEARN_HOME="+filepath.Join(home, ".devlearn"),
		"CODEX_HOME="+filepath.Join(home, ".codex"), "GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1",
		"GIT_AUTHOR_NAME=eval", "GIT_AUTHOR_EMAIL=eval@example.invalid", "GIT_COMMITTER_NAME=eval", "GIT_COMMITTER_EMAIL=eval@example.invalid")
	return without(env, "DEVLEARN_NOW", "DEVLEARN_DISABLE", "DEVLEARN_INTERNAL", "DEVLEARN_WORKER")
}

// Learn makes a repository named name, runs init, then each ingest in
// order, then lists the observations at now ("" for the clock). A single
// ingest into the fresh repository lists what it observed itself, which is
// what the log then holds: a process less for every session of the set.
func (r *Runner) Learn(ctx context.Context, name string, ingests []Ingest, now string) (*Repo, error) {
	dir, _, env, err := r.initRepo(ctx, name)
	if err != nil {
		return nil, err
	}
	res := newRepo()
	call := func(now string, args ...string) ([]byte, bool) {
		e := env
		if now != "" {
			e = append(e, "DEVLEARN_NOW="+now)
		}
		out, errOut, err := r.run(ctx, dir, e, args...)
		if err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: devlearn %s: %v: %s", name, args[0], err, firstLine(errOut)))
			return out, false
		}
		return out, true
	}
	for _, in := range ingests {
		out, _ := call(in.Now, append([]string{"ingest", "--json"}, in.Files...)...)
		seen, _ := res.ingested(name, out)
		if len(ingests) == 1 {
			res.Observations = latestText(seen)
		}
	}
	if len(ingests) > 1 {
		if out, ok := call(now, "learn", "--list", "--json"); ok {
			res.listed(name, out)
		}
	}
	res.readLog(name, dir)
	return res, nil
}

// ingested takes in what `ingest --json` printed: the sessions read, the
// problems, and the observations, which it returns; false when it printed
// no JSON.
func (res *Repo) ingested(name string, out []byte) ([]Observation, bool) {
	var rep struct {
		Observations []Observation `json:"observations"`
		Sessions     []struct {
			ID    string `json:"id"`
			File  string `json:"file"`
			Error string `json:"error"`
		} `json:"sessions"`
		Problems []string `json:"problems"`
	}
	if json.Unmarshal(out, &rep) != nil {
		return nil, false
	}
	for _, s := range rep.Sessions {
		if s.Error != "" {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: %s", filepath.Base(s.File), s.Error))
			continue
		}
		res.Read[s.File] = true
		res.Files[s.ID] = s.File
	}
	for _, p := range rep.Problems {
		res.Problems = append(res.Problems, name+": "+p)
	}
	return rep.Observations, true
}

// listed takes in what `learn --list --json` printed.
func (res *Repo) listed(name string, out []byte) {
	var list struct {
		Observations []Observation `json:"observations"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("%s: learn --list printed no JSON: %v", name, err))
	}
	res.Observations = list.Observations
}

// readLog reads the sightings of the repository in dir.
func (res *Repo) readLog(name, dir string) {
	sightings, err := readSightings(filepath.Join(dir, ".memory", "learning-log.jsonl"))
	if err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", name, err))
	}
	res.Sightings = sightings
}

func newRepo() *Repo { return &Repo{Read: map[string]bool{}, Files: map[string]string{}} }

// latestText folds an ingest's sightings as the log does: one observation
// per id, in the order first seen, with the text of its latest sighting.
func latestText(seen []Observation) []Observation {
	var out []Observation
	at := map[string]int{}
	for _, o := range seen {
		if i, ok := at[o.ID]; ok {
			out[i].Pattern, out[i].Details = o.Pattern, o.Details
			continue
		}
		at[o.ID] = len(out)
		out = append(out, o)
	}
	return out
}

// run runs the binary with an empty pipe for input: a script's input, not
// a terminal's.
func (r *Runner) run(ctx context.Context, dir string, env []string, args ...string) (stdout, stderr []byte, err error) {
	t := r.Timeout
	if t == 0 {
		t = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader("")
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return []byte(o.String()), []byte(e.String()), err
}

// readSightings reads the observe events of a log: which session sighted
// which observation, in its own words.
func readSightings(path string) ([]Sighting, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sighting
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Op, ID, Src, Pattern, Details string
			Evidence                      []string
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Op != "observe" {
			continue
		}
		if said, ok := saidAgain(e.Pattern, e.Details, e.Evidence); ok {
			// Counted in the lesson's own words (a turn said again,
			// extract.SaidAgain): what joined it is the turn, and that is
			// what a reader judges against the lesson.
			e.Pattern = said
		}
		out = append(out, Sighting{ID: e.ID, Session: e.Src, Pattern: e.Pattern, Details: e.Details})
	}
	return out, sc.Err()
}

// saidAgain is the turn a sighting quotes when it is a lesson said again
// as the ingest records one: in the lesson's words, with no details of
// its own and the person's turn, in other words, as its only evidence.
func saidAgain(pattern, details string, evidence []string) (string, bool) {
	if details != "" || len(evidence) != 1 {
		return "", false
	}
	turn, ok := strings.CutPrefix(evidence[0], extract.PersonQuote)
	return turn, ok && textkey.Normalize(turn) != textkey.Normalize(pattern)
}

func without(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
