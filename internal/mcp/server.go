// Package mcp is devlearn's MCP server (docs/gates.md, Agent tools over MCP): the agent tools
// over the knowledge store and the tiered skills, served over stdio with
// the official Go SDK. Which tools a session is offered depends on its
// role: a workshop session (a person takes part) may edit; a pipeline
// agent reads and proposes candidates. Everything saved through a tool is
// redacted and written by the same code, through the same audited writer,
// as the commands.
//
// The SDK is linked here only: the hooks never import this package.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/inject"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/skills"
)

// Roles of a session.
const (
	RoleWorkshop = "workshop"
	RolePipeline = "pipeline"
)

// The tools, by ClawFlow's names.
const (
	ToolFetchKnowledge  = "fetch_knowledge"
	ToolSaveKnowledge   = "save_knowledge"
	ToolListKnowledge   = "list_knowledge"
	ToolUpdateKnowledge = "update_knowledge"
	ToolFetchSkill      = "fetch_skill_detail"
	ToolViewSkill       = "view_skill"
	ToolEditSkill       = "edit_skill"
)

// Options is what a server works on.
type Options struct {
	// Proj is the project; nil outside one (only the global store and
	// the skills then).
	Proj *project.Project
	Home string
	Cfg  *config.Config
	// Role is workshop or pipeline; it picks the tools (mcp.tools) and
	// whether a save may be active (mcp.supervised, workshop only).
	Role string
	// Now is the clock of every write; Redact scrubs what is saved.
	Now    func() time.Time
	Redact func(string) string
	// Version is devlearn's, for the handshake.
	Version string
	// SourceID names what the session works on in the entries it saves
	// ($DEVLEARN_TASK, say); may be empty.
	SourceID string
}

// Tools lists the tools a role is offered.
func Tools(cfg *config.Config, role string) ([]string, error) {
	switch role {
	case RoleWorkshop:
		return cfg.MCP.Tools.Workshop, nil
	case RolePipeline:
		return cfg.MCP.Tools.Pipeline, nil
	}
	return nil, fmt.Errorf("role %q is not workshop or pipeline", role)
}

// New builds the server with the tools of the role.
func New(o Options) (*sdk.Server, error) {
	offered, err := Tools(o.Cfg, o.Role)
	if err != nil {
		return nil, err
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "devlearn", Title: "devlearn: project knowledge and skills", Version: o.Version}, &sdk.ServerOptions{
		Instructions: "devlearn keeps this project's knowledge (business rules, architecture decisions, API quirks, lessons learned, conventions) and the skills of each stage. " +
			"The knowledge index at the start of the session lists entries as [key] summary: fetch_knowledge(key_or_id) reads one in full. " +
			"fetch_skill_detail(skill_name) reads a skill's extended guidance.",
	})
	h := &handlers{o: o}
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true}
	add := func(name string, register func()) {
		if slices.Contains(offered, name) {
			register()
		}
	}
	add(ToolFetchKnowledge, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolFetchKnowledge, Annotations: readOnly,
			Description: "Read the full content of a knowledge entry, decision (ADR-001) or pitfall (PF-001) by its key or id, as listed in the knowledge index."}, h.fetchKnowledge)
	})
	add(ToolSaveKnowledge, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolSaveKnowledge,
			Description: "Save something worth knowing in later sessions as a knowledge entry: a business rule, an architecture decision, an API quirk, a lesson learned or a convention. It waits for a person's review as a candidate unless this session is supervised."}, h.saveKnowledge)
	})
	add(ToolListKnowledge, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolListKnowledge, Annotations: readOnly,
			Description: "List knowledge entries beyond the summary index, with their status, optionally of one category."}, h.listKnowledge)
	})
	add(ToolUpdateKnowledge, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolUpdateKnowledge,
			Description: "Change an existing knowledge entry: its content, summary or tags."}, h.updateKnowledge)
	})
	add(ToolFetchSkill, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolFetchSkill, Annotations: readOnly,
			Description: "Read a skill's extended guidance: examples, edge cases, checklists (its core is already in your instructions)."}, h.fetchSkill)
	})
	add(ToolViewSkill, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolViewSkill, Annotations: readOnly,
			Description: "Read a skill's current text: its core (default) or extended tier."}, h.viewSkill)
	})
	add(ToolEditSkill, func() {
		sdk.AddTool(s, &sdk.Tool{Name: ToolEditSkill,
			Description: "Replace a skill's core or extended text, when the person wants to change how a skill works. A core starts with front matter holding one line, description: when to use the skill."}, h.editSkill)
	})
	return s, nil
}

// Serve runs the server over in and out (stdio) until the client goes:
// until in ends and every request read from it has been answered.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	s, err := New(o)
	if err != nil {
		return err
	}
	err = s.Run(ctx, &lineTransport{in: in, out: out, max: MaxMessage})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

type handlers struct{ o Options }

func (h *handlers) sources() knowledge.Sources {
	src := knowledge.Sources{GlobalDir: knowledge.GlobalEntriesDir(h.o.Home)}
	if h.o.Proj != nil {
		src.Root = h.o.Proj.Root
	}
	return src
}

// load reads the items as they may be served here (knowledge.Servable),
// and the lessons held for a person's review apart.
func (h *handlers) load() (set *knowledge.Set, held []*knowledge.Item) {
	cache := ""
	if h.o.Proj != nil {
		cache = knowledge.CachePath(h.o.Proj)
	}
	all, _ := knowledge.Load(h.sources(), cache, knowledge.Full)
	return all.Servable(func() string {
		if h.o.Proj == nil {
			return ""
		}
		id, _ := h.o.Proj.CloneID() // without one, no draft is served
		return id
	})
}

// heldNote is what the tools say of a lesson held for review, without its
// text: what it would have the agent do is what is not to be served.
func heldNote(id string) string {
	return fmt.Sprintf("%s is held for a person's review: its text reads as an order to fetch and run code or to ignore other instructions, and is not served until a person accepts it ('devlearn learn --review')", id)
}

// projectStore is the project's entries folder, written through the
// audited writer with the tool's name as the command.
func (h *handlers) projectStore(tool string) (*entrystore.Store, error) {
	if h.o.Proj == nil {
		return nil, errors.New("this session is not in a project with devlearn set up: there is no project store")
	}
	//devlearn:triggers "mcp save_knowledge" "mcp update_knowledge"
	return entrystore.Project(h.o.Proj, evolve.New(h.o.Proj, h.o.Now(), evolve.Trigger{Command: "mcp " + tool, Task: h.o.SourceID})), nil
}

// KeyArgs names an entry.
type KeyArgs struct {
	KeyOrID string `json:"key_or_id" jsonschema:"the entry's key, or a decision's or pitfall's id (ADR-001, PF-001), as the index lists it"`
}

// Entry is an entry as the tools return it.
type Entry struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Scope    string   `json:"scope"`
	Status   string   `json:"status"`
	Summary  string   `json:"summary"`
	Category string   `json:"category,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Path     string   `json:"path"`
	Content  string   `json:"content,omitempty"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func (h *handlers) fetchKnowledge(ctx context.Context, _ *sdk.CallToolRequest, in KeyArgs) (*sdk.CallToolResult, Entry, error) {
	id := strings.TrimSpace(in.KeyOrID)
	set, held := h.load()
	it := set.Find(id, "")
	if it == nil {
		if slices.ContainsFunc(held, func(it *knowledge.Item) bool { return it.ID == id }) {
			return nil, Entry{}, errors.New(heldNote(id))
		}
		return nil, Entry{}, fmt.Errorf("no knowledge entry %q: the index lists the keys (list_knowledge browses them)", id)
	}
	out := Entry{ID: it.ID, Type: it.Type, Scope: it.Scope, Status: it.Status, Summary: it.Title, Path: it.Path, Content: it.Text}
	if it.Type == knowledge.TypeEntry {
		fresh, e, err := h.sources().Current(it)
		if err != nil {
			return nil, Entry{}, err
		}
		if fresh.Held != "" {
			return nil, Entry{}, errors.New(heldNote(id))
		}
		it = fresh
		out.Content, out.Category, out.Tags = e.Body, e.Category, e.Tags
	}
	// Quoted as data, with where it comes from; markup that imitates the
	// harness is plain text, in the text and the structured result alike.
	out.Summary, out.Content = inject.Neutralise(out.Summary), inject.Neutralise(out.Content)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s\n(quoted %s; %s)\n", out.ID, out.Summary, knowledge.Provenance(it), knowledge.DataNote)
	switch {
	case it.Learned():
		b.WriteString(knowledge.LearnedNote + "\n")
	case it.Draft():
		b.WriteString(knowledge.DraftNote + "\n")
	}
	if out.Category != "" {
		fmt.Fprintf(&b, "category: %s\n", out.Category)
	}
	fmt.Fprintf(&b, "status: %s, %s\n\n%s", out.Status, out.Scope, out.Content)
	return text(b.String()), out, nil
}

// SaveArgs are save_knowledge's (ClawFlow's agent tools).
type SaveArgs struct {
	Key      string   `json:"key" jsonschema:"a short identifier: lower case letters, digits and dashes, such as api-date-format"`
	Summary  string   `json:"summary" jsonschema:"one line of 10 to 20 words, for the index"`
	Content  string   `json:"content" jsonschema:"the full entry, in markdown"`
	Category string   `json:"category" jsonschema:"business_rule, architecture, api_quirk, lesson_learned or convention"`
	Tags     []string `json:"tags,omitempty" jsonschema:"words for relevance matching"`
}

// Saved is what a save or an update wrote.
type Saved struct {
	Key    string `json:"key"`
	Status string `json:"status"`
	Path   string `json:"path"`
}

func (h *handlers) saveKnowledge(ctx context.Context, _ *sdk.CallToolRequest, in SaveArgs) (*sdk.CallToolResult, Saved, error) {
	st, err := h.projectStore(ToolSaveKnowledge)
	if err != nil {
		return nil, Saved{}, err
	}
	if err := knowledge.ValidKey(in.Key); err != nil {
		return nil, Saved{}, err
	}
	if !slices.Contains(knowledge.Categories, in.Category) {
		return nil, Saved{}, fmt.Errorf("category %q is not one of %s", in.Category, strings.Join(knowledge.Categories, ", "))
	}
	// ClawFlow's capture triggers: active from a supervised workshop session, a candidate
	// from anything else.
	status, source := knowledge.StatusCandidate, RolePipeline
	if h.o.Role == RoleWorkshop {
		source = RoleWorkshop
	}
	if h.supervised() {
		status = knowledge.StatusActive
	}
	e := &knowledge.Entry{
		Key: in.Key, Summary: h.o.Redact(in.Summary), Body: h.o.Redact(in.Content), Category: in.Category,
		Tags: redactAll(h.o.Redact, in.Tags), Status: status, Source: source, SourceID: h.o.SourceID,
		Evidence: []string{"saved by an agent through " + ToolSaveKnowledge + " (" + h.o.Role + " session)"},
	}
	path, created, err := st.Create(ctx, e, fmt.Sprintf("mcp %s: %s", ToolSaveKnowledge, e.Summary))
	if err != nil {
		return nil, Saved{}, err
	}
	if !created {
		// Refused, never replaced: the entry may be another session's,
		// saved a moment ago; this one's content is not written.
		return nil, Saved{}, fmt.Errorf("an entry %q exists already (%s), perhaps saved by another session: nothing was written; fetch_knowledge shows it, then save under another key or change it with %s", in.Key, path, ToolUpdateKnowledge)
	}
	out := Saved{Key: e.Key, Status: e.Status, Path: path}
	msg := fmt.Sprintf("Saved %s as %s (%s).", e.Key, e.Status, path)
	if e.Status == knowledge.StatusCandidate {
		msg += " A person reviews it before it is served."
	}
	return text(msg), out, nil
}

// ListArgs are list_knowledge's.
type ListArgs struct {
	Category string `json:"category,omitempty" jsonschema:"only this category: business_rule, architecture, api_quirk, lesson_learned or convention"`
}

// Listed is list_knowledge's answer.
type Listed struct {
	Entries []Entry `json:"entries"`
}

func (h *handlers) listKnowledge(ctx context.Context, _ *sdk.CallToolRequest, in ListArgs) (*sdk.CallToolResult, Listed, error) {
	if in.Category != "" && !slices.Contains(knowledge.Categories, in.Category) {
		return nil, Listed{}, fmt.Errorf("category %q is not one of %s", in.Category, strings.Join(knowledge.Categories, ", "))
	}
	out := Listed{Entries: []Entry{}}
	var b strings.Builder
	set, held := h.load()
	for _, it := range knowledge.Ordered(set.Items) {
		if it.Type != knowledge.TypeEntry {
			continue
		}
		fresh, e, err := h.sources().Current(it)
		if err != nil || fresh.Held != "" || (in.Category != "" && e.Category != in.Category) {
			continue
		}
		summary := inject.Neutralise(e.Summary)
		out.Entries = append(out.Entries, Entry{ID: it.ID, Type: it.Type, Scope: it.Scope, Status: e.Status, Summary: summary, Category: e.Category, Tags: e.Tags, Path: it.Path})
		fmt.Fprintf(&b, "- [%s] %s (%s, %s%s)\n", it.ID, summary, e.Status, it.Scope, categoryOf(e))
	}
	for _, it := range held {
		if it.Type == knowledge.TypeEntry && in.Category == "" {
			fmt.Fprintf(&b, "- [%s] (held for a person's review; not served)\n", it.ID)
		}
	}
	if len(out.Entries) == 0 && b.Len() == 0 {
		b.WriteString("No entries.\n")
	}
	return text(b.String()), out, nil
}

func categoryOf(e *knowledge.Entry) string {
	if e.Category == "" {
		return ""
	}
	return ", " + e.Category
}

// UpdateArgs are update_knowledge's (ClawFlow's agent tools).
type UpdateArgs struct {
	ID      string   `json:"id" jsonschema:"the entry's key"`
	Content *string  `json:"content,omitempty" jsonschema:"the new full content, in markdown"`
	Summary *string  `json:"summary,omitempty" jsonschema:"the new one-line summary"`
	Tags    []string `json:"tags,omitempty" jsonschema:"the new tags (they replace the old ones)"`
}

func (h *handlers) updateKnowledge(ctx context.Context, _ *sdk.CallToolRequest, in UpdateArgs) (*sdk.CallToolResult, Saved, error) {
	if err := knowledge.ValidKey(in.ID); err != nil {
		return nil, Saved{}, err
	}
	if in.Content == nil && in.Summary == nil && in.Tags == nil {
		return nil, Saved{}, errors.New("nothing to change: give content, summary or tags")
	}
	// Only the project's entries, through its audited writer: the global
	// store is every project's, and its writes are in no history to undo.
	st, err := h.projectStore(ToolUpdateKnowledge)
	if err != nil {
		return nil, Saved{}, err
	}
	// Edit applies the change to the entry as it is under the
	// writer's lock: another session's update of the same entry at the
	// same time keeps the fields this one does not set.
	next, path, err := st.Edit(ctx, in.ID, fmt.Sprintf("mcp %s: %s", ToolUpdateKnowledge, in.ID), func(e *knowledge.Entry) error {
		// As save_knowledge: what an agent writes is a candidate
		// unless a person supervises the session, so an entry a person
		// reviewed (active) or set aside is not the agent's to change.
		if !h.supervised() && e.Status != knowledge.StatusCandidate && e.Status != knowledge.StatusDraft {
			return fmt.Errorf("not changed: %s is %s; an unsupervised session changes only candidates and drafts: save your version as a new candidate with %s, which a person reviews", in.ID, e.Status, ToolSaveKnowledge)
		}
		if in.Content != nil {
			e.Body = h.o.Redact(*in.Content)
		}
		if in.Summary != nil {
			e.Summary = h.o.Redact(*in.Summary)
		}
		if in.Tags != nil {
			e.Tags = redactAll(h.o.Redact, in.Tags)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Saved{}, fmt.Errorf("no entry %q in this project (list_knowledge lists them)", in.ID)
	}
	if err != nil {
		return nil, Saved{}, err
	}
	return text(fmt.Sprintf("Updated %s (%s, %s).", next.Key, next.Status, path)), Saved{Key: next.Key, Status: next.Status, Path: path}, nil
}

// supervised reports a workshop session a person supervises
// (mcp.supervised): what it saves is active at once.
func (h *handlers) supervised() bool {
	return h.o.Role == RoleWorkshop && h.o.Cfg.MCP.Supervised
}

// SkillArgs name a skill.
type SkillArgs struct {
	SkillName string `json:"skill_name" jsonschema:"the skill, such as test-driven-development"`
}

// SkillText is a skill tier's text.
type SkillText struct {
	Skill   string `json:"skill"`
	Tier    string `json:"tier"`
	Content string `json:"content"`
}

func (h *handlers) fetchSkill(ctx context.Context, _ *sdk.CallToolRequest, in SkillArgs) (*sdk.CallToolResult, SkillText, error) {
	return h.readSkill(ctx, in.SkillName, skills.Extended)
}

func (h *handlers) readSkill(ctx context.Context, name, tier string) (*sdk.CallToolResult, SkillText, error) {
	if err := skills.ValidName(name); err != nil {
		return nil, SkillText{}, err
	}
	if _, err := skills.Seed(ctx, h.o.Home); err != nil {
		return nil, SkillText{}, err
	}
	t, err := skills.Read(h.o.Home, name, tier)
	if err != nil {
		return nil, SkillText{}, err
	}
	return text(t), SkillText{Skill: name, Tier: tier, Content: t}, nil
}

// ViewArgs are view_skill's.
type ViewArgs struct {
	SkillName string `json:"skill_name" jsonschema:"the skill"`
	Tier      string `json:"tier,omitempty" jsonschema:"core (default) or extended"`
}

func (h *handlers) viewSkill(ctx context.Context, _ *sdk.CallToolRequest, in ViewArgs) (*sdk.CallToolResult, SkillText, error) {
	tier := in.Tier
	if tier == "" {
		tier = skills.Core
	}
	if err := skills.ValidTier(tier); err != nil {
		return nil, SkillText{}, err
	}
	return h.readSkill(ctx, in.SkillName, tier)
}

// EditArgs are edit_skill's.
type EditArgs struct {
	SkillName string `json:"skill_name" jsonschema:"the skill"`
	Tier      string `json:"tier" jsonschema:"core or extended"`
	Content   string `json:"content" jsonschema:"the whole new text of that tier"`
}

func (h *handlers) editSkill(ctx context.Context, _ *sdk.CallToolRequest, in EditArgs) (*sdk.CallToolResult, SkillText, error) {
	if _, err := skills.Seed(ctx, h.o.Home); err != nil {
		return nil, SkillText{}, err
	}
	content := h.o.Redact(in.Content)
	path, err := skills.Save(ctx, h.o.Home, in.SkillName, in.Tier, []byte(content))
	if err != nil {
		return nil, SkillText{}, err
	}
	return text(fmt.Sprintf("Saved %s.", path)), SkillText{Skill: in.SkillName, Tier: in.Tier, Content: content}, nil
}

func redactAll(r func(string) string, list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = r(s)
	}
	return out
}
