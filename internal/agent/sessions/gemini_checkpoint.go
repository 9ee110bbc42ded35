package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// content is a Content of @google/genai: one turn of the model's history.
type content struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

// part is a Part: exactly one of text (a thought when Thought is set),
// a function call, a function response, or data devlearn does not read
// (inlineData, fileData, executableCode...).
type part struct {
	Text             string            `json:"text"`
	Thought          bool              `json:"thought"`
	FunctionCall     *functionCall     `json:"functionCall"`
	FunctionResponse *functionResponse `json:"functionResponse"`
}

type functionCall struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args jsontext.Value `json:"args"`
}

// invalidParams opens the output Gemini CLI gives a file tool's call it
// refused before running it: "Error: Invalid parameters provided. Reason:
// Search path (…) resolves outside the tool's root directory (…)".
const invalidParams = "Error: Invalid parameters provided."

// functionResponse is a tool's result as Gemini CLI gives it back to the
// model: {output} when the tool ran, {error} when it failed or was
// cancelled (a shell command that ran and exited non-zero says so in its
// output: shellFailure).
type functionResponse struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Response struct {
		Error  jsontext.Value `json:"error"`
		Output string         `json:"output"`
	} `json:"response"`
}

// lenient reads what Node's JSON.stringify may write: a lone surrogate
// escaped from a cut-off emoji is kept, not a reason to drop the file.
var lenient = jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// readGeminiCheckpoint reads the checkpoint at path. Its records carry no time,
// so the file's modification time (when it was last saved) dates them
// all, and ingesting it again adds nothing; they carry no session id
// either (see conversation).
func readGeminiCheckpoint(path string, opt transcript.Options) (*transcript.Channels, error) {
	data, err := safefile.ReadRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	at := time.Now().UTC()
	if fi, err := os.Stat(path); err == nil {
		at = fi.ModTime().UTC()
	}
	history, err := checkpointHistory(data)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", path, err)
	}
	return readHistory(history, path, conversation(history), at, opt), nil
}

// conversation is the session devlearn gives a checkpoint: checkpoint-
// and 12 hex digits of a hash of its start, every text up to the
// person's first turn (the setup context names the day and the folder).
// A conversation saved twice, under two tags or again after more turns,
// or resumed and saved anew, is one session whose records keep their
// ids, so its prompts do not count as a second session's; two
// conversations are two sessions.
func conversation(history []jsontext.Value) string {
	h := sha256.New()
	for _, raw := range history {
		var c content
		if jsonv2.Unmarshal(raw, &c, lenient) != nil {
			continue
		}
		io.WriteString(h, c.Role+"\x00")
		for _, p := range c.Parts {
			io.WriteString(h, p.Text+"\x00")
		}
		if c.Role == "user" && !answers(c) && ownWords(said(c.Parts)) {
			break
		}
	}
	return "checkpoint-" + hex.EncodeToString(h.Sum(nil)[:6])
}

// geminiRecorded reports whether every turn the person took in the checkpoint
// at path is in a chat recording of its project folder: the checkpoint
// is a recorded chat saved (Gemini CLI records every chat since late
// 2025), and the recording, which has the times and the session, is read
// instead, so that the conversation does not count as two sessions.
func geminiRecorded(path string) bool {
	ch, err := readGeminiCheckpoint(path, asWritten)
	if err != nil || len(ch.UserSignals) == 0 {
		return false
	}
	held := map[string]bool{}
	recordedIn(filepath.Dir(path), held)
	for _, u := range ch.UserSignals {
		if !held[normal(u.Text)] {
			return false
		}
	}
	return true
}

// checkpointHistory is the list of Contents in a checkpoint file: the
// file itself (the first format), or its history member.
func checkpointHistory(data []byte) ([]jsontext.Value, error) {
	var history []jsontext.Value
	if firstByte(data) == '{' {
		var wrap struct {
			History []jsontext.Value `json:"history"`
		}
		if err := jsonv2.Unmarshal(data, &wrap, lenient); err != nil {
			return nil, err
		}
		return wrap.History, nil
	}
	if err := jsonv2.Unmarshal(data, &history, lenient); err != nil {
		return nil, err
	}
	return history, nil
}

func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// readHistory turns a model history into the channels: the person's
// turns, the model's text and its calls with their results. Gemini CLI's
// own turns (the setup context, summaries, nudges) are left out; the
// setup names the working directory, which becomes the cwd.
func readHistory(history []jsontext.Value, name, id string, at time.Time, opt transcript.Options) *transcript.Channels {
	b := newBuilder(name, opt)
	b.session(id)
	ts := at.UTC().Format(time.RFC3339)
	cwd := ""
	var pending calls
	for i, raw := range history {
		n := i + 1
		b.line(n)
		var c content
		if err := jsonv2.Unmarshal(raw, &c, lenient); err != nil {
			b.problem(jsonl.Problem{Line: n, Err: err, Text: start(raw)})
			continue
		}
		meta := transcript.Meta{UUID: fmt.Sprintf("%s:%d", id, i), Timestamp: ts, Line: n}
		switch c.Role {
		case "model":
			var text strings.Builder
			flush := func() {
				if t := text.String(); !isAck(t) {
					b.assistant(meta, t)
				}
				text.Reset()
			}
			for j, p := range c.Parts {
				switch {
				case p.FunctionCall != nil:
					flush()
					tm := meta
					tm.UUID = fmt.Sprintf("%s:%d:%d", id, i, j)
					name, command, paths, wrote := geminiTool(p.FunctionCall.Name, p.FunctionCall.Args)
					b.tool(tm, tm.UUID, name, command, paths, cwd)
					b.wrote(tm.UUID, wrote)
					pending.add(tm.UUID, p.FunctionCall.ID, p.FunctionCall.Name)
				case p.Thought:
				default:
					text.WriteString(p.Text)
				}
			}
			flush()
		case "user":
			if answers(c) {
				for _, p := range c.Parts {
					r := p.FunctionResponse
					if r == nil {
						continue // a file read_many_files gave back: the tool's, not the person's
					}
					key, ok := pending.take(r.ID, r.Name)
					if !ok {
						continue
					}
					b.identify(key, r.ID)
					errText := errorText(r.Response.Error)
					switch {
					case strings.HasPrefix(errText, "[Operation Cancelled]"):
						// Refused or stopped: no outcome, as a chat's cancelled call.
					case errText != "":
						b.result(meta, key, true, errText)
					default:
						failed := false
						switch out := r.Response.Output; {
						case r.Name == geminiShell:
							errText, failed = shellFailure(out)
						case strings.HasPrefix(out, invalidParams):
							// Older versions gave a refused call's reason
							// as its output.
							errText, failed = out, true
						}
						b.result(meta, key, failed, errText)
					}
				}
				continue
			}
			text := said(c.Parts)
			if own, dir := geminiInjected(text); !own {
				if cwd == "" {
					cwd = dir
				}
				continue
			}
			pending = nil // a call the person speaks after gets no result later
			b.user(meta, text, cwd)
		}
	}
	return b.done()
}

// answers reports a user turn that gives tools' results back.
func answers(c content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// calls are the calls waiting for their results: a response names its
// call's id when the call had one (later versions), else it answers the
// first waiting call of its tool (the model's calls are answered in
// order).
type calls []struct{ key, id, name string }

func (q *calls) add(key, id, name string) {
	*q = append(*q, struct{ key, id, name string }{key, id, name})
}

func (q *calls) take(id, name string) (string, bool) {
	at := -1
	for i, c := range *q {
		if id != "" && c.id == id {
			at = i
			break
		}
	}
	if at < 0 {
		for i, c := range *q {
			if c.name == name {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return "", false
	}
	key := (*q)[at].key
	*q = append((*q)[:at], (*q)[at+1:]...)
	return key, true
}

func errorText(v jsontext.Value) string {
	if len(v) == 0 || v.Kind() == 'n' {
		return ""
	}
	var s string
	if jsonv2.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// Gemini CLI's markers around the files an @path in a prompt pulled in
// (REFERENCE_CONTENT_START/END in packages/core/src/utils/constants.ts):
// what is between them is the files', not the person's.
var referenced = regexp.MustCompile(`(?s)\n?--- Content from referenced files ---.*?(--- End of content ---|$)`)

// said is the text of a person's turn: its text parts joined as Gemini
// CLI joins them to show the turn again, without the files @path
// references pulled in.
func said(parts []part) string {
	var sb strings.Builder
	for _, p := range parts {
		if p.FunctionCall == nil && p.FunctionResponse == nil && !p.Thought {
			sb.WriteString(p.Text)
		}
	}
	return unreferenced(sb.String())
}

// unreferenced is a person's text without the files @path references
// pulled in.
func unreferenced(text string) string {
	return strings.TrimSpace(referenced.ReplaceAllString(text, ""))
}

// workdir finds the first working directory the setup context names:
// "I'm currently working in the directory: X" (2025), or the first of a
// list ("...in the following directories:" or "**Workspace
// Directories:**", 2026).
var workdir = regexp.MustCompile(`(?m)(?:working in the directory: *|working in the following directories:\s*\n\s*- *|Workspace Directories:\*\*\s*\n\s*- *)(\S.*)$`)

// injected reports whether a user turn is Gemini CLI's rather than the
// person's (own false), with the working directory it names, if any.
// These are the turns Gemini CLI adds to the model's history itself
// (packages/core/src/utils/environmentContext.ts, core/client.ts,
// context/chatCompressionService.ts, utils/historyHardening.ts).
func geminiInjected(text string) (own bool, dir string) {
	if m := workdir.FindStringSubmatch(text); m != nil {
		dir = strings.TrimSpace(m[1])
	}
	switch {
	case strings.Contains(text, "setting up the context for our chat"), // the setup: "This is the Gemini CLI. We are...", "Okay, just..." in June 2025
		strings.HasPrefix(text, "I'm currently working in the director"), // /directory add
		strings.HasPrefix(text, "- **Workspace Directories:**"),
		strings.Contains(text, "<state_snapshot>"), // the summary that replaced compressed history
		text == "Please continue.",                 // the nudge when the model stopped mid-task
		strings.HasPrefix(text, "Here is the user's editor context"),
		strings.HasPrefix(text, "Here is a summary of changes in the user's editor context"):
		return false, dir
	}
	return true, ""
}

// isAck reports the model's fixed acknowledgements of the setup and of a
// summary, which Gemini CLI writes into the history itself.
func isAck(text string) bool {
	t := strings.TrimSpace(text)
	return t == "Got it. Thanks for the context!" || t == "Got it. Thanks for the additional context!"
}

func start(v []byte) string {
	if len(v) > 80 {
		v = v[:80]
	}
	return strings.ToValidUTF8(string(v), "\uFFFD")
}

// isGeminiCheckpoint reports whether the file at path is a checkpoint: named
// checkpoint-*.json, an array of Contents or an object whose history is
// one, its first Content from the user or the model. Only the start of
// the file is read.
func isGeminiCheckpoint(path string) bool {
	base := filepath.Base(path)
	if !strings.HasPrefix(base, "checkpoint-") || !strings.HasSuffix(base, ".json") {
		return false
	}
	return startsAs(path, func(dec *jsontext.Decoder) bool {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.Kind() == '{' {
			for {
				name, err := dec.ReadToken()
				if err != nil || name.Kind() != '"' {
					return false
				}
				if name.String() == "history" {
					if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
						return false
					}
					break
				}
				if dec.SkipValue() != nil {
					return false
				}
			}
		} else if tok.Kind() != '[' {
			return false
		}
		first, err := dec.ReadValue()
		if err != nil {
			return false
		}
		var c content
		return jsonv2.Unmarshal(first, &c, lenient) == nil && (c.Role == "user" || c.Role == "model")
	})
}

// startsAs reports whether the JSON file at path starts as start says,
// reading no further than it does.
func startsAs(path string, start func(*jsontext.Decoder) bool) bool {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return start(jsontext.NewDecoder(io.LimitReader(f, 64<<20), jsontext.AllowInvalidUTF8(true)))
}
