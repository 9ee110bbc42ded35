package classify

import (
	"context"
	"sync"
	"time"

	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// Sessions classifies the sessions a capture pipeline reads, and keeps
// them in the clone's store once the run is done.
type Sessions struct {
	mu   sync.Mutex
	seen map[string]Session
	// ask is the LLM route, when classify.llm is on and the LLM
	// extractor may run; nil otherwise.
	ask func(request string) (string, error)
}

// Watch makes pl classify every session it reads, and weigh the
// sightings of bug and feedback sessions by classify.weight. ask is the
// LLM route for a session the rules cannot tell (nil: none).
func Watch(pl *ingest.Pipeline, ask func(request string) (string, error)) *Sessions {
	if pl.DryRun {
		ask = nil // a dry run spends nothing: no model is asked
	}
	sc := &Sessions{seen: map[string]Session{}, ask: ask}
	pl.OnSession = func(s *ingest.Session) {
		c := classifySession(s.Channels, pl.Now)
		if c.Class == Unclassified && sc.ask != nil && c.full != "" {
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
	var stored map[string]Session
	pl.Weight = func(session string) int {
		sc.mu.Lock()
		c, ok := sc.seen[session]
		sc.mu.Unlock()
		if !ok {
			// A session of an earlier batch (a request repeated across
			// sessions): as it was classified then.
			if stored == nil {
				stored, _ = StoreOf(pl.Proj).Load()
			}
			c, ok = stored[session]
		}
		if ok && Weighs(c.Class) {
			return weight
		}
		return 1
	}
	return sc
}

// Save records what was classified (not in a dry run).
func (sc *Sessions) Save(ctx context.Context, p *project.Project) error {
	return StoreOf(p).Put(ctx, sc.seen)
}

// classified is a session's class and the whole first request (for the
// model, when the rules cannot tell; only its start is kept).
type classified struct {
	Session
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
	req := FirstRequest(msgs)
	c := Session{Result: Rules(req), At: at}
	c.Request = redact.Text(cutRunes(req, 120))
	return classified{Session: c, full: req}
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
