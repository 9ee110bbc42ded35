package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
)

// written is what add, promote and archive report.
type written struct {
	Key    string `json:"key"`
	Scope  string `json:"scope"`
	Path   string `json:"path"`
	Status string `json:"status"`
	// Changed is false when the file was already as asked.
	Changed bool   `json:"changed"`
	Copy    string `json:"global_copy,omitempty"`
}

func newKnowledgeAddCmd(env *Env) *cobra.Command {
	var (
		e              knowledge.Entry
		body, from     string
		global, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Write a new knowledge entry, validated",
		Long: `Write a new knowledge entry to .memory/knowledge/entries/<key>.md (or,
with --global, to $DEVLEARN_HOME/knowledge/entries/). Give the entry by
flags, or as a whole file with --from FILE (- for stdin):

  ---
  key: version-bump-checklist
  summary: Bumping a version means four files, not one
  kind: checklist            # checklist | pattern | warning | requirement | note
  category: convention       # business_rule | architecture | api_quirk | lesson_learned | convention
  priority: CRITICAL         # CRITICAL | HIGH | MEDIUM | LOW
  status: active             # candidate | active | archived
  source: manual             # manual | workshop | pipeline | fdrl | transcript | stop-hook | gate | llm
  ask: false                 # true: ask the person before the tool runs when served
  tags: [release]
  triggers:
    tools: [Write, Edit]
    files: ["**/plugin.json"]
    actions: [version bump, release]
    context: [deployment]
  ---
  - [ ] plugin.json

The key defaults to the slug of the summary; a candidate's to the slug and a
hash of its content. An existing entry is never overwritten.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if from != "" {
				if c.Flags().NFlag() > countSet(c, "from", "global", "json", "key") {
					return exitcode.Usagef("--from takes the whole entry; only --key, --global and --json go with it")
				}
				data, name, err := readInput(env, from)
				if err != nil {
					return err
				}
				key := e.Key
				parsed, err := knowledge.ParseDraft(name, data)
				if err != nil {
					return err
				}
				e = *parsed
				if key != "" {
					e.Key = key
				}
			} else if body != "" {
				if body == "-" {
					data, err := io.ReadAll(env.In)
					if err != nil {
						return err
					}
					body = string(data)
				}
				e.Body = body
			}
			if e.Summary == "" {
				return exitcode.Usagef("add needs --summary (one line saying what the entry is about), or --from FILE")
			}
			if from == "" {
				if err := checkEntryFlags(&e); err != nil {
					return err
				}
			}
			w, err := env.knowledgeWS(!global)
			if err != nil {
				return err
			}
			st, err := w.store(global, "knowledge add")
			if err != nil {
				return err
			}
			// Redacted before its key is made of its summary: a file's
			// name is committed too.
			e = *st.Redacted(&e)
			if e.Status == knowledge.StatusCandidate && e.Key == "" {
				e.Key = knowledge.CandidateKey(&e)
			}
			if e.Key == "" {
				e.Key = knowledge.KeyFor(e.Summary)
				if e.Key == "" {
					return exitcode.Usagef("the summary %q gives no key: pass --key", e.Summary)
				}
			}
			if err := knowledge.ValidKey(e.Key); err != nil {
				return exitcode.UsageError(err)
			}
			path, created, err := st.Create(env.Context(), &e, "knowledge add: "+e.Summary)
			if err != nil {
				return err
			}
			if !created {
				return exitcode.RefusedError(fmt.Errorf("%s already exists", path),
					"edit that file, or pass another --key; 'devlearn knowledge show "+e.Key+"' prints it")
			}
			out := written{Key: e.Key, Scope: st.Scope, Path: path, Status: e.Status, Changed: true}
			if asJSON {
				return printJSON(env.Out, out)
			}
			fmt.Fprintf(env.Out, "Added %s (%s %s %s, %s).\n", path, e.Status, e.Priority, e.Kind, st.Scope)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&e.Key, "key", "", "the entry's key and file name (default: the slug of the summary; a candidate's, the slug and a hash)")
	f.StringVar(&e.Summary, "summary", "", "one line saying what the entry is about")
	f.StringVar(&e.Kind, "kind", "", "checklist, pattern, warning, requirement or note (default note)")
	f.StringVar(&e.Category, "category", "", "business_rule, architecture, api_quirk, lesson_learned or convention")
	f.StringVar(&e.Priority, "priority", "", "CRITICAL, HIGH, MEDIUM or LOW (default MEDIUM)")
	f.StringVar(&e.Status, "status", "", "candidate, draft, active or archived (default active)")
	f.StringVar(&e.Source, "source", "", strings.Join(knowledge.Origins, ", ")+" (default manual)")
	f.BoolVar(&e.Ask, "ask", false, "ask the person before the tool runs when this entry is served")
	f.StringSliceVar(&e.Tags, "tags", nil, "tags, comma-separated (or repeat --tags; --tag works too)")
	f.SetNormalizeFunc(tagAlias)
	f.StringArrayVar(&e.Triggers.Tools, "tool", nil, "trigger: a tool name such as Write (repeat)")
	f.StringArrayVar(&e.Triggers.Files, "file", nil, "trigger: a file glob such as '**/plugin.json' (repeat)")
	f.StringArrayVar(&e.Triggers.Actions, "action", nil, "trigger: an action keyword such as 'version bump' (repeat)")
	f.StringArrayVar(&e.Triggers.Context, "context", nil, "trigger: a context keyword (repeat)")
	f.StringVar(&body, "body", "", "the markdown body (- reads it from stdin)")
	f.StringVar(&from, "from", "", "read the whole entry (front matter and body) from FILE, - for stdin")
	f.BoolVar(&global, "global", false, "write to the global store ($DEVLEARN_HOME/knowledge/entries)")
	f.BoolVar(&asJSON, "json", false, "print what was written as JSON")
	return cmd
}

// tagAlias lets --tag stand for --tags, its first name.
func tagAlias(f *pflag.FlagSet, name string) pflag.NormalizedName {
	if name == "tag" {
		name = "tags"
	}
	return pflag.NormalizedName(name)
}

func countSet(c *cobra.Command, names ...string) int {
	n := 0
	for _, name := range names {
		if c.Flags().Changed(name) {
			n++
		}
	}
	return n
}

func readInput(env *Env, from string) ([]byte, string, error) {
	if from == "-" {
		data, err := io.ReadAll(env.In)
		return data, "stdin", err
	}
	data, err := os.ReadFile(from)
	return data, from, err
}

func newKnowledgePromoteCmd(env *Env) *cobra.Command {
	var global, asJSON bool
	cmd := &cobra.Command{
		Use:   "promote KEY",
		Short: "Accept a draft or candidate entry: its status becomes active",
		Long: `Accept a draft or candidate entry after review: its status becomes active, so it is
listed in the index and served by relevance. The project's entry is
promoted, or the global one when the project has none. --global also
copies the entry to the global store, for every project on this machine.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.knowledgeWS(false)
			if err != nil {
				return err
			}
			st, e, err := w.locate(args[0], false, "knowledge promote")
			if err != nil {
				return err
			}
			out := written{Key: e.Key, Scope: st.Scope, Status: knowledge.StatusActive, Changed: e.Status != knowledge.StatusActive}
			if e.Status == knowledge.StatusArchived {
				return exitcode.RefusedError(fmt.Errorf("%s is archived", e.Key), "promote accepts drafts and candidates only; edit the file's status to bring an archived entry back")
			}
			saved, data, path, err := st.SetStatus(env.Context(), e.Key, knowledge.StatusActive, "knowledge promote: "+e.Summary)
			if err != nil {
				return err
			}
			out.Path = path
			if global && st.Scope == knowledge.ScopeProject {
				g, err := w.globalStore()
				if err != nil {
					return err
				}
				gpath, err := g.Copy(env.Context(), saved, data, "knowledge promote --global")
				if err != nil {
					return exitcode.RefusedError(err, "compare them with 'devlearn knowledge show --global "+e.Key+"'")
				}
				out.Copy = gpath
			}
			if asJSON {
				return printJSON(env.Out, out)
			}
			if out.Changed {
				fmt.Fprintf(env.Out, "Promoted %s: active, served from now on (%s).\n", e.Key, path)
			} else {
				fmt.Fprintf(env.Out, "%s is already active (%s).\n", e.Key, path)
			}
			if out.Copy != "" {
				fmt.Fprintf(env.Out, "Copied to the global store: %s\n", out.Copy)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "also copy the entry to the global store")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was written as JSON")
	return cmd
}

func newKnowledgeArchiveCmd(env *Env) *cobra.Command {
	var global, asJSON bool
	cmd := &cobra.Command{
		Use:   "archive KEY",
		Short: "Retire an entry: kept for history, never served again",
		Long: `Set an entry's status to archived: it stays in its file for history (and
for 'devlearn knowledge index --all') but is never served again. The
project's entry is archived, or the global one with --global or when the
project has none.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.knowledgeWS(false)
			if err != nil {
				return err
			}
			st, e, err := w.locate(args[0], global, "knowledge archive")
			if err != nil {
				return err
			}
			_, _, path, err := st.SetStatus(env.Context(), e.Key, knowledge.StatusArchived, "knowledge archive: "+e.Summary)
			if err != nil {
				return err
			}
			out := written{Key: e.Key, Scope: st.Scope, Path: path, Status: knowledge.StatusArchived, Changed: e.Status != knowledge.StatusArchived}
			if asJSON {
				return printJSON(env.Out, out)
			}
			if out.Changed {
				fmt.Fprintf(env.Out, "Archived %s (%s): no longer served.\n", e.Key, path)
			} else {
				fmt.Fprintf(env.Out, "%s is already archived (%s).\n", e.Key, path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "archive the global store's entry")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was written as JSON")
	return cmd
}

// locate finds an entry by key: in the project unless global, else (or
// when the project has none) in the global store.
func (w *knowledgeWS) locate(key string, global bool, command string) (*entrystore.Store, *knowledge.Entry, error) {
	if err := knowledge.ValidKey(key); err != nil {
		return nil, nil, exitcode.UsageError(err)
	}
	var stores []*entrystore.Store
	if !global && w.proj != nil {
		st, err := w.store(false, command)
		if err != nil {
			return nil, nil, err
		}
		stores = append(stores, st)
	}
	if w.home != "" {
		g, err := w.globalStore()
		if err != nil {
			return nil, nil, err
		}
		stores = append(stores, g)
	}
	for _, st := range stores {
		e, _, err := st.Read(key)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return st, e, nil
	}
	return nil, nil, fmt.Errorf("no entry %q: %w (list them with 'devlearn knowledge list')", key, errNoEntry)
}

// checkEntryFlags names the flag that holds a bad value, not the file the
// entry would have become.
func checkEntryFlags(e *knowledge.Entry) error {
	for _, f := range []struct {
		flag, value string
		allowed     []string
	}{
		{"kind", e.Kind, knowledge.Kinds},
		{"category", e.Category, knowledge.Categories},
		{"priority", e.Priority, knowledge.Priorities},
		{"status", e.Status, knowledge.Statuses},
		{"source", e.Source, knowledge.Origins},
	} {
		if f.value == "" {
			continue
		}
		ok := false
		for _, a := range f.allowed {
			// Priorities are accepted in any case, as in an entry file.
			if f.value == a || (f.flag == "priority" && strings.EqualFold(f.value, a)) {
				ok = true
			}
		}
		if !ok {
			return exitcode.Usagef("--%s %q is not one of %s", f.flag, f.value, strings.Join(f.allowed, ", "))
		}
	}
	return nil
}
