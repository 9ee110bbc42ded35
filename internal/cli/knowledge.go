package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
)

func newKnowledgeCmd(env *Env) *cobra.Command {
	cmd := asParent(&cobra.Command{
		Use:   "knowledge",
		Short: "Decisions, pitfalls and knowledge entries: index, show, list, search, add, update, promote, archive, why, age",
		Long: `What devlearn serves back to the agent: the ADR sections of
.memory/knowledge/decisions.md, the PF sections of pitfalls.md, and
knowledge entries, one markdown file each with YAML front matter, in
.memory/knowledge/entries/ (project) and $DEVLEARN_HOME/knowledge/entries/
(global).`,
		GroupID: "learn",
	})
	cmd.AddCommand(
		newKnowledgeIndexCmd(env),
		newKnowledgeShowCmd(env),
		newKnowledgeListCmd(env),
		newKnowledgeSearchCmd(env),
		newKnowledgeAddCmd(env),
		newKnowledgeUpdateCmd(env),
		newKnowledgePromoteCmd(env),
		newKnowledgeArchiveCmd(env),
		newKnowledgeWhyCmd(env),
		newKnowledgeStatsCmd(env),
		newKnowledgeAgeCmd(env),
	)
	return cmd
}

// knowledgeWS is what the knowledge commands work on. The project is
// optional for commands on the global store alone.
type knowledgeWS struct {
	proj *project.Project
	cfg  *config.Config
	src  knowledge.Sources
	home string
	env  *Env
}

func (env *Env) knowledgeWS(needProject bool) (*knowledgeWS, error) {
	w := &knowledgeWS{home: env.Home(), env: env}
	p, err := env.Project()
	switch {
	case err == nil:
		w.proj = p
	case needProject:
		return nil, err
	}
	l, err := env.Config(w.proj)
	if err != nil {
		return nil, err
	}
	w.cfg = l.Config
	w.src = knowledge.Sources{GlobalDir: knowledge.GlobalEntriesDir(w.home)}
	if w.proj != nil {
		w.src.Root, w.src.State = w.proj.Root, w.proj.CommonDir
	}
	return w, nil
}

// load reads every item, through the cache (checked file by file), and
// warns about broken entries on stderr: they are skipped, never fatal.
func (w *knowledgeWS) load() *knowledge.Set {
	cache := ""
	if w.proj != nil {
		cache = knowledge.CachePath(w.proj)
	}
	set, _ := knowledge.Load(w.src, cache, knowledge.Full)
	for _, p := range set.Problems {
		fmt.Fprintf(w.env.Err, "devlearn: %v (skipped; fix the file, the other entries are served)\n", p)
	}
	return set
}

// store is the project's entries folder, or the global one.
func (w *knowledgeWS) store(global bool, command string) (*entrystore.Store, error) {
	st, err := w.storeIn(global, command)
	if st != nil {
		st.Redact = redact.For(w.cfg.Redact.PersonalData)
	}
	return st, err
}

func (w *knowledgeWS) storeIn(global bool, command string) (*entrystore.Store, error) {
	if global {
		if w.home == "" {
			return nil, fmt.Errorf("no global store: set DEVLEARN_HOME or HOME")
		}
		return w.globalStore()
	}
	if w.proj == nil {
		return nil, exitcode.WithHint(fmt.Errorf("not inside a git repository, so there is no project store"), "run it inside the project, or pass --global for the global store")
	}
	now, err := w.env.Now()
	if err != nil {
		return nil, err
	}
	//devlearn:triggers "knowledge add" "knowledge promote" "knowledge archive"
	return entrystore.Project(w.proj, evolve.New(w.proj, now, evolve.Trigger{Command: command})), nil
}

// notFound is the error of an id that names nothing.
func notFound(id string) error {
	return fmt.Errorf("no decision, pitfall or entry %q (list them with 'devlearn knowledge index --all')", id)
}

var errNoEntry = errors.New("no such entry")

// globalStore is the global entries folder, stamped with the command's
// clock.
func (w *knowledgeWS) globalStore() (*entrystore.Store, error) {
	st := entrystore.Global(w.home)
	now, err := w.env.Now()
	st.Now = now
	return st, err
}
