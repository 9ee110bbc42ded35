// Command benchtable prints the figures of devlearn's speed table
// (docs/benchmarks.md, "Speed where people wait") beside their
// baselines, measured in the same run on the same machine: a Go program
// that does nothing, devflow's own helper (node) when it is there, the
// cost of creating as many empty files, reading the file without folding
// it. Every figure is the median of several runs; every ratio is the
// median of per-pair ratios, each pair run back to back, so that a
// machine whose load changes during the run still compares like with
// like. `make bench` runs it after the Go benchmarks.
//
//	go run ./scripts/benchtable [-runs 5] [-spawns 40] [-only REGEXP]
//
// DEVFLOW_HELPER names devflow's json-helper.cjs (default: looked for in
// ../shared/reference/devflow-anchor/ from the repository and its parents);
// DEVLEARN_BENCH_1GB=1 adds the fold of a 1 GB log.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

var (
	runs   = flag.Int("runs", envInt("RUNS", 5), "runs per figure (each figure is the median of the runs)")
	spawns = flag.Int("spawns", envInt("SPAWNS", 40), "process spawns per run for the hook figures")
	only   = flag.String("only", os.Getenv("FIGURES"), "measure only the figures whose name matches this regexp")
)

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

// row is one line of the table.
type row struct {
	figure, measured, baseline, ratio, target, verdict string
}

var rows []row

func add(r row) {
	rows = append(rows, r)
	fmt.Printf("  %-58s %s | %s | %s\n", r.figure, r.measured, r.baseline, r.ratio)
}

func main() {
	flag.Parse()
	// The figures are wall times of other processes: keep this one out of
	// their way.
	runtime.GOMAXPROCS(1)
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// bins are the programs measured, built for this run.
type bins struct{ devlearn, hook, noop string }

func run() error {
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "devlearn-benchtable-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	b, err := build(repo, work)
	if err != nil {
		return err
	}
	home := filepath.Join(work, "person")
	isolated = []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig")}
	sel := regexp.MustCompile(*only)
	want := func(name string) bool { return sel.MatchString(name) }

	fmt.Println("== machine")
	machine := describeMachine()
	fmt.Print(machine)
	fmt.Printf("\n== figures (medians of %d runs; ratios are medians of per-pair ratios)\n", *runs)

	helper := devflowHelper(repo)
	steps := []struct {
		name string
		fn   func() error
	}{
		{"hook", func() error { return hookFigures(b, work) }},
		{"hud", func() error { return hudFigure(b, work) }},
		{"session-end", func() error { return sessionEndFigures(b, work) }},
		{"rebuild", func() error { return rebuildFigures(b, work) }},
		{"init", func() error { return initFigure(b) }},
		{"fold", func() error { return foldFigures(repo) }},
		{"render", func() error { return renderFigures(b, work, helper) }},
	}
	for _, s := range steps {
		if !want(s.name) {
			continue
		}
		if err := s.fn(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	fmt.Printf("\n== load average at the end: %s\n", loadAvg())
	fmt.Println("\n| figure | measured | baseline, same run | ratio | target | |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", r.figure, r.measured, r.baseline, r.ratio, r.target, r.verdict)
	}
	return nil
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// build compiles devlearn and devlearn-hook as `make build` does, and a Go
// program that does nothing with the same toolchain.
func build(repo, work string) (bins, error) {
	b := bins{devlearn: filepath.Join(work, "bin", "devlearn"), hook: filepath.Join(work, "bin", "devlearn-hook"), noop: filepath.Join(work, "bin", "noop")}
	for _, c := range [][]string{{b.devlearn, "./cmd/devlearn"}, {b.hook, "./cmd/devlearn-hook"}} {
		cmd := exec.Command("go", "build", "-o", c[0], c[1])
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			return b, fmt.Errorf("building %s: %v\n%s", c[1], err, out)
		}
	}
	src := filepath.Join(work, "noop.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return b, err
	}
	cmd := exec.Command("go", "build", "-o", b.noop, src)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return b, fmt.Errorf("building the empty program: %v\n%s", err, out)
	}
	return b, nil
}

func describeMachine() string {
	var sb strings.Builder
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	fmt.Fprintf(&sb, "cpu: %s, %d cores (GOMAXPROCS %d)\n", model, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		fmt.Fprintf(&sb, "memory: %s\n", strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0]))
	}
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		fmt.Fprintf(&sb, "kernel: %s", out)
	}
	if out, err := exec.Command("df", "-T", os.TempDir()).Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if f := strings.Fields(lines[len(lines)-1]); len(f) > 1 {
			fmt.Fprintf(&sb, "temporary folder: %s on %s (%s)\n", os.TempDir(), f[0], f[1])
		}
	}
	fmt.Fprintf(&sb, "go: %s\nload average at the start: %s\n", runtime.Version(), loadAvg())
	return sb.String()
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// isolated keeps the programs measured (and the workers they start) out
// of the person's home: set by run to folders of the run's own.
var isolated []string

// sample is one process: its wall time and the CPU time it and the
// processes it waited for used.
type sample struct{ wall, cpu time.Duration }

// spawn runs argv with the environment env added to this one's, in dir,
// with stdin, and waits for it and its output, as Claude Code does.
func spawn(argv, env []string, dir string, stdin []byte) (sample, []byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), isolated...), env...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, nil, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, errb.Bytes())
	}
	return sample{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, out.Bytes(), nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	if len(fs) == 0 {
		return 0
	}
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// spread is "median (min–max)" of the per-run medians.
func spread(ds []time.Duration) string {
	if len(ds) < 2 {
		return ms(median(ds))
	}
	lo, hi := slices.Min(ds), slices.Max(ds)
	return fmt.Sprintf("%s (%.2f–%.2f)", ms(median(ds)), float64(lo.Microseconds())/1000, float64(hi.Microseconds())/1000)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// subject is one program measured against the empty one.
type subject struct {
	label string
	argv  []string
	env   []string
	dir   string
	// input gives the i-th call's stdin, prepare (if set) runs before it,
	// untimed.
	input   func(i int) []byte
	prepare func(i int) error
	check   func(out []byte) error
}

// paired runs the empty program and each subject back to back, spawns
// times per run, and returns per subject the per-run medians and every
// pair's ratio to the empty program, in wall and in CPU time (on a loaded
// machine the wall time is mostly waiting for a core); noop is the empty
// program's per-run medians.
func paired(b bins, subjects []subject) (noop []time.Duration, med [][]time.Duration, ratios, cpuRatios [][]float64, err error) {
	med = make([][]time.Duration, len(subjects))
	ratios = make([][]float64, len(subjects))
	cpuRatios = make([][]float64, len(subjects))
	calls := 0
	// Warm up: page cache, caches, the sessions folder.
	for _, s := range subjects {
		for i := 0; i < 3; i++ {
			calls++
			if s.prepare != nil {
				if err := s.prepare(calls); err != nil {
					return nil, nil, nil, nil, err
				}
			}
			if _, _, err := spawn(s.argv, s.env, s.dir, s.input(calls)); err != nil {
				return nil, nil, nil, nil, err
			}
		}
	}
	// What the fixture and the warm-up wrote is flushed now: left to the
	// kernel's writeback, it is flushed during the first runs, and the
	// figure measured first read up to a fifth slower than the same
	// figure measured later.
	for _, s := range subjects {
		if f, err := os.Open(cmp.Or(s.dir, ".")); err == nil {
			syncfs(f)
			f.Close()
		}
	}
	for r := 0; r < *runs; r++ {
		var base []time.Duration
		per := make([][]time.Duration, len(subjects))
		for i := 0; i < *spawns; i++ {
			n, _, err := spawn([]string{b.noop}, nil, "", nil)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			base = append(base, n.wall)
			for j, s := range subjects {
				calls++
				if s.prepare != nil {
					if err := s.prepare(calls); err != nil {
						return nil, nil, nil, nil, err
					}
				}
				got, out, err := spawn(s.argv, s.env, s.dir, s.input(calls))
				if err != nil {
					return nil, nil, nil, nil, err
				}
				if s.check != nil {
					if err := s.check(out); err != nil {
						return nil, nil, nil, nil, fmt.Errorf("%s: %w", s.label, err)
					}
				}
				per[j] = append(per[j], got.wall)
				ratios[j] = append(ratios[j], float64(got.wall)/float64(n.wall))
				cpuRatios[j] = append(cpuRatios[j], float64(got.cpu)/float64(max(n.cpu, time.Microsecond)))
			}
		}
		noop = append(noop, median(base))
		for j := range subjects {
			med[j] = append(med[j], median(per[j]))
		}
	}
	return noop, med, ratios, cpuRatios, nil
}

func addPaired(figure, target string, limit float64, b bins, subjects []subject) error {
	noop, med, ratios, cpuRatios, err := paired(b, subjects)
	if err != nil {
		return err
	}
	for j, s := range subjects {
		r := medianF(ratios[j])
		name := figure
		if s.label != "" {
			name += " — " + s.label
		}
		v := ""
		if j == 0 && limit > 0 {
			v = verdict(r <= limit)
		}
		t := ""
		if j == 0 {
			t = target
		}
		add(row{name, spread(med[j]), "no-op Go program " + spread(noop), fmt.Sprintf("%.2f× (CPU %.2f×)", r, medianF(cpuRatios[j])), t, v})
	}
	return nil
}

// ---- the hooks

// entriesProject is a repository set up for devlearn (as init leaves it) with n knowledge
// entries, one of which applies to a Write of src/module5/*.go.
func entriesProject(dir string, n int) error {
	entries := filepath.Join(dir, ".memory", "knowledge", "entries")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(entries, 0o755); err != nil {
		return err
	}
	tools := []string{"Write", "Edit", "Bash", "MultiEdit", "NotebookEdit"}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	for i := 0; i < n; i++ {
		prio := []string{"HIGH", "MEDIUM", "MEDIUM", "LOW"}[i%4]
		files := fmt.Sprintf("src/module%d/**", i%97+10)
		if i == n/2 {
			prio, files = "HIGH", "src/module5/**"
		}
		body := fmt.Sprintf("---\nsummary: Lesson %d about %s\npriority: %s\ntriggers:\n  tools: [%s, %s]\n  files: [%q]\n  actions: [%s %s]\n---\nWhen touching %s, remember lesson %d.\n",
			i, files, prio, tools[i%5], tools[(i+2)%5], files, words[i%10], words[(i/10)%10], files, i)
		if err := os.WriteFile(filepath.Join(entries, fmt.Sprintf("lesson-%05d.md", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	// The config `devlearn init` writes: every hook loads it.
	if err := os.WriteFile(filepath.Join(dir, ".memory", "learning.json"), []byte("{\n  \"$schema\": \"./learning.schema.json\",\n  \"enabled\": true\n}\n"), 0o644); err != nil {
		return err
	}
	old := time.Now().Add(-time.Hour)
	return os.Chtimes(entries, old, old)
}

// writeInput is the i-th Write, in session i (a new session each call).
func writeInput(root, dir string, i int) []byte {
	session := fmt.Sprintf("8f6c1d2e-1234-4abc-9def-%012d", i)
	in, _ := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Write", "tool_use_id": fmt.Sprintf("toolu_%d", i),
		"tool_input": map[string]any{"file_path": filepath.Join(root, dir, fmt.Sprintf("f%d.go", i)), "content": "package x\n"},
	})
	return in
}

func served(want bool) func([]byte) error {
	return func(out []byte) error {
		if got := bytes.Contains(out, []byte("hookSpecificOutput")); got != want {
			return fmt.Errorf("served %v, want %v: %q", got, want, out)
		}
		return nil
	}
}

func hookFigures(b bins, work string) error {
	for _, n := range []int{1000, 10000} {
		root := filepath.Join(work, fmt.Sprintf("hook-%d", n))
		if err := entriesProject(root, n); err != nil {
			return err
		}
		env := []string{"DEVLEARN_HOME=" + filepath.Join(work, "home")}
		mk := func(label string, argv []string, dir string, serves bool) subject {
			return subject{label: label, argv: argv, env: env, dir: root,
				input: func(i int) []byte { return writeInput(root, dir, i) }, check: served(serves)}
		}
		limit, target := 3.0, "≤ 3×"
		if n == 10000 {
			limit, target = 5, "≤ 5×"
		}
		err := addPaired(fmt.Sprintf("hook pre-tool-use, %d entries, new session each call", n), target, limit, b, []subject{
			mk("devlearn-hook, served", []string{b.hook, "pre-tool-use"}, "src/module5", true),
			mk("devlearn-hook, nothing applies", []string{b.hook, "pre-tool-use"}, "src/other", false),
			mk("devlearn hook (the fallback), served", []string{b.devlearn, "hook", "pre-tool-use"}, "src/module5", true),
		})
		if err != nil {
			return err
		}
		if err := statCalls(b, root, env, n); err != nil {
			return err
		}
	}
	return nil
}

// statCalls counts, with strace when it is on the PATH, the stat system
// calls of one served pre-tool-use of devlearn-hook and of the no-op
// program: the figure that must not grow with the number of entries.
func statCalls(b bins, root string, env []string, n int) error {
	name := fmt.Sprintf("stat system calls per pre-tool-use, %d entries, devlearn-hook, served", n)
	if _, err := exec.LookPath("strace"); err != nil {
		add(row{name, "not measured", "strace is not on the PATH", "", "", ""})
		return nil
	}
	count := func(argv []string, stdin []byte) (int, error) {
		out := filepath.Join(os.TempDir(), fmt.Sprintf("devlearn-benchtable-strace-%d", os.Getpid()))
		defer os.Remove(out)
		args := append([]string{"-f", "-c", "-o", out, "-e", "trace=%stat,%lstat,%fstat"}, argv...)
		if _, _, err := spawn(append([]string{"strace"}, args...), env, root, stdin); err != nil {
			return 0, err
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		// strace -c's last line: "100.00 <seconds> <usecs/call> <calls> <errors> total".
		total := 0
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 4 && f[len(f)-1] == "total" {
				total, _ = strconv.Atoi(f[3])
			}
		}
		return total, nil
	}
	noop, err := count([]string{b.noop}, nil)
	if err != nil {
		return err
	}
	got, err := count([]string{b.hook, "pre-tool-use"}, writeInput(root, "src/module5", 3_000_000+n))
	if err != nil {
		return err
	}
	add(row{name, strconv.Itoa(got), fmt.Sprintf("no-op Go program: %d", noop), "", "the same at 1,000 and 10,000", ""})
	return nil
}

func hudFigure(b bins, work string) error {
	root := filepath.Join(work, "hud")
	if err := entriesProject(root, 1000); err != nil {
		return err
	}
	var log bytes.Buffer
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&log, `{"op":"observe","eid":"e%d","at":"2026-11-01T10:00:00Z","src":"s%d","id":"obs_%012x","type":"pitfall","pattern":"pattern %d","quality_ok":true}`+"\n", i, i%50, i%2000, i%2000)
	}
	if err := os.WriteFile(filepath.Join(root, ".memory", "learning-log.jsonl"), log.Bytes(), 0o644); err != nil {
		return err
	}
	in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": root, "workspace": map[string]any{"current_dir": root}})
	env := []string{"DEVLEARN_HOME=" + filepath.Join(work, "home")}
	input := func(int) []byte { return in }
	return addPaired("hud --stdin (status line), 1,000 entries, 10,000-line log", "≤ 3×", 3, b, []subject{
		{label: "devlearn-hook hud", argv: []string{b.hook, "hud", "--stdin"}, env: env, dir: root, input: input},
		{label: "devlearn hud (the fallback)", argv: []string{b.devlearn, "hud", "--stdin"}, env: env, dir: root, input: input},
	})
}

func sessionEndFigures(b bins, work string) error {
	setup := func(name, config string) (string, error) {
		root := filepath.Join(work, name)
		if err := entriesProject(root, 0); err != nil {
			return "", err
		}
		return root, os.WriteFile(filepath.Join(root, ".memory", "learning.json"), []byte(config), 0o644)
	}
	input := func(root string) func(i int) []byte {
		return func(i int) []byte {
			id := fmt.Sprintf("8f6c1d2e-1234-4abc-9def-%012d", i)
			in, _ := json.Marshal(map[string]any{"session_id": id, "transcript_path": filepath.Join(root, "gone", id+".jsonl"), "cwd": root,
				"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
			return in
		}
	}
	env := []string{"DEVLEARN_HOME=" + filepath.Join(work, "home")}
	spooled, err := setup("end-spooled", `{"worker": {"batch_size": 1000}}`)
	if err != nil {
		return err
	}
	spool := filepath.Join(spooled, ".git", "devlearn", "worker", "spool")
	empty := func(int) error { // most sessions find the spool short of a batch
		ents, _ := os.ReadDir(spool)
		for _, e := range ents {
			os.Remove(filepath.Join(spool, e.Name()))
		}
		return nil
	}
	if err := addPaired("hook session-end, spooled (no batch due)", "≤ 3×", 3, b, []subject{
		{label: "devlearn-hook", argv: []string{b.hook, "session-end"}, env: env, dir: spooled, input: input(spooled), prepare: empty},
		{label: "devlearn hook (the fallback)", argv: []string{b.devlearn, "hook", "session-end"}, env: env, dir: spooled, input: input(spooled), prepare: empty},
	}); err != nil {
		return err
	}
	due, err := setup("end-worker", `{"worker": {"batch_size": 1, "daily_cap": 1000}}`)
	if err != nil {
		return err
	}
	// The hook starts devlearn worker detached and returns; the workers
	// find no transcript and exit, beside the hooks being timed.
	hookEnv := append(slices.Clone(env), "PATH="+filepath.Dir(b.devlearn)+":"+os.Getenv("PATH"))
	err = addPaired("hook session-end, spooled and the worker started detached", "≤ 3×", 3, b, []subject{
		{label: "devlearn-hook", argv: []string{b.hook, "session-end"}, env: hookEnv, dir: due, input: input(due)},
	})
	waitForWorkers(due)
	return err
}

// waitForWorkers waits (at most 30 s) until the spool is empty and no
// worker runs, so that none outlives the figure.
func waitForWorkers(root string) {
	spool := filepath.Join(root, ".git", "devlearn", "worker", "spool")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ents, _ := os.ReadDir(spool)
		out, _ := exec.Command("pgrep", "-f", "devlearn-benchtable-.*/bin/devlearn worker").Output()
		if len(ents) == 0 && len(bytes.TrimSpace(out)) == 0 {
			return
		}
	}
}

// rebuildFigures: the first call after the knowledge changed (an entry
// added) and the first in a new DEVLEARN_HOME, 1,000 entries.
func rebuildFigures(b bins, work string) error {
	root := filepath.Join(work, "rebuild")
	if err := entriesProject(root, 1000); err != nil {
		return err
	}
	entries := filepath.Join(root, ".memory", "knowledge", "entries")
	var changed, home []time.Duration
	for i := 0; i < *runs*10; i++ {
		body := fmt.Sprintf("---\nsummary: Added %d\npriority: LOW\ntriggers:\n  tools: [Bash]\n---\nAdded.\n", i)
		if err := os.WriteFile(filepath.Join(entries, fmt.Sprintf("added-%d.md", i)), []byte(body), 0o644); err != nil {
			return err
		}
		s, _, err := spawn([]string{b.hook, "pre-tool-use"}, []string{"DEVLEARN_HOME=" + filepath.Join(work, "home")}, root, writeInput(root, "src/module5", 1_000_000+i))
		if err != nil {
			return err
		}
		changed = append(changed, s.wall)
		s, _, err = spawn([]string{b.hook, "pre-tool-use"}, []string{"DEVLEARN_HOME=" + filepath.Join(work, fmt.Sprintf("home-%d", i))}, root, writeInput(root, "src/module5", 2_000_000+i))
		if err != nil {
			return err
		}
		home = append(home, s.wall)
	}
	add(row{"first hook call after the knowledge changed, 1,000 entries (whole process)", ms(median(changed)), "", "", "≤ 20 ms", verdict(median(changed) <= 20*time.Millisecond)})
	add(row{"first hook call in a new DEVLEARN_HOME, 1,000 entries (whole process)", ms(median(home)), "", "", "≤ 20 ms", verdict(median(home) <= 20*time.Millisecond)})
	return nil
}

var initLine = regexp.MustCompile(`(?m)^init \S+ @\S+ ms, ([0-9.]+) ms clock`)

// initFigure sums GODEBUG=inittrace=1's package initialisation times of a
// silenced hook process (the same start, no work).
func initFigure(b bins) error {
	sum := func(argv []string) (time.Duration, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "DEVLEARN_DISABLE=1")
		var errb bytes.Buffer
		cmd.Stderr, cmd.Stdin = &errb, strings.NewReader("{}")
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%v: %v", argv, err)
		}
		var total float64
		for _, m := range initLine.FindAllStringSubmatch(errb.String(), -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			total += v
		}
		return time.Duration(total * float64(time.Millisecond)), nil
	}
	var hook, full []time.Duration
	for i := 0; i < *runs*10; i++ {
		h, err := sum([]string{b.hook, "pre-tool-use"})
		if err != nil {
			return err
		}
		f, err := sum([]string{b.devlearn, "hook", "pre-tool-use"})
		if err != nil {
			return err
		}
		hook, full = append(hook, h), append(full, f)
	}
	add(row{"package initialisation before main (inittrace, summed) — devlearn-hook", fmt.Sprintf("%.2f ms", float64(median(hook).Microseconds())/1000),
		fmt.Sprintf("devlearn hook: %.2f ms", float64(median(full).Microseconds())/1000), "", "≤ 1 ms on the hook path", verdict(median(hook) <= time.Millisecond)})
	return nil
}

// ---- the fold

var benchLine = regexp.MustCompile(`^BenchmarkFoldLog/(\S+?)-\d+\s+\d+\s+\d+ ns/op\s+([0-9.]+) MB/s(.*)$`)

// foldFigures runs BenchmarkFoldLog (its log generator is the one the Go
// benchmark uses) and reads its figures: MB/s folded, MB/s read without
// folding (the baseline), peak and live heap. Each run folds for at least
// 300 ms: three folds of a 1 MB log are 15 ms, one time slice of another
// process on a busy machine.
func foldFigures(repo string) error {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkFoldLog$", "-benchtime", "300ms", "-count", strconv.Itoa(*runs), "./internal/observe")
	cmd.Dir = repo
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, out.Bytes())
	}
	type acc struct{ fold, cpu, read, peak, live []float64 }
	byName := map[string]*acc{}
	var order []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		a := byName[m[1]]
		if a == nil {
			a = &acc{}
			byName[m[1]] = a
			order = append(order, m[1])
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		a.fold = append(a.fold, v)
		metric := func(unit string) float64 {
			f := strings.Fields(m[3])
			for i := 1; i < len(f); i++ {
				if f[i] == unit {
					x, _ := strconv.ParseFloat(f[i-1], 64)
					return x
				}
			}
			return 0
		}
		a.read = append(a.read, metric("read-MB/s"))
		a.cpu = append(a.cpu, metric("cpu-MB/s"))
		a.peak = append(a.peak, metric("peak-MB"))
		a.live = append(a.live, metric("live-MB"))
	}
	for _, name := range order {
		a := byName[name]
		f := medianF(a.fold)
		add(row{fmt.Sprintf("fold of a %s observation log (LoadFile)", name),
			fmt.Sprintf("%.0f MB/s (%.0f MB per CPU-second), peak heap %.0f MB, kept %.0f MB", f, medianF(a.cpu), medianF(a.peak), medianF(a.live)),
			fmt.Sprintf("reading it without folding: %.0f MB/s", medianF(a.read)), "",
			"≥ 150 MB/s, flat memory", verdict(f >= 150)})
	}
	return nil
}

// ---- render-ready and reconcile beside devflow

// devflowHelper finds devflow's json-helper.cjs and node; "" when either
// is missing (the devflow columns are then left out, and said so).
func devflowHelper(repo string) string {
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	if h := os.Getenv("DEVFLOW_HELPER"); h != "" {
		return h
	}
	for dir := repo; ; {
		p := filepath.Join(dir, "..", "shared", "reference", "devflow-anchor", "json-helper.cjs")
		if _, err := os.Stat(p); err == nil {
			return filepath.Clean(p)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// devflowLog is n observations in devflow's format, ready those for which
// ready(i) holds (seen four times over eight days: ready by devlearn's
// thresholds too), the others seen once.
func devflowLog(n int, ready func(i int) bool) []byte {
	return devflowLines(0, n, ready, "2026-04-09T00:00:00Z")
}

// devflowLines is devflowLog's lines for observations from to to, those
// that are ready last seen at last.
func devflowLines(from, to int, ready func(i int) bool, last string) []byte {
	types := []string{"workflow", "procedural", "decision", "pitfall"}
	var buf bytes.Buffer
	for i := from; i < to; i++ {
		status, count, conf, seen := "observing", 1, 0.33, "2026-04-09T00:00:00Z"
		if ready(i) {
			status, count, conf, seen = "ready", 4, 0.95, last
		}
		line, _ := json.Marshal(map[string]any{
			"id": fmt.Sprintf("obs_%08x", i), "type": types[i%4], "pattern": lessonText(i),
			"confidence": conf, "observations": count, "first_seen": "2026-04-01T00:00:00Z", "last_seen": seen,
			"status": status, "evidence": []string{"user: you forgot the hook again"},
			"details":    fmt.Sprintf("area: scripts/hooks/%d; issue: issue %d; impact: untestable; resolution: one job per script", i, i),
			"quality_ok": true,
		})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// project is a fresh repository holding log as its observation log.
func project(dir string, log []byte) error {
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".memory"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".memory", "learning-log.jsonl"), log, 0o644)
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// inodes counts the files and folders under dir, .git left out.
func inodes(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		n++
		return nil
	})
	return n
}

// emptyFiles times creating n empty files in a fresh folder, then one
// sync of the file system (devlearn syncs once per batch).
func emptyFiles(dir string, n int) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return 0, err
		}
		f.Close()
	}
	if f, err := os.Open(dir); err == nil {
		syncfs(f)
		f.Close()
	}
	return time.Since(start), nil
}

func renderFigures(b bins, work, helper string) error {
	if helper == "" {
		add(row{"render-ready and reconcile beside devflow", "not measured", "node or devflow's helper not found (set DEVFLOW_HELPER)", "", "", ""})
		return nil
	}
	cases := []struct {
		name   string
		ready  func(int) bool
		target string
		limit  float64
		cpu    bool // compare CPU time (the wall is bounded by creating files)
		// reconcile: reconcile the rendered projects afterwards, beside
		// devflow's reconcile-manifest (the bulk render on disk).
		reconcile bool
		// session: the log is what a session appended to a log the
		// previous session end had already rendered: the 10,000
		// observations none ready, rendered once untimed (which leaves
		// devlearn's per-clone fold cache, as any earlier run does),
		// then the lines that make the ready ones ready appended.
		// devflow's helper gets the same final log.
		session bool
		// memory: the projects live on a memory file system (tmpfs), so
		// that the CPU time is the programs' own, not the disk's: on ext4
		// creating a file costs system time that moves with whatever else
		// the disk is doing.
		memory bool
	}{
		{"render-ready at session end: 10,000-observation devflow log, 5 newly ready (a first run: a fresh clone, no cache)", func(i int) bool { return i%2000 == 1999 }, "≤ 1/5 of devflow in CPU time", 1.0 / 5, true, false, false, false},
		{"same, after an earlier run (the previous session's end)", func(i int) bool { return i%2000 == 1999 }, "≤ 1/20 of devflow in CPU time", 1.0 / 20, true, false, true, false},
		{"render-ready bulk: same log, 10% ready (a first run)", func(i int) bool { return i%10 == 0 }, "≤ 1/5 of devflow in CPU time", 1.0 / 5, true, true, false, false},
		{"same, both on a memory file system (tmpfs)", func(i int) bool { return i%10 == 0 }, "≤ 1/5 of devflow in CPU time", 1.0 / 5, true, false, false, true},
	}
	// Each is measured with devlearn-hook, which a hook of one's own runs
	// at a session's edges as devflow's hooks run its helper, and with
	// devlearn, the whole CLI a person types.
	type binary struct {
		label string
		argv  func(cmd string) []string
	}
	binaries := []binary{
		{"devlearn-hook", func(cmd string) []string { return []string{b.hook, cmd} }},
		{"devlearn", func(cmd string) []string { return []string{b.devlearn, cmd} }},
	}
	for ci, c := range cases {
		base := work
		if c.memory {
			dir, err := os.MkdirTemp("/dev/shm", "devlearn-bench-")
			if err != nil {
				add(row{c.name, "not measured", "no memory file system at /dev/shm", "", "", ""})
				continue
			}
			defer os.RemoveAll(dir)
			base = dir
		}
		log, earlier, appended := devflowLog(10000, c.ready), []byte(nil), []byte(nil)
		if c.session {
			none := func(int) bool { return false }
			earlier = devflowLog(10000, none)
			for i := 0; i < 10000; i++ {
				if c.ready(i) {
					appended = append(appended, devflowLines(i, i+1, c.ready, "2026-04-09T12:00:00Z")...)
				}
			}
			log = append(append([]byte(nil), earlier...), appended...)
		}
		dl := make([][]sample, len(binaries))
		var df []sample
		ratios, cpuRatios := make([][]float64, len(binaries)), make([][]float64, len(binaries))
		recDL, recQuiet := make([][]time.Duration, len(binaries)), make([][]time.Duration, len(binaries))
		recRatios := make([][]float64, len(binaries))
		var recDF []time.Duration
		var created int
		var empty []time.Duration
		for r := 0; r < *runs; r++ {
			pf := filepath.Join(base, fmt.Sprintf("render-%d-%d-devflow", ci, r))
			if err := project(pf, log); err != nil {
				return err
			}
			env := []string{"DEVLEARN_HOME=" + filepath.Join(work, "home"), "DEVLEARN_NOW=2026-04-10T00:00:00Z"}
			pds := make([]string, len(binaries))
			for bi, bin := range binaries {
				pd := filepath.Join(base, fmt.Sprintf("render-%d-%d-%s", ci, r, bin.label))
				pds[bi] = pd
				if c.session {
					if err := project(pd, earlier); err != nil {
						return err
					}
					if _, _, err := spawn(bin.argv("render-ready"), env, pd, nil); err != nil {
						return err
					}
					if err := appendFile(filepath.Join(pd, ".memory", "learning-log.jsonl"), appended); err != nil {
						return err
					}
				} else if err := project(pd, log); err != nil {
					return err
				}
			}
			// The logs were just written: flush them now, untimed, as a
			// real log was written long before (devlearn syncs what it
			// writes; a sync would otherwise pay for the fixture).
			if f, err := os.Open(work); err == nil {
				syncfs(f)
				f.Close()
			}
			before := inodes(pds[0])
			// Take turns at going first, so that none always meets a
			// colder cache.
			steps := []func() error{func() error {
				s, _, err := spawn([]string{"node", helper, "render-ready", filepath.Join(pf, ".memory", "learning-log.jsonl"), pf}, nil, pf, nil)
				df = append(df, s)
				return err
			}}
			for bi, bin := range binaries {
				steps = append(steps, func() error {
					s, _, err := spawn(bin.argv("render-ready"), env, pds[bi], nil)
					dl[bi] = append(dl[bi], s)
					return err
				})
			}
			for k := range steps {
				if err := steps[(k+r)%len(steps)](); err != nil {
					return err
				}
			}
			f := df[len(df)-1]
			for bi := range binaries {
				d := dl[bi][len(dl[bi])-1]
				ratios[bi] = append(ratios[bi], float64(d.wall)/float64(f.wall))
				cpuRatios[bi] = append(cpuRatios[bi], float64(d.cpu)/float64(f.cpu))
			}
			created = inodes(pds[0]) - before
			e, err := emptyFiles(filepath.Join(base, fmt.Sprintf("empty-%d-%d", ci, r)), created)
			if err != nil {
				return err
			}
			empty = append(empty, e)
			if !c.reconcile {
				continue
			}
			// Reconcile the rendered projects, nothing changed since.
			sf, _, err := spawn([]string{"node", helper, "reconcile-manifest", pf}, nil, pf, nil)
			if err != nil {
				return err
			}
			recDF = append(recDF, sf.wall)
			for bi, bin := range binaries {
				sd, _, err := spawn(bin.argv("reconcile"), env, pds[bi], nil)
				if err != nil {
					return err
				}
				sq, _, err := spawn(bin.argv("reconcile"), env, pds[bi], nil)
				if err != nil {
					return err
				}
				recDL[bi], recQuiet[bi] = append(recDL[bi], sd.wall), append(recQuiet[bi], sq.wall)
				recRatios[bi] = append(recRatios[bi], float64(sd.wall)/float64(sf.wall))
			}
		}
		walls := func(s []sample) (w, c []time.Duration) {
			for _, x := range s {
				w, c = append(w, x.wall), append(c, x.cpu)
			}
			return
		}
		fw, fc := walls(df)
		for bi, bin := range binaries {
			dw, dc := walls(dl[bi])
			name := c.name + ", " + bin.label
			target, verdictOf := c.target, func(ok bool) string { return verdict(ok) }
			if bi > 0 {
				name, target, verdictOf = "same, "+bin.label+" (the whole CLI)", "", func(bool) string { return "" }
			}
			if !c.cpu {
				r := medianF(ratios[bi])
				add(row{name, spread(dw) + " wall", "devflow " + spread(fw), fmt.Sprintf("1/%.1f", 1/r), target, verdictOf(r <= c.limit)})
				continue
			}
			r := medianF(cpuRatios[bi])
			add(row{name, fmt.Sprintf("%s CPU, %s wall", ms(median(dc)), ms(median(dw))),
				fmt.Sprintf("devflow %s CPU, %s wall; creating %d empty files: %s", ms(median(fc)), ms(median(fw)), created, ms(median(empty))),
				fmt.Sprintf("1/%.1f CPU, 1/%.1f wall", 1/r, 1/medianF(ratios[bi])), target, verdictOf(r <= c.limit)})
		}
		if !c.reconcile {
			continue
		}
		for bi, bin := range binaries {
			rr := medianF(recRatios[bi])
			name, target, v := "reconcile, same log, 10% ready (first run after the render: full check), "+bin.label, "≤ 1/10 of devflow", verdict(rr <= 0.1)
			if bi > 0 {
				name, target, v = "same, "+bin.label+" (the whole CLI)", "", ""
			}
			add(row{name, spread(recDL[bi]),
				fmt.Sprintf("devflow %s; devlearn's next run (quiet, nothing changed): %s", spread(recDF), spread(recQuiet[bi])),
				fmt.Sprintf("1/%.1f", 1/rr), target, v})
		}
	}
	return nil
}

// lessonText is the i-th synthetic lesson: three words of its own, so that
// no two are near-duplicates (render merges a decision into one in force
// that says the same thing, and lessons differing only by a number do).
func lessonText(i int) string {
	return "Lesson " + word(i) + " about the " + word(i*7919+13) + " and " + word(i*104729+7) + " build scripts"
}

// word spells n in letters: numbers are not words to the similarity test.
func word(n int) string {
	b := []byte{}
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return "q" + string(b)
		}
	}
}
