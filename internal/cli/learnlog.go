package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// workspace is what most commands start from: the project, its config, the
// observation log and the current time.
type workspace struct {
	proj *project.Project
	cfg  *config.Loaded
	log  observe.Store
	now  time.Time
	home string
	// ctx is the command's: cancelled at SIGINT or SIGTERM.
	ctx context.Context
}

func (env *Env) workspace() (*workspace, error) {
	now, err := env.Now()
	if err != nil {
		return nil, err
	}
	p, err := env.Project()
	if err != nil {
		return nil, err
	}
	cfg, err := env.Config(p)
	if err != nil {
		return nil, err
	}
	return &workspace{
		proj: p,
		cfg:  cfg,
		log:  observe.ProjectStore(p),
		now:  now,
		home: env.Home(),
		ctx:  env.Context(),
	}, nil
}

// loadLog folds the observation log and warns about every line it skipped,
// naming the file and the line and what to do.
func (w *workspace) loadLog(env *Env) (*observe.Log, error) {
	l, err := w.log.Load()
	if err != nil {
		return nil, err
	}
	warnProblems(env, project.LogFile, l.Problems)
	return l, nil
}

func warnProblems(env *Env, rel string, problems []jsonl.Problem) {
	markers := false
	for _, p := range problems {
		if gitx.IsMarkerLine([]byte(p.Text)) {
			markers = true
			continue
		}
		fmt.Fprintf(env.Err, "devlearn: %s:%d: %v (skipped; run 'devlearn learn --purge' to drop it)\n", rel, p.Line, p.Err)
	}
	if markers {
		// Purging would drop the markers and keep both sides' lines, but
		// resolve also records the merge in git's index.
		fmt.Fprintf(env.Err, "devlearn: %s has merge conflict markers (skipped); run 'devlearn resolve' to merge both sides' lines, and 'devlearn init' to let git merge it by itself next time\n", rel)
	}
}
