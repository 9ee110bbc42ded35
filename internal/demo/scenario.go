package demo

import (
	"encoding/json"
	"time"
)

// Start is the first simulated day of the demo.
var Start = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)

// Day is one simulated day: what happened in the sessions, as the
// commands that record it.
type Day struct {
	N     int    // days after Start
	Story string // what happened, in a sentence
	Steps []Step
}

// Step is one thing that happens in the demo: a devlearn command (with its
// stdin, and the project files to show after it), or a person editing or
// deleting a file.
type Step struct {
	Args  []string
	Stdin string
	Show  []string

	Edit   *Edit  // the user edits a file
	Delete string // the user deletes a file
}

// Edit replaces text in a project file, as a person would.
type Edit struct {
	Path, Old, New string
}

type sighting struct {
	Type      string   `json:"type"`
	Pattern   string   `json:"pattern"`
	Details   string   `json:"details,omitempty"`
	Evidence  []string `json:"evidence,omitempty"`
	QualityOK bool     `json:"quality_ok"`
}

// The lessons of the demo, as an extractor would report them.
var (
	changelog = sighting{
		Type:    "pitfall",
		Pattern: "Bumping the version without a CHANGELOG.md entry",
		Details: "area: CHANGELOG.md; issue: the version was bumped but the changelog was not updated; " +
			"impact: releases ship without notes; resolution: add the changelog entry in the same commit as the bump",
		QualityOK: true,
	}
	release = sighting{
		Type:    "workflow",
		Pattern: "Cut a release: bump the version, update the changelog, tag",
		Details: "Run scripts/release.sh with the new version after adding the CHANGELOG.md entry, then push the tag.",
	}
	plainJSON = sighting{
		Type:    "decision",
		Pattern: "Keep configuration in plain JSON files",
		Details: "context: the team edits config by hand and in reviews; decision: plain JSON, no YAML or env files; " +
			"rationale: one format, checked by a schema, diffable in pull requests",
		QualityOK: true,
	}
	apiTests = sighting{
		Type:    "procedural",
		Pattern: "Run the API tests before changing server routes",
		Details: "Routes in src/server.js have no types; the tests are the only check.",
	}
)

func with(s sighting, quality bool, evidence ...string) sighting {
	s.QualityOK = quality
	s.Evidence = evidence
	return s
}

func observe(session string, day int, list ...sighting) Step {
	b, _ := json.Marshal(map[string][]sighting{"observations": list})
	at := Start.AddDate(0, 0, day).Format(time.RFC3339)
	return Step{Args: []string{"observe", "--session", session, "--at", at}, Stdin: string(b)}
}

// Days is the demo's script: lessons recur across sessions and days until
// they cross their thresholds.
func Days() []Day {
	return []Day{
		{0, "The agent bumps the version but forgets the changelog; the user says so, asks for a release, and explains why config stays JSON.", []Step{
			observe("session-1", 0,
				with(changelog, true, "user: you forgot the changelog again"),
				with(release, true, "user: cut the 0.7.3 release"),
				with(plainJSON, true, "user: no YAML here, config stays plain JSON"),
				with(apiTests, false, "user: did you run the tests?")),
		}},
		{1, "A new session: the same changelog slip, the JSON decision comes up again, and the tests reminder is now clear.", []Step{
			observe("session-2", 1,
				with(changelog, true, "user: CHANGELOG.md again, please"),
				with(plainJSON, true, "user: keep it JSON like the rest"),
				with(apiTests, true, "user: always run the API tests before touching routes")),
		}},
		{2, "Another release is asked for; one day is not yet a habit.", []Step{
			observe("session-3", 2, with(release, true, "user: release 0.7.4 the usual way")),
		}},
		{4, "Two days later, the same release routine: now it has recurred over more than three days.", []Step{
			observe("session-4", 4, with(release, true, "user: do the release dance for 0.8.0")),
		}},
		{5, "The log is folded into one snapshot per observation; the state is unchanged. Then the ready lessons become artifacts.", []Step{
			{Args: []string{"compact"}},
			{Args: []string{"render-ready"}, Show: []string{
				".memory/knowledge/pitfalls.md",
				".claude/commands/self-learning/cut-a-release-bump-the-version-update-the-changelo.md",
			}},
		}},
		{6, "The user reviews what was learned: they sharpen the pitfall's resolution and delete the ADR they disagree with. Reconcile keeps the edit and takes the deletion as a \"no\".", []Step{
			{Edit: &Edit{Path: ".memory/knowledge/pitfalls.md",
				Old: "add the changelog entry in the same commit as the bump",
				New: "add the changelog entry in the same commit as the bump, under the new version's heading"}},
			{Delete: ".memory/knowledge/decisions.md"},
			{Args: []string{"reconcile"}},
		}},
		{8, "The JSON decision comes up in two more sessions: it stays deprecated, and render does not bring it back.", []Step{
			observe("session-5", 8, with(plainJSON, true, "user: JSON, as always")),
			observe("session-6", 8, with(plainJSON, true, "user: config in JSON please")),
			{Args: []string{"render-ready"}},
			{Args: []string{"reconcile"}},
		}},
		{9, "A new session. At its start the agent gets the index of what was learned; when it is about to edit CHANGELOG.md, Claude Code asks devlearn first, and the pitfall (as the user edited it) is put in front of the agent.", []Step{
			{Args: []string{"knowledge", "index"}},
			{Args: []string{"hook", "pre-tool-use"}, Stdin: `{"session_id":"session-7","transcript_path":"@REPO@/.claude-session-7.jsonl","cwd":"@REPO@","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"@REPO@/CHANGELOG.md","old_string":"## 0.7.2","new_string":"## 0.8.0\n- New notes API.\n\n## 0.7.2"},"tool_use_id":"toolu_01"}`},
		}},
	}
}
