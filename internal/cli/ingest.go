package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent/sessions"
	"github.com/devlearn/devlearn/internal/classify"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/worker"
)

type ingestOptions struct {
	sessions   []string
	all        bool
	autoMemory bool
	dryRun     bool
	json       bool
}

func newIngestCmd(env *Env) *cobra.Command {
	opts := &ingestOptions{}
	cmd := &cobra.Command{
		Use:   "ingest [FILE|DIR...] [--session ID]... [--all]",
		Short: "Extract observations from agents' session transcripts",
		Long: `Run the capture pipeline on transcripts by hand, as the SessionEnd worker
does: the rule-based extractors, the history that makes a request or a
failure "repeated" across sessions, uses of the artifacts already made, and
[PROCESS_KNOWLEDGE] blocks as draft entries. A lesson the person asked to
keep ("remember: ...", "never ...", in any language of the tables) becomes
an active entry at once, as the prompt hook makes it.

  FILE          a transcript, with its subagents' files beside it
  DIR           every session's transcript below it, with its subagents'
  --session ID  the session's transcript under the Claude config folder
                ($CLAUDE_CONFIG_DIR, else ~/.claude)
  --all         every session that ran in this working tree, found by the
                cwd each transcript records: Claude Code's, and Codex CLI's
                rollouts ($CODEX_HOME/sessions, else ~/.codex/sessions,
                compressed ones too), Gemini CLI's chats, checkpoints
                and prompt log (~/.gemini/tmp/<project>/chats,
                checkpoint-<tag>.json, logs.json), Cursor's agent
                transcripts (~/.cursor/projects/<workspace>/agent-transcripts)
                and Copilot CLI's session logs ($COPILOT_HOME/session-state)

A FILE or DIR may hold Codex rollouts (rollout-*.jsonl, .jsonl.zst),
Gemini CLI chats (session-*.jsonl, session-*.json), checkpoints ('/chat
save' writes checkpoint-<tag>.json) and prompt logs (logs.json), Cursor
agent transcripts and Copilot CLI session logs too: each is recognised by
its name and first record and read into the same channels, so every
lesson found in a Claude Code session is found in theirs. A logs.json
holds the prompts of many sessions, without replies: each session is
ingested on its own, slash commands left out, and a prompt a chat or
checkpoint beside it holds is read from there instead; a checkpoint of a
chat its folder has recorded is that recording, not read twice.

--auto-memory reads Claude Code's own auto memory for this working tree
(<config>/projects/<project>/memory/*.md, found through the transcripts
that ran here) and records each memory as an observation, redacted:
feedback as a pitfall, project as a decision; user memories (about the
person) and reference ones are not recorded. Claude's files are only read.

Ingesting is idempotent: a transcript ingested again adds nothing, and a
lesson seen twice in one session counts once. Nothing is rendered: run
'devlearn render-ready' afterwards (the worker does both).`,
		Example: `  devlearn ingest ~/.claude/projects/-home-me-repo/0b9f6e2c-....jsonl
  devlearn ingest --all --dry-run
  devlearn ingest --auto-memory`,
		GroupID: "learn",
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runIngest(c.Context(), env, opts, args)
		},
	}
	cmd.Flags().StringArrayVar(&opts.sessions, "session", nil, "a session id to find under the Claude config folder (repeatable)")
	cmd.Flags().BoolVar(&opts.all, "all", false, "every session of this working tree under the Claude config folder")
	cmd.Flags().BoolVar(&opts.autoMemory, "auto-memory", false, "record Claude Code's auto memory of this working tree (feedback, project) as observations")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print what would be recorded; store nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON")
	return cmd
}

// progressMin is the number of sessions from which a terminal shows
// progress.
const progressMin = 5

func runIngest(ctx context.Context, env *Env, opts *ingestOptions, args []string) error {
	if opts.autoMemory {
		if len(args) > 0 || len(opts.sessions) > 0 || opts.all {
			return exitcode.Usagef("--auto-memory reads Claude Code's memory files, not transcripts: run it on its own")
		}
		return runAutoMemory(ctx, env, opts)
	}
	if len(args) == 0 && len(opts.sessions) == 0 && !opts.all {
		return exitcode.Usagef("name transcripts to ingest: FILE or DIR arguments, --session ID, or --all\nRun 'devlearn ingest --help' for usage.")
	}
	w, err := env.workspace()
	if err != nil {
		return err
	}
	sources, err := env.ingestSources(w.proj.Root, opts, args)
	if err != nil {
		return err
	}
	if len(sources) == 0 {
		fmt.Fprintln(env.Out, "No transcripts to ingest.")
		return nil
	}
	if !opts.dryRun {
		// The history is the worker's too: one of them at a time.
		unlock, err := env.workerLock(ctx, worker.For(w.proj).LockPath())
		if err != nil {
			return err
		}
		defer unlock()
	}
	// Problems are in the result, printed with it; the LLM extractor's
	// notes go to stderr as they come.
	note := func(format string, args ...any) { fmt.Fprintf(env.Err, "devlearn: "+format+"\n", args...) }
	pl := env.pipeline(w.proj, w.cfg.Config, w.now, "ingest", opts.dryRun, func(string, ...any) {}, note)
	classes := classify.Watch(pl, env.askModel(ctx, w.proj, w.cfg.Config))
	bar := env.progressBar(len(sources))
	if bar != nil {
		pl.Progress = bar.update
	}
	res, err := pl.Run(ctx, sources)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		return err
	}
	if !opts.dryRun {
		if _, err := env.afterIngest(ctx, w.proj, w.cfg.Config, w.now, res, classes); err != nil {
			return err
		}
		// The store's writer ages what waited too long, as the worker
		// does after its batch: reading the store never does.
		if err := ageEntries(ctx, w.proj, w.cfg.Config, w.now, "ingest", note); err != nil {
			return err
		}
	}
	failed := 0
	var done []string
	for _, s := range res.Sessions {
		if s.Err != nil {
			failed++
		} else {
			done = append(done, s.ID)
		}
	}
	if !opts.dryRun && len(done) > 0 {
		// A session the worker had given up on is ingested now: no
		// longer listed as dropped.
		if err := worker.For(w.proj).Forget(done...); err != nil {
			note("%v", err)
		}
	}
	if opts.json {
		if err := printJSON(env.Out, res); err != nil {
			return err
		}
	} else {
		printIngested(env.Out, res, res.Log, w)
	}
	if failed > 0 {
		if opts.json {
			return exitcode.Silent{Code: exitcode.Error}
		}
		return fmt.Errorf("%s of %d could not be read; the others were ingested", plural(failed, "transcript", "transcripts"), len(res.Sessions))
	}
	return nil
}

// ingestSources turns the arguments into sessions to ingest.
func (env *Env) ingestSources(root string, opts *ingestOptions, args []string) ([]ingest.Source, error) {
	var out []ingest.Source
	for _, a := range args {
		if !filepath.IsAbs(a) {
			a = filepath.Join(env.Dir, a)
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, exitcode.Usagef("%v", err)
		}
		if !fi.IsDir() {
			if logs, ok := sessions.Open(a); ok {
				out = append(out, logSources(logs)...)
				continue
			}
			f, err := transcript.FromPath(a)
			if err != nil {
				return nil, err
			}
			out = append(out, ingest.Source{Files: f.All()})
			continue
		}
		var files []string
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// <session>/subagents/ (2.1.x) comes with its session.
			if d.IsDir() && d.Name() == "subagents" && path != a {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() && (ingest.IsMainTranscript(d.Name()) || sessions.IsFolderLog(path)) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, p := range files {
			if logs, ok := sessions.Open(p); ok {
				out = append(out, logSources(logs)...)
				continue
			}
			if !ingest.IsMainTranscript(filepath.Base(p)) {
				continue
			}
			f, err := transcript.FromPath(p)
			if err != nil {
				return nil, err
			}
			out = append(out, ingest.Source{Files: f.All()})
		}
	}
	for _, id := range opts.sessions {
		f, err := transcript.FindSession(env.claudeDir(), id)
		if err != nil {
			return nil, exitcode.WithHint(err, "set $CLAUDE_CONFIG_DIR if Claude Code keeps its files elsewhere")
		}
		out = append(out, ingest.Source{SessionID: id, Files: f.All()})
	}
	if opts.all {
		found, err := ingest.ProjectSessions(env.claudeDir(), root)
		others, oerr := sessions.Find(env.Getenv, root)
		switch {
		case oerr != nil:
			return nil, oerr
		case err != nil && len(others) == 0:
			return nil, err
		}
		for _, f := range found {
			out = append(out, ingest.Source{Files: f.All()})
		}
		out = append(out, logSources(others)...)
	}
	return out, nil
}

// logSources are other agents' sessions to ingest: one source each, a
// session of a file of several (Gemini CLI's logs.json) named by its id
// and read by its own reader.
func logSources(logs []sessions.Log) []ingest.Source {
	out := make([]ingest.Source, 0, len(logs))
	for _, l := range logs {
		out = append(out, ingest.Source{SessionID: l.Session, Files: []string{l.Path}, Read: l.Read})
	}
	return out
}

// workerLock takes the worker's lock, saying so when it has to wait.
func (env *Env) workerLock(ctx context.Context, path string) (func() error, error) {
	unlock, ok, err := jsonl.TryLock(path)
	if err != nil || ok {
		return unlock, err
	}
	fmt.Fprintln(env.Err, "devlearn: waiting for the worker to finish its batch…")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	return jsonl.Lock(ctx, path)
}

// maxUnreadableListed is how many unreadable lines ingest names.
const maxUnreadableListed = 5

func printIngested(out io.Writer, res *ingest.Result, log *observe.Log, w *workspace) {
	read := 0
	skipped, skippedIn := 0, 0
	for _, s := range res.Sessions {
		if s.Err == nil {
			read++
		}
		if s.Skipped > 0 {
			skipped += s.Skipped
			skippedIn++
		}
	}
	verb := "recorded"
	if res.DryRun {
		verb = "would record"
	}
	drafts := 0
	for _, c := range res.Candidates {
		if c.Status == knowledge.StatusDraft {
			drafts++
		}
	}
	fmt.Fprintf(out, "Read %s; %s %s, %s, %s.\n", plural(read, "session", "sessions"), verb,
		plural(res.NewCount(), "new observation", "new observations"),
		plural(len(res.Uses), "use", "uses"),
		plural(drafts, "draft entry", "draft entries"))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, o := range res.Observations {
		state := "already recorded"
		if o.New {
			state = "new"
			if !res.DryRun && log != nil {
				if v, ok := log.Observation(o.ID, w.now, w.cfg.Config); ok {
					state = fmt.Sprintf("count %d, %s", v.Count, v.Status)
				}
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.ID, o.Type, o.Extractor, ellipsis(o.Pattern, 60), state)
	}
	for _, u := range res.Uses {
		fmt.Fprintf(tw, "  %s\tused\t%s\t%s\tsession %s\n", u.ID, u.How, u.Artifact, u.SessionID)
	}
	tw.Flush()
	for _, c := range res.Candidates {
		// What the entry is now: a draft saved before may have been
		// promoted or archived by a person since.
		note := ""
		switch {
		case c.TakenBack:
			fmt.Fprintf(out, "  no     %s  %s (taken back by a person: left out)\n", c.Path, c.Summary)
			continue
		case c.Created:
		case c.Status == knowledge.StatusDraft:
			note = " (saved before)"
		default:
			note = fmt.Sprintf(" (saved before as a draft; %s now)", c.Status)
		}
		fmt.Fprintf(out, "  %-6s %s  %s%s\n", c.Status, c.Path, c.Summary, note)
	}
	if drafts > 0 && !res.DryRun {
		fmt.Fprintln(out, "Drafts are served below active entries until a person reviews them: 'devlearn knowledge list --status draft', then 'devlearn knowledge promote KEY' or 'archive KEY'.")
	}
	// What a transcript yields is the agent's and the person's words: a
	// lesson that speaks as the harness, or orders code run, is named as
	// it arrives.
	for _, o := range res.Observations {
		if o.New {
			printFlagged(out, "  ", o.ID, o.Pattern)
		}
	}
	for _, c := range res.Candidates {
		if data, err := os.ReadFile(w.proj.Path(c.Path)); err == nil && c.Created {
			printFlagged(out, "  ", c.Path, string(data))
		}
	}
	printKept(out, res)
	if skipped > 0 {
		fmt.Fprintf(out, "Skipped %s in %s (the rest of each was read; a last line cut short is a session still being written):\n", plural(skipped, "unreadable line", "unreadable lines"), plural(skippedIn, "transcript", "transcripts"))
		named := 0
		for _, s := range res.Sessions {
			for _, u := range s.Unreadable {
				if named < maxUnreadableListed {
					fmt.Fprintf(out, "  %s\n", u)
				}
				named++
			}
		}
		if more := skipped - min(named, maxUnreadableListed); more > 0 {
			fmt.Fprintf(out, "  and %d more ('devlearn ingest --json' lists the first of each transcript)\n", more)
		}
	}
	for _, p := range res.Problems {
		fmt.Fprintf(out, "Problem: %s\n", p)
	}
	for _, s := range res.Sessions {
		if s.Err != nil {
			fmt.Fprintf(out, "Not read: %v\n", s.Err)
		}
	}
	if !res.DryRun && log != nil {
		ready := 0
		for _, o := range log.Observations(w.now, w.cfg.Config) {
			if o.Status == observe.Ready {
				ready++
			}
		}
		if ready > 0 {
			fmt.Fprintf(out, "%s ready: 'devlearn render-ready' makes %s.\n", plural(ready, "observation is", "observations are"), map[bool]string{true: "its artifact", false: "their artifacts"}[ready == 1])
		}
	}
}

// printKept says what became of the lessons the person asked to keep:
// how many entries were kept, and each request.
func printKept(out io.Writer, res *ingest.Result) {
	if len(res.Kept) == 0 {
		return
	}
	made := 0
	for _, k := range res.Kept {
		if k.Created {
			made++
		}
	}
	verb := "Kept"
	if res.DryRun {
		verb = "Would keep"
	}
	fmt.Fprintf(out, "%s %s the person asked to keep (active at once, served from the next matching call).\n", verb, plural(made, "new entry", "new entries"))
	for _, k := range res.Kept {
		if k.TakenBack {
			fmt.Fprintf(out, "  no     %s  %s (taken back by a person: left out; 'devlearn knowledge add' keeps it again)\n", k.Key, k.Summary)
			continue
		}
		note := ""
		switch {
		case k.Archived:
			note = " (archived by a person: left so)"
		case k.Escalated:
			note = " (given again in a later session: now CRITICAL)"
		case !k.Created:
			note = " (kept before)"
		}
		fmt.Fprintf(out, "  kept   %s  %s%s\n", k.Key, k.Summary, note)
	}
}

// progress is a one-line counter on a terminal's stderr, redrawn with a
// carriage return.
type progress struct {
	w     io.Writer
	total int
	last  time.Time
}

// progressBar returns a progress line when stderr is a terminal and there
// are enough sessions for it to help; nil otherwise (never on a file or a
// pipe).
func (env *Env) progressBar(total int) *progress {
	f, ok := env.Err.(*os.File)
	if total < progressMin || !ok || !isTerminal(f) {
		return nil
	}
	return &progress{w: env.Err, total: total}
}

func (p *progress) update(done, total int) {
	if done < total && time.Since(p.last) < 50*time.Millisecond {
		return
	}
	p.last = time.Now()
	width := 30
	fill := width * done / total
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d sessions", strings.Repeat("#", fill), strings.Repeat(" ", width-fill), done, total)
}

// done clears the line, so the summary starts on a clean one.
func (p *progress) done() { fmt.Fprint(p.w, "\r\033[K") }
