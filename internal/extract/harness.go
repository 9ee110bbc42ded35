package extract

import (
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/transcript"
)

// A call the agent's harness refused to run ("Blocked: sleep 30 followed
// by: tail …. To wait for a condition, use Monitor with an until-loop …")
// is a rule of the harness the agent keeps running into, in session after
// session, and the refusal says what to do instead. So is writing a file
// the session has not read: readers of genuine sessions named it a lesson
// in five projects of four languages, the agent running into it again and
// again. Claude Code's other errors about how a tool was used (a string
// to replace not found, a file changed since it was read) are about one
// edit, and stay out.

// blockedPrefix opens Claude Code's refusal of a call it will not run.
const blockedPrefix = "Blocked: "

// harnessRefusals reads the calls the harness refused, each with what it
// said to do instead.
func harnessRefusals(ch *transcript.Channels) []Observation {
	var out []Observation
	for i := range ch.Tools {
		t := &ch.Tools[i]
		if o, ok := cdRefused(t); ok {
			out = append(out, o)
			continue
		}
		if o, ok := unreadEdit(t); ok {
			out = append(out, o)
			continue
		}
		if o, ok := outsideWorkspace(t); ok {
			out = append(out, o)
			continue
		}
		if !t.Protocol || t.Command == "" {
			continue
		}
		what, ok := strings.CutPrefix(untagged(t.Error), blockedPrefix)
		if !ok {
			continue
		}
		what, instead, _ := strings.Cut(what, ". ")
		prog, _, _ := strings.Cut(strings.TrimSpace(what), " ")
		instead = clip(strings.Join(strings.Fields(instead), " "), 200)
		if prog == "" || words(instead) < 4 {
			continue // nothing said of what to do instead
		}
		pattern := "Claude Code blocks this `" + prog + "` call: " + instead
		details := "area: " + field(prog) + "; issue: " + field(clip(blockedPrefix+what, 160)) +
			"; impact: the harness refuses the call; resolution: " + field(instead)
		out = append(out, failurePitfall(*t, pattern, details, quote("tool", "`"+clip(oneLine(t.Command), 120)+"` → "+clip(blockedPrefix+what, 120))))
	}
	return out
}

// cdRefusal is what Claude Code says when a command changes into a folder
// outside those the session may work in. Nothing is said of what to do
// instead; what works is the command run from where the session is, on
// absolute paths.
const cdRefusal = "Claude Code may only change directories to"

// cdRefused reads a command refused for the folder it changed into.
func cdRefused(t *transcript.ToolCall) (Observation, bool) {
	if !t.IsError || t.Command == "" || !strings.Contains(t.Error, cdRefusal) {
		return Observation{}, false
	}
	msg := clip(strings.Join(strings.Fields(untagged(t.Error)), " "), 200)
	instead := "run it from the session's folder with absolute paths, without cd"
	pattern := "Claude Code blocks `cd` into a folder outside the session's working folders: " + instead + "."
	details := "area: cd; issue: " + field(msg) + "; impact: the harness refuses the command; resolution: " + field(instead)
	return failurePitfall(*t, pattern, details, quote("tool", "`"+clip(oneLine(t.Command), 120)+"` → "+clip(msg, 120))), true
}

// workspaceRefusals are what Gemini CLI's file tools say when a path is
// outside the folders they may reach: "Path not in workspace: Attempted
// path "/tmp/pi_bot.log" resolves outside the allowed workspace
// directories", "Search path (…) resolves outside the tool's root
// directory", and, in older versions, "must be within one of the
// workspace directories".
var workspaceRefusals = []string{"resolves outside the allowed workspace", "resolves outside the tool's root directory",
	"path not in workspace", "must be within one of the workspace directories", "must be within the root directory"}

// outsideWorkspace reads a file tool's call refused for a path outside
// the workspace: one lesson whatever the path, so that it is the same
// lesson in every session. Its moment is any path outside, which a file
// tool names only as it is called: session start's index gives it.
func outsideWorkspace(t *transcript.ToolCall) (Observation, bool) {
	if !t.IsError || t.Command != "" {
		return Observation{}, false
	}
	low := strings.ToLower(t.Error)
	if !slices.ContainsFunc(workspaceRefusals, func(r string) bool { return strings.Contains(low, r) }) {
		return Observation{}, false
	}
	msg := clip(strings.Join(strings.Fields(untagged(t.Error)), " "), 200)
	on := ""
	if len(t.Paths) > 0 {
		on = " on `" + clip(t.Paths[0], 100) + "`"
	}
	instead := "keep what the work needs inside the workspace (copy it in), or read a file outside it with a shell command (`cat`, `tail`)"
	pattern := "Gemini CLI's file tools refuse a path outside the workspace: " + instead + "."
	details := "area: ; issue: `" + t.Name + "`" + on + " fails with \"" + field(msg) + "\"; impact: the harness refuses the call; resolution: " + field(instead)
	return failurePitfall(*t, pattern, details, quote("tool", "`"+t.Name+"`"+on+" → "+clip(msg, 120))), true
}

// unreadRefusal is what Claude Code says when an edit tool is used on a
// file the session has not read.
const unreadRefusal = "File has not been read yet"

// unreadEdit reads an edit refused because its file was not read first:
// one lesson whatever the file, so that it is the same lesson in every
// session. It names no file or command to serve it at: its moment is any
// write, and the session start's index is where it is given.
func unreadEdit(t *transcript.ToolCall) (Observation, bool) {
	if !t.IsError || !transcript.EditTool(t.Name) || !strings.Contains(t.Error, unreadRefusal) {
		return Observation{}, false
	}
	msg := clip(strings.Join(strings.Fields(untagged(t.Error)), " "), 160)
	file := ""
	if len(t.Paths) > 0 {
		file = " on `" + clip(relative(t.Paths[0], t.Cwd), 100) + "`"
	}
	pattern := "Claude Code refuses to write or edit a file the session has not read (\"" + unreadRefusal + "\"): Read the file first, then change it."
	details := "area: ; issue: `" + t.Name + "`" + file + " fails with \"" + field(msg) + "\"; impact: the harness refuses the call; resolution: read the file first, then write or edit it"
	return failurePitfall(*t, pattern, details, quote("tool", "`"+t.Name+"`"+file+" → "+msg)), true
}
