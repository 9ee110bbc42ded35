// The Gemini CLI readers (this file, gemini_checkpoint.go, gemini_logs.go)
// read the conversations Gemini CLI leaves in a project's folder,
// ~/.gemini/tmp/<project>/, into the channels devlearn's extractors
// read. Three kinds of file:
//
// Chat recordings, chats/session-*.jsonl (and the older session-*.json),
// follow packages/core/src/services/chatRecordingTypes.ts: a JSONL file
// starts with the session's metadata ({sessionId, projectHash,
// startTime, ...}), then holds message records ({id, timestamp, type:
// user|gemini|info|error|warning, content, toolCalls?}), where a later
// record with the same id replaces the earlier one, {"$set": ...}
// metadata updates, and {"$rewindTo": id}, which drops that message and
// everything after it. A .json file is one ConversationRecord with its
// messages.
//
// Checkpoints, checkpoint-<tag>.json, are what '/chat save <tag>' writes
// (packages/cli/src/ui/commands/chatCommand.ts, Logger.saveCheckpoint in
// packages/core/src/core/logger.ts): the model's history, a JSON array of
// Content objects ({role: user|model, parts}, the Content and Part types
// of @google/genai, src/types.ts in googleapis/js-genai), or in later
// versions {history: [Content], authType}. Its first turn is Gemini CLI's
// setup context (packages/core/src/utils/environmentContext.ts), which
// names the working directory; tool results come back as user turns of
// functionResponse parts. No record carries a time or a session id.
//
// The prompt log, logs.json (Logger.logMessage in the same logger.ts), is
// an array of {sessionId, messageId, timestamp, type: "user", message}:
// every prompt the person typed in the project, of every session, and
// nothing else. It is read as one session per sessionId (geminiPromptLog).
//
// All of these are google-gemini/gemini-cli's (Apache-2.0), read from
// its sources; nothing of them is copied here.

package sessions

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/agent/gemini"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

type message struct {
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	Type      string         `json:"type"`
	Content   jsontext.Value `json:"content"`
	ToolCalls []toolCall     `json:"toolCalls"`
	line      int
}

type toolCall struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Args          jsontext.Value `json:"args"`
	Status        string         `json:"status"`
	Timestamp     string         `json:"timestamp"`
	Result        jsontext.Value `json:"result"`
	ResultDisplay jsontext.Value `json:"resultDisplay"`
}

// record is any JSONL line: metadata, a message, or an update.
type record struct {
	message   `json:",inline"`
	SessionID string          `json:"sessionId"`
	Set       *jsontext.Value `json:"$set"`
	RewindTo  *string         `json:"$rewindTo"`
}

// readGeminiChatFile reads the chat at path.
func readGeminiChatFile(path string, opt transcript.Options) (*transcript.Channels, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read chat: %w", err)
	}
	defer f.Close()
	if strings.HasSuffix(path, ".json") {
		return readLegacy(f, path, opt)
	}
	return readGeminiChat(f, path, opt)
}

// readGeminiChat reads a JSONL chat; name labels its problems.
func readGeminiChat(r io.Reader, name string, opt transcript.Options) (*transcript.Channels, error) {
	var session string
	var msgs []message
	index := map[string]int{}
	problems, err := jsonl.Scan(r, func(n int, line []byte) error {
		var rec record
		if err := jsonv2.Unmarshal(line, &rec); err != nil {
			return err
		}
		switch {
		case rec.RewindTo != nil:
			if i, ok := index[*rec.RewindTo]; ok {
				for _, m := range msgs[i:] {
					delete(index, m.ID)
				}
				msgs = msgs[:i]
			}
		case rec.Set != nil:
		case rec.Type == "" && rec.SessionID != "":
			session = rec.SessionID
		case rec.ID != "":
			rec.message.line = n
			if i, ok := index[rec.ID]; ok {
				rec.message.line = msgs[i].line
				msgs[i] = rec.message
			} else {
				index[rec.ID] = len(msgs)
				msgs = append(msgs, rec.message)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read chat %s: %w", name, err)
	}
	b := build(name, opt, session, msgs)
	for _, p := range problems {
		b.problem(p)
	}
	return b.done(), nil
}

func readLegacy(r io.Reader, name string, opt transcript.Options) (*transcript.Channels, error) {
	var conv struct {
		SessionID string    `json:"sessionId"`
		Messages  []message `json:"messages"`
	}
	if err := jsonv2.UnmarshalRead(r, &conv); err != nil {
		return nil, fmt.Errorf("read chat %s: %w", name, err)
	}
	for i := range conv.Messages {
		conv.Messages[i].line = i + 1
	}
	return build(name, opt, conv.SessionID, conv.Messages).done(), nil
}

func build(name string, opt transcript.Options, session string, msgs []message) *builder {
	b := newBuilder(name, opt)
	b.session(session)
	for _, m := range msgs {
		b.line(m.line)
		meta := transcript.Meta{UUID: m.ID, Timestamp: m.Timestamp, Line: m.line}
		switch m.Type {
		case "user":
			// The files an @path pulled in are not the person's words,
			// nor are the summaries and tool results recorded as user
			// messages since 2026.
			if t := unreferenced(geminiText(m.Content)); ownWords(t) {
				b.user(meta, t, "")
			}
		case "gemini":
			b.assistant(meta, geminiText(m.Content))
			for _, tc := range m.ToolCalls {
				tmeta := transcript.Meta{UUID: m.ID + ":" + tc.ID, Timestamp: cmpOr(tc.Timestamp, m.Timestamp), Line: m.line}
				name, command, paths, wrote := geminiTool(tc.Name, tc.Args)
				b.tool(tmeta, tc.ID, name, command, paths, "")
				b.wrote(tc.ID, wrote)
				switch tc.Status {
				case "success":
					failed, errText := false, ""
					if tc.Name == geminiShell {
						errText, failed = shellFailure(responseOutput(tc.Result))
					}
					b.result(tmeta, tc.ID, failed, errText)
				case "error":
					b.result(tmeta, tc.ID, true, cmpOr(geminiText(tc.ResultDisplay), geminiText(tc.Result)))
				}
			}
		}
	}
	return b
}

// ownWords reports a user message that is the person's, not one Gemini
// CLI wrote (see geminiInjected).
func ownWords(text string) bool {
	own, _ := geminiInjected(text)
	return own
}

// tool is a call's name in Claude Code's terms, with the command and the
// path its arguments name, and what it wrote into the agent's
// instructions: a file's text, or an edit. save_memory's facts go to the
// person's own ~/.gemini/GEMINI.md, about them, on their machine: as a
// Claude Code memory of the user, not read.
func geminiTool(called string, raw jsontext.Value) (name, command string, paths []string, wrote transcript.Write) {
	var args struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		AbsolutePath string `json:"absolute_path"`
		Path         string `json:"path"`
		Content      string `json:"content"`
		OldString    string `json:"old_string"`
		NewString    string `json:"new_string"`
	}
	jsonv2.Unmarshal(raw, &args)
	name = gemini.ToolName(called)
	for _, p := range []string{args.FilePath, args.AbsolutePath, args.Path} {
		if p != "" {
			paths = append(paths, p)
			break
		}
	}
	if slices.ContainsFunc(paths, transcript.InstructionFile) {
		wrote = transcript.Write{Content: args.Content, Old: args.OldString, New: args.NewString}
	}
	return name, args.Command, paths, wrote
}

// text is the text of a PartListUnion: a string, a part {text}, or a
// list of them; other parts (function calls, images) are skipped.
func geminiText(v jsontext.Value) string { return geminiTextIn(v, 0) }

// maxPartDepth is how deep lists of parts are read: a part list holds
// parts, not lists of lists, and each level read copies what is below it
// (a result nested four thousand deep took 4 GB).
const maxPartDepth = 4

func geminiTextIn(v jsontext.Value, depth int) string {
	if depth > maxPartDepth {
		return ""
	}
	var s string
	if jsonv2.Unmarshal(v, &s) == nil {
		return s
	}
	type part struct {
		Text string `json:"text"`
	}
	var one part
	if v.Kind() == '{' && jsonv2.Unmarshal(v, &one) == nil {
		return one.Text
	}
	var parts []jsontext.Value
	if jsonv2.Unmarshal(v, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if t := geminiTextIn(p, depth+1); t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

// isGeminiChat reports whether the file at path is a Gemini CLI chat: named
// session-*.json(l), its first record naming a sessionId and a
// projectHash.
func isGeminiChat(path string) bool {
	base := filepath.Base(path)
	if !strings.HasPrefix(base, "session-") || !(strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json")) {
		return false
	}
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head struct {
		SessionID   string `json:"sessionId"`
		ProjectHash string `json:"projectHash"`
	}
	if strings.HasSuffix(base, ".json") {
		// The legacy file is one object: its first keys are enough, but
		// it is read whole (chats are small).
		if jsonv2.UnmarshalRead(io.LimitReader(f, 64<<20), &head) != nil {
			return false
		}
	} else {
		first, _ := bufio.NewReader(io.LimitReader(f, 1<<20)).ReadBytes('\n')
		if jsonv2.Unmarshal(bytes.TrimSpace(first), &head) != nil {
			return false
		}
	}
	return head.SessionID != "" && head.ProjectHash != ""
}

// geminiHome is Gemini CLI's folder: ~/.gemini.
func geminiHome(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".gemini")
	}
	return ""
}

// findGemini lists the chats, checkpoints and prompt logs of the projects
// rooted inside root: the project folders under home/tmp whose
// .project_root names such a root, whose projects.json entry does, or
// whose name is the sha256 of root (older versions).
func findGemini(home, root string) ([]string, error) {
	root = filepath.Clean(root)
	sum := sha256.Sum256([]byte(root))
	hashed := hex.EncodeToString(sum[:])
	slugs := map[string]bool{}
	if data, err := safefile.ReadRegular(filepath.Join(home, "projects.json")); err == nil {
		var reg struct {
			Projects map[string]string `json:"projects"`
		}
		if jsonv2.Unmarshal(data, &reg) == nil {
			for p, slug := range reg.Projects {
				if inside(p, root) {
					slugs[slug] = true
				}
			}
		}
	}
	ents, err := os.ReadDir(filepath.Join(home, "tmp"))
	if err != nil {
		return nil, nil // no Gemini CLI here
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(home, "tmp", e.Name())
		ours := e.Name() == hashed || slugs[e.Name()]
		if data, err := safefile.ReadRegular(filepath.Join(dir, ".project_root")); err == nil {
			ours = ours || inside(strings.TrimSpace(string(data)), root)
		}
		if !ours {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "chats", "session-*.json*"))
		for _, f := range files {
			if isGeminiChat(f) {
				out = append(out, f)
			}
		}
		files, _ = filepath.Glob(filepath.Join(dir, "checkpoint-*.json"))
		for _, f := range files {
			if isGeminiCheckpoint(f) {
				out = append(out, f)
			}
		}
		if f := filepath.Join(dir, geminiPromptLogName); isGeminiPromptLog(f) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out, nil
}
