// Package config holds devlearn's one typed configuration (the config rule, docs/architecture.md): the
// global $DEVLEARN_HOME/config.json overridden key by key by the project's
// .memory/learning.json, both plain JSON.
//
// The struct tags are the single source of truth: the defaults, the
// validation (min, max, enum) and the published JSON Schema are all derived
// from them, so the three can never disagree.
package config

import (
	"slices"
	"strings"
)

// Config is everything a user can set. Keys are snake_case in the files.
type Config struct {
	Schema     string     `json:"$schema,omitempty" doc:"The JSON Schema of this file, for editors."`
	Enabled    bool       `json:"enabled" doc:"Master switch: false silences every hook (docs/serve.md)."`
	Thresholds Thresholds `json:"thresholds" doc:"When an observation is ready to become an artifact, per type."`
	Decay      Decay      `json:"decay" doc:"How confidence fades when a lesson is not seen again."`
	Log        Log        `json:"log" doc:"The observation log."`
	Knowledge  Knowledge  `json:"knowledge" doc:"The ADR and pitfall files and the knowledge index."`
	Extractor  Extractor  `json:"extractor" doc:"How lessons are extracted from transcripts."`
	Worker     Worker     `json:"worker" doc:"The background worker started when sessions end."`
	Serve      Serve      `json:"serve" doc:"What is injected into the agent's context, and when."`
	History    History    `json:"history" doc:"The copies of replaced files behind 'devlearn history' and 'devlearn revert'."`
	Curator    Curator    `json:"curator" doc:"The curated section devlearn keeps in the instruction files every agent reads (AGENTS.md, CLAUDE.md)."`
	Counters   Counters   `json:"counters" doc:"The helpfulness counters of every knowledge item: applied, helpful, harmful (docs/evolution.md)."`
	Classify   Classify   `json:"classify" doc:"Session classification from the first request: bug, feedback, feature, enhancement, chore."`
	Gates      Gates      `json:"gates" doc:"Quality gates: commands a person wrote, run at stage boundaries ('devlearn gate') and when the agent stops (the Stop hook); from a project file only once it is trusted (docs/gates.md)."`
	Tasks      Tasks      `json:"tasks" doc:"Failure-driven learning: rejections, two-strike, the circuit breaker and the merge of 'devlearn task done'."`
	Skills     Skills     `json:"skills" doc:"Tiered skills ($DEVLEARN_HOME/skills): which one each stage gets."`
	Prompt     Prompt     `json:"prompt" doc:"What 'devlearn prompt' assembles for an agent at a stage."`
	MCP        MCP        `json:"mcp" doc:"The agent tools of 'devlearn mcp'."`
	Directives Directives `json:"directives" doc:"The .directives/ files: discovery, what the agent is given, the checklist gate, where learned pitfalls and decisions go."`
	Redact     Redact     `json:"redact" doc:"What is redacted from learned text before it is stored (credentials always are)."`
}

// Redact configures redaction beyond credentials, which are always redacted.
type Redact struct {
	PersonalData bool `json:"personal_data" doc:"Also redact e-mail addresses and phone numbers (true by default)."`
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
	Required   int     `json:"required" min:"1" max:"1000" doc:"Sightings (distinct sessions) at which confidence is full (0.95); not the count needed to be ready, which is the first count whose confidence (count ÷ required) reaches promote."`
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
	// CandidateMaxAgeDays is ClawFlow's candidate review window.
	CandidateMaxAgeDays int `json:"candidate_max_age_days" min:"0" max:"3650" doc:"Candidate entries not promoted within this many days are archived (kept, never deleted); 0 lets them wait for ever."`
}

// Extractor configures lesson extraction.
type Extractor struct {
	LLM            bool     `json:"llm" doc:"Also run the LLM extractor (its command runs only from trusted config, docs/capture.md)."`
	Command        []string `json:"command" doc:"The LLM extractor command and its arguments; the prompt is sent on stdin."`
	Model          string   `json:"model" doc:"The model: passed as --model to Claude Code (unless the command sets it), as $DEVLEARN_LLM_MODEL to another command."`
	TimeoutSeconds int      `json:"timeout_seconds" min:"1" max:"3600" doc:"The LLM extractor is killed, with its process group, after this long."`
	Agent          bool     `json:"agent" doc:"The agent as extractor: session start teaches it the [PROCESS_KNOWLEDGE] block, and a prompt that may be a correction asks it to end its reply with one."`
	Debug          bool     `json:"debug" doc:"Keep each extractor's input and output, redacted, in <git-common-dir>/devlearn/debug/ for a person to read."`
}

// Worker configures the SessionEnd batch worker.
type Worker struct {
	BatchSize       int `json:"batch_size" min:"1" max:"1000" doc:"Ended sessions that make a batch worth a worker run."`
	LargeBatchSize  int `json:"large_batch_size" min:"1" max:"1000" doc:"The batch once the log holds large_batch_after observations: a project that has learned much waits for more sessions per run."`
	LargeBatchAfter int `json:"large_batch_after" min:"0" max:"1000000" doc:"Observations in the log from which a batch is large_batch_size sessions; 0 never."`
	DailyCap        int `json:"daily_cap" min:"0" max:"1000" doc:"Worker runs allowed per day; a batch over the cap waits for the next day."`
	// DebounceSeconds is Cloche's debounce (docs/evolution.md, Worker throttling).
	DebounceSeconds int `json:"debounce_seconds" min:"0" max:"3600" doc:"A worker waits until no session has ended for this many seconds, so sessions that end together make one pass; 0 does not wait."`
}

// History bounds the copies the one writer keeps of what it replaces.
type History struct {
	SnapshotMaxAgeDays int `json:"snapshot_max_age_days" min:"0" max:"36500" doc:"Copies last needed by a change older than this are pruned (never the newest copy of a file); 0 keeps them whatever their age."`
	SnapshotBudgetMB   int `json:"snapshot_budget_mb" min:"0" max:"100000" doc:"Size budget of all copies, in MiB: over it, the oldest are pruned first (never the newest copy of a file); 0 is no budget."`
}

// Curator configures the curated section (Cloche's prompt curator, docs/evolution.md).
type Curator struct {
	Files            []string `json:"files" doc:"Instruction files, relative to the project root, in which devlearn keeps one marked section of lessons (for example [\"AGENTS.md\", \"CLAUDE.md\"]); empty: none."`
	MaxPromptBullets int      `json:"max_prompt_bullets" min:"1" max:"1000" doc:"Bullets in a curated section at most; the least useful give way."`
	Similarity       float64  `json:"similarity" min:"0.05" max:"1" doc:"A lesson whose normalised words overlap an existing bullet's this much (0 to 1) refines that bullet in place instead of adding one."`
}

// Counters configures the helpfulness counters.
type Counters struct {
	HelpfulAfter    int  `json:"helpful_after" min:"1" max:"100" doc:"Sessions in which an item was applied and what it warns about did not recur, per helpful count."`
	ReviewAfterDays int  `json:"review_after_days" min:"0" max:"3650" doc:"An item not applied for this many days (or never, that long after it was made) is flagged for review; 0 flags none."`
	Rank            bool `json:"rank" doc:"Let the counters weigh on what the hooks serve: an item that hurt more than it helped (harmful > helpful) has its relevance score halved. Off until the counters' rules are measured on real sessions."`
}

// Classify configures session classification (Cloche's classifier, docs/evolution.md).
type Classify struct {
	LLM    bool `json:"llm" doc:"When the offline rules cannot tell, ask the LLM extractor's model; only while the LLM extractor itself may run (extractor.llm on, from the global config or a trusted project config)."`
	Weight int  `json:"weight" min:"1" max:"5" doc:"A lesson seen in a bug or feedback session counts as this many sessions toward its thresholds."`
}

// Serve configures injection into the agent's context.
type Serve struct {
	Enabled     bool    `json:"enabled" doc:"false stops injection only; capture and learning go on (docs/serve.md)."`
	Threshold   float64 `json:"threshold" min:"0" max:"10" doc:"Minimum relevance score for an entry to be injected."`
	MaxItems    int     `json:"max_items" min:"0" max:"50" doc:"Entries injected per tool call at most."`
	BudgetChars int     `json:"budget_chars" min:"500" max:"9000" doc:"Characters per hook output at most (Claude Code cuts at 10,000)."`
	// The prompt's own limits: what a request names is served before any
	// tool runs, so it is kept shorter than a tool call's.
	PromptMaxItems    int      `json:"prompt_max_items" min:"0" max:"50" doc:"Items injected at most when the person's request names them (user-prompt-submit)."`
	PromptBudgetChars int      `json:"prompt_budget_chars" min:"500" max:"9000" doc:"Characters of user-prompt-submit's output at most."`
	Weights           Weights  `json:"weights" doc:"Weights of the trigger components of a relevance score."`
	ReadOnlyTools     []string `json:"read_only_tools" doc:"Tools that only read: skipped before any scoring."`
	Drafts            bool     `json:"drafts" doc:"Serve drafts (lessons the agent wrote in [PROCESS_KNOWLEDGE] blocks) at once, marked as drafts and ranked below active entries; false serves them only once a person promotes them."`
}

// Weights of the relevance components; they need not sum to 1.
type Weights struct {
	Tool    float64 `json:"tool" min:"0" max:"1"`
	File    float64 `json:"file" min:"0" max:"1"`
	Action  float64 `json:"action" min:"0" max:"1"`
	Context float64 `json:"context" min:"0" max:"1"`
	// Command: a command the item names is run (or named by the request).
	Command float64 `json:"command" min:"0" max:"1"`
	// FileMiss is taken off when the item's file triggers all miss the
	// file a Write or Edit acts on.
	FileMiss float64 `json:"file_miss" min:"0" max:"1"`
}

// Stages are the stages a task moves through (ClawFlow's seven, docs/gates.md), in order.
var Stages = []string{"brainstorm", "design_review", "plan", "implement", "code_review", "verify", "done"}

// Gates are the quality gates (docs/gates.md). Pre gates run before a stage
// starts, post gates after it, stop gates when a Claude Code agent stops.
type Gates struct {
	Pre  StageGates `json:"pre" doc:"Gates run before a stage starts: a required failure keeps it from starting."`
	Post StageGates `json:"post" doc:"Gates run after a stage: a required failure is a rejection, with the gate's output as its feedback."`
	Stop []Gate     `json:"stop" doc:"Gates run by the Stop hook when the agent wants to stop: a required failure blocks the stop with the gate's output."`
}

// StageGates holds one list of gates per stage.
type StageGates struct {
	Brainstorm   []Gate `json:"brainstorm"`
	DesignReview []Gate `json:"design_review"`
	Plan         []Gate `json:"plan"`
	Implement    []Gate `json:"implement"`
	CodeReview   []Gate `json:"code_review"`
	Verify       []Gate `json:"verify"`
	Done         []Gate `json:"done"`
}

// For returns the gates of a stage; false for a stage devlearn does not know.
func (s *StageGates) For(stage string) ([]Gate, bool) {
	return ofStage(stage, s.Brainstorm, s.DesignReview, s.Plan, s.Implement, s.CodeReview, s.Verify, s.Done)
}

// Gate is one validation command, as docs/gates.md describes it.
type Gate struct {
	Name     string `json:"name" nonempty:"true" doc:"What the gate checks, as reports name it."`
	Command  string `json:"command" nonempty:"true" doc:"The command, run with sh -c; {{project_path}} and {{worktree}} stand for those folders (passed as quoted shell variables, never pasted into the text)."`
	Cwd      string `json:"cwd" doc:"The folder it runs in: {{project_path}}, {{worktree}}, or a path relative to the task's worktree; empty: the task's worktree."`
	Timeout  int    `json:"timeout" min:"0" max:"3600000" doc:"Milliseconds before the gate and its whole process group are killed; 0 means 60000."`
	Required bool   `json:"required" doc:"true: a failure blocks (exit 3, a rejection, a blocked stop); false: a warning."`
}

// Tasks configures failure-driven learning (docs/gates.md).
type Tasks struct {
	Similarity   float64 `json:"similarity" min:"0" max:"1" doc:"Two-strike: two rejections at a stage are similar when more than this share of their terms (error messages, file paths, key nouns) is shared."`
	BreakerAfter int     `json:"breaker_after" min:"2" max:"100" doc:"Rejections at one stage that trip the circuit breaker: the task is blocked until a person has looked."`
	GlobalAfter  int     `json:"global_after" min:"2" max:"100" doc:"The same gate failing on this many different tasks suggests a global lesson."`
	Base         string  `json:"base" doc:"The branch 'devlearn task done' merges into; empty: the repository's main branch."`
	AutoMerge    bool    `json:"auto_merge" doc:"'devlearn task done' merges the task's branch into the base; a task can keep its branch with 'task start --no-auto-merge'."`
}

// Skills configures the tiered skills (docs/gates.md).
type Skills struct {
	Stages SkillStages `json:"stages" doc:"The skill each stage is given; point a stage at another skill of $DEVLEARN_HOME/skills to override it."`
}

// SkillStages names one skill per stage.
type SkillStages struct {
	Brainstorm   string `json:"brainstorm" nonempty:"true"`
	DesignReview string `json:"design_review" nonempty:"true"`
	Plan         string `json:"plan" nonempty:"true"`
	Implement    string `json:"implement" nonempty:"true"`
	CodeReview   string `json:"code_review" nonempty:"true"`
	Verify       string `json:"verify" nonempty:"true"`
	Done         string `json:"done" nonempty:"true"`
}

// For returns the skill of a stage; false for a stage devlearn does not know.
func (s *SkillStages) For(stage string) (string, bool) {
	return ofStage(stage, s.Brainstorm, s.DesignReview, s.Plan, s.Implement, s.CodeReview, s.Verify, s.Done)
}

// ofStage picks stage's value among one per stage, given in Stages' order.
func ofStage[T any](stage string, perStage ...T) (T, bool) {
	if i := slices.Index(Stages, stage); i >= 0 && i < len(perStage) {
		return perStage[i], true
	}
	var none T
	return none, false
}

// Prompt configures 'devlearn prompt'.
type Prompt struct {
	BudgetTokens int `json:"budget_tokens" min:"300" max:"200000" doc:"Tokens the whole prompt may take: the knowledge index gives way first, then the skill's core is cut."`
}

// MCP configures the agent tools (docs/gates.md).
type MCP struct {
	Role       string   `json:"role" enum:"workshop,pipeline" doc:"The role 'devlearn mcp' serves unless given --role: workshop (a person takes part) or pipeline (an agent on its own)."`
	Supervised bool     `json:"supervised" doc:"save_knowledge in a workshop session writes an active entry (docs/serve.md); off, every save is a candidate for review."`
	Tools      MCPTools `json:"tools" doc:"The tools each role is offered."`
}

// MCPToolNames are the agent tools devlearn has.
const MCPToolNames = "fetch_knowledge,save_knowledge,list_knowledge,update_knowledge,fetch_skill_detail,view_skill,edit_skill"

// MCPTools lists the tools of each role.
type MCPTools struct {
	Workshop []string `json:"workshop" enum:"fetch_knowledge,save_knowledge,list_knowledge,update_knowledge,fetch_skill_detail,view_skill,edit_skill" doc:"Tools of a workshop session."`
	Pipeline []string `json:"pipeline" enum:"fetch_knowledge,save_knowledge,list_knowledge,update_knowledge,fetch_skill_detail,view_skill,edit_skill" doc:"Tools of a pipeline agent: read, and propose candidates."`
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
		Knowledge: Knowledge{SoftCap: 100, IndexBudgetTokens: 1500, CandidateMaxAgeDays: 30},
		Extractor: Extractor{
			Command:        []string{"claude", "-p", "--output-format", "json", "--max-turns", "1", "--no-session-persistence", "--settings", `{"disableAllHooks":true}`},
			Model:          "sonnet",
			TimeoutSeconds: 120,
			Agent:          true,
		},
		Worker:   Worker{BatchSize: 3, LargeBatchSize: 5, LargeBatchAfter: 15, DailyCap: 5, DebounceSeconds: 30},
		Redact:   Redact{PersonalData: true},
		History:  History{SnapshotMaxAgeDays: 90, SnapshotBudgetMB: 100},
		Curator:  Curator{Files: []string{}, MaxPromptBullets: 50, Similarity: 0.6},
		Counters: Counters{HelpfulAfter: 3, ReviewAfterDays: 60},
		Classify: Classify{Weight: 2},
		Serve: Serve{
			Enabled:           true,
			Threshold:         0.7,
			MaxItems:          3,
			BudgetChars:       9000,
			PromptMaxItems:    3,
			PromptBudgetChars: 4000,
			Weights:           Weights{Tool: 0.4, File: 0.4, Action: 0.1, Context: 0.1, Command: 0.4, FileMiss: 0.4},
			ReadOnlyTools:     []string{"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoRead"},
			Drafts:            true,
		},
		Tasks: Tasks{Similarity: 0.5, BreakerAfter: 3, GlobalAfter: 3, AutoMerge: true},
		Skills: Skills{Stages: SkillStages{
			Brainstorm: "brainstorming", DesignReview: "design-review", Plan: "writing-plans",
			Implement: "test-driven-development", CodeReview: "code-review", Verify: "verification", Done: "completion",
		}},
		Prompt: Prompt{BudgetTokens: 6000},
		MCP: MCP{
			Role: "workshop",
			Tools: MCPTools{
				Workshop: strings.Split(MCPToolNames, ","),
				Pipeline: []string{"fetch_knowledge", "save_knowledge", "fetch_skill_detail"},
			},
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
