package cli

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/devlearn/devlearn/internal/classify"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// sessionClasses classifies the sessions a capture pipeline reads, and
// keeps them in the clone's store once the run is done.
type sessionClasses struct {
	mu   sync.Mutex
	seen map[string]classify.Session
	// ask is the LLM route, when classify.llm is on and the LLM
	// extractor may run; nil otherwise.
	ask func(request string) (string, error)
}

// watch makes pl classify every session it reads, and weigh the
// sightings of bug and feedback sessions by classify.weight.
func (sc *sessionClasses) watch(pl *ingest.Pipeline) {
	sc.seen = map[string]classify.Session{}
	pl.OnSession = func(s *ingest.Session) {
		c := classifySession(s.Channels, pl.Now)
		if c.Class == classify.Unclassified && sc.ask != nil && c.full != "" {
			if class, err := sc.ask(c.full); err == nil {
				c.Class, c.By, c.Why = class, "llm", ""
			} else if pl.Logf != nil {
				pl.Logf("session %s: classifying with the model: %v", s.ID, err)
			}
		}
		sc.mu.Lock()
		sc.seen[s.ID] = c.Session
		sc.mu.Unlock()
	}
	weight := pl.Config.Classify.Weight
	var stored map[string]classify.Session
	pl.Weight = func(session string) int {
		sc.mu.Lock()
		c, ok := sc.seen[session]
		sc.mu.Unlock()
		if !ok {
			// A session of an earlier batch (a request repeated across
			// sessions): as it was classified then.
			if stored == nil {
				stored, _ = classify.StoreOf(pl.Proj).Load()
			}
			c, ok = stored[session]
		}
		if ok && classify.Weighs(c.Class) {
			return weight
		}
		return 1
	}
}

// save records what was classified (not in a dry run).
func (sc *sessionClasses) save(ctx context.Context, p *project.Project) error {
	return classify.StoreOf(p).Put(ctx, sc.seen)
}

// classified is a session's class and the whole first request (for the
// model, when the rules cannot tell; only its start is kept).
type classified struct {
	classify.Session
	full string
}

// classifySession classifies a session by its first request.
func classifySession(ch *transcript.Channels, now time.Time) classified {
	var msgs []string
	at := ""
	for _, s := range ch.UserSignals {
		msgs = append(msgs, s.Text)
		if s.Timestamp > at {
			at = s.Timestamp
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
		at = t.UTC().Format(time.RFC3339)
	} else {
		at = now.UTC().Format(time.RFC3339)
	}
	req := classify.FirstRequest(msgs)
	c := classify.Session{Result: classify.Rules(req), At: at}
	c.Request = redact.Text(cutRunes(req, 120))
	return classified{Session: c, full: req}
}

// askModel is the LLM route of the classifier for p: the LLM extractor's
// runner, when classify.llm is on and the extractor may run (the trust
// rule, docs/architecture.md); nil otherwise.
func (env *Env) askModel(ctx context.Context, p *project.Project, cfg *config.Config) func(string) (string, error) {
	if !cfg.Classify.LLM {
		return nil
	}
	runner, _, err := env.llmRunner(p, cfg, io.Discard)
	if err != nil || runner == nil {
		return nil
	}
	return func(request string) (string, error) {
		return runner.Classify(ctx, request, classify.Classes)
	}
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
