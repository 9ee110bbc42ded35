// Package config holds devlearn's one typed configuration (contract 3): the
// global $DEVLEARN_HOME/config.json overridden key by key by the project's
// .memory/learning.json, both plain JSON.
//
// The struct tags are the single source of truth: the defaults, the
// validation (min, max, enum) and the published JSON Schema are all derived
// from them, so the three can never disagree.
package config

// Config is everything a user can set. Keys are snake_case in the files.
type Config struct {
	Schema     string     `json:"$schema,omitempty" doc:"The JSON Schema of this file, for editors."`
	Enabled    bool       `json:"enabled" doc:"Master switch: false silences every hook (contract 5)."`
	Thresholds Thresholds `json:"thresholds" doc:"When an observation is ready to become an artifact, per type."`
	Decay      Decay      `json:"decay" doc:"How confidence fades when a lesson is not seen again."`
	Log        Log        `json:"log" doc:"The observation log."`
	Knowledge  Knowledge  `json:"knowledge" doc:"The ADR and pitfall files and the knowledge index."`
	Extractor  Extractor  `json:"extractor" doc:"How lessons are extracted from transcripts."`
	Worker     Worker     `json:"worker" doc:"The background worker started when sessions end."`
	Serve      Serve      `json:"serve" doc:"What is injected into the agent's context, and when."`
	Directives Directives `json:"directives" doc:"The .directives/ files: discovery, what the agent is given, the checklist gate, where learned pitfalls and decisions go."`
}

// Thresholds holds one promotion rule per observation type.
type Thresholds struct {
	Workflow   Threshold `json:"workflow"`
	Procedural Threshold `json:"procedural"`
	Decision   Threshold `json:"decision"`
	Pitfall    Threshold `json:"pitfall"`
}

// Threshold is devflow's promotion rule: ready when quality is confirmed,
// confidence has reached Promote and the sightings span SpreadDays.
type Threshold struct {
	Required   int     `json:"required" min:"1" max:"1000" doc:"Sightings (distinct sessions) for full confidence."`
	SpreadDays float64 `json:"spread_days" min:"0" max:"3650" doc:"Days between the first and the last sighting."`
	Promote    float64 `json:"promote" min:"0" max:"0.95" doc:"Confidence at which the observation is ready (confidence never exceeds 0.95)."`
}

// Decay fades the confidence of observations not seen for a while. It is
// computed when the log is folded and never stored, so it cannot compound.
type Decay struct {
	AfterDays    float64 `json:"after_days" min:"0" max:"3650" doc:"Days without a sighting before confidence starts to fade."`
	HalfLifeDays float64 `json:"half_life_days" min:"0" max:"3650" doc:"Days over which faded confidence halves; 0 turns decay off."`
}

// Log bounds the observation log.
type Log struct {
	MaxObserving int `json:"max_observing" min:"10" max:"1000000" doc:"Observations still 'observing' kept by compact (the weakest beyond it are dropped; ready, created and deprecated ones never are)."`
}

// Knowledge configures the ADR/pitfall files and the index.
type Knowledge struct {
	SoftCap           int `json:"soft_cap" min:"1" max:"100000" doc:"Active entries per knowledge file before new ones are held for review."`
	IndexBudgetTokens int `json:"index_budget_tokens" min:"100" max:"100000" doc:"Token budget of the knowledge index shown to the agent."`
}

// Extractor configures lesson extraction.
type Extractor struct {
	LLM            bool     `json:"llm" doc:"Also run the LLM extractor (its command runs only from trusted config, contract 4)."`
	Command        []string `json:"command" doc:"The LLM extractor command and its arguments; the prompt is sent on stdin."`
	Model          string   `json:"model" doc:"The model: passed as --model to Claude Code (unless the command sets it), as $DEVLEARN_LLM_MODEL to another command."`
	TimeoutSeconds int      `json:"timeout_seconds" min:"1" max:"3600" doc:"The LLM extractor is killed, with its process group, after this long."`
}

// Worker configures the SessionEnd batch worker.
type Worker struct {
	BatchSize int `json:"batch_size" min:"1" max:"1000" doc:"Ended sessions that make a batch worth a worker run."`
	DailyCap  int `json:"daily_cap" min:"0" max:"1000" doc:"Worker runs allowed per day; a batch over the cap waits for the next day."`
}

// Serve configures injection into the agent's context.
type Serve struct {
	Enabled       bool     `json:"enabled" doc:"false stops injection only; capture and learning go on (contract 5)."`
	Threshold     float64  `json:"threshold" min:"0" max:"10" doc:"Minimum relevance score for an entry to be injected."`
	MaxItems      int      `json:"max_items" min:"0" max:"50" doc:"Entries injected per tool call at most."`
	BudgetChars   int      `json:"budget_chars" min:"500" max:"9000" doc:"Characters per hook output at most (Claude Code cuts at 10,000)."`
	Weights       Weights  `json:"weights" doc:"Weights of the trigger components of a relevance score."`
	ReadOnlyTools []string `json:"read_only_tools" doc:"Tools that only read: skipped before any scoring."`
}

// Weights of the relevance components; they need not sum to 1.
type Weights struct {
	Tool    float64 `json:"tool" min:"0" max:"1"`
	File    float64 `json:"file" min:"0" max:"1"`
	Action  float64 `json:"action" min:"0" max:"1"`
	Context float64 `json:"context" min:"0" max:"1"`
}

// Directives configures the .directives/ files of a project (see
// docs/directives.md).
type Directives struct {
	Enabled       bool     `json:"enabled" doc:"Discover .directives/ files around what the agent touches and give it the ones it has not seen in the session (post-tool-use)."`
	Ignore        []string `json:"ignore" doc:"Folder names in which directives are never collected (node_modules, vendor, .git, ...)."`
	BudgetChars   int      `json:"budget_chars" min:"500" max:"9000" doc:"Characters per hook output for directives given in full (the core types); what does not fit is named."`
	ChecklistGate bool     `json:"checklist_gate" doc:"The Stop hook blocks until the CHECKLIST.md of an area the session changed is submitted ticked with 'devlearn directives check'."`
	AskAfterEdits int      `json:"ask_after_edits" min:"0" max:"1000" doc:"Ask the person before the Nth edit in folders whose directives the agent was never shown; 0 never asks."`
	Learned       string   `json:"learned" enum:"central,directives" doc:"Where a learned pitfall or decision with an area is rendered: central (.memory/knowledge) or directives (PITFALLS.md / INVARIANTS.md of the area's nearest .directives/ folder)."`
}

// Default returns the configuration used where no file sets a key. The
// thresholds are devflow's table, so migrated projects behave as before.
func Default() *Config {
	return &Config{
		Enabled: true,
		Thresholds: Thresholds{
			Workflow:   Threshold{Required: 3, SpreadDays: 3, Promote: 0.60},
			Procedural: Threshold{Required: 4, SpreadDays: 5, Promote: 0.70},
			Decision:   Threshold{Required: 2, SpreadDays: 0, Promote: 0.65},
			Pitfall:    Threshold{Required: 2, SpreadDays: 0, Promote: 0.65},
		},
		Decay:     Decay{AfterDays: 30, HalfLifeDays: 90},
		Log:       Log{MaxObserving: 1000},
		Knowledge: Knowledge{SoftCap: 100, IndexBudgetTokens: 1500},
		Extractor: Extractor{
			Command:        []string{"claude", "-p", "--output-format", "json", "--max-turns", "1", "--no-session-persistence", "--settings", `{"disableAllHooks":true}`},
			Model:          "sonnet",
			TimeoutSeconds: 120,
		},
		Worker: Worker{BatchSize: 3, DailyCap: 5},
		Serve: Serve{
			Enabled:       true,
			Threshold:     0.7,
			MaxItems:      3,
			BudgetChars:   9000,
			Weights:       Weights{Tool: 0.4, File: 0.4, Action: 0.1, Context: 0.1},
			ReadOnlyTools: []string{"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoRead"},
		},
		Directives: Directives{
			Enabled:       true,
			Ignore:        []string{".git", ".hg", ".svn", "node_modules", "vendor", ".venv", "venv", "__pycache__", "dist", "build", "target"},
			BudgetChars:   6000,
			ChecklistGate: true,
			Learned:       "central",
		},
	}
}

// For returns the promotion rule of an observation type, and false for a
// type devlearn does not know.
func (t *Thresholds) For(typ string) (Threshold, bool) {
	switch typ {
	case "workflow":
		return t.Workflow, true
	case "procedural":
		return t.Procedural, true
	case "decision":
		return t.Decision, true
	case "pitfall":
		return t.Pitfall, true
	}
	return Threshold{}, false
}
