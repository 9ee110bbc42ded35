package cli

import (
	"context"
	"io"

	"github.com/devlearn/devlearn/internal/classify"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/project"
)

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

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
