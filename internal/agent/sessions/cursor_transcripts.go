// readCursorFile reads Cursor's agent transcripts
// (~/.cursor/projects/<workspace>/agent-transcripts/<id>/<id>.jsonl, and
// <id>.jsonl directly under agent-transcripts/ in some versions) into the
// channels devlearn's extractors read.
//
// Cursor documents no format; what is read is what every public reader of
// these files agrees on (Cursor writes them since early 2026): one JSON
// object per line, {"role": "user"|"assistant", "message": {"content":
// [{"type": "text", "text": ...}, {"type": "tool_use", "name", "input"}]}},
// the person's words wrapped in <user_query> tags. Lines carry no time:
// the file's modification time dates every record, so that ingesting the
// same file again adds nothing. The stop and sessionEnd hooks name the
// file (transcript_path), which is how the worker finds it.

package sessions

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/transcript"
)

type line struct {
	Role    string `json:"role"`
	Message struct {
		Content jsontext.Value `json:"content"`
	} `json:"message"`
	Type string `json:"type"` // a Claude Code record has one; Cursor's lines do not
}

type block struct {
	Type  string         `json:"type"`
	Text  string         `json:"text"`
	Name  string         `json:"name"`
	Input jsontext.Value `json:"input"`
}

var userQuery = regexp.MustCompile(`(?s)<user_query>\s*(.*?)\s*</user_query>`)

// tools maps Cursor's tool names to Claude Code's.
var cursorTools = map[string]string{"Shell": "Bash", "run_terminal_cmd": "Bash", "edit_file": "Edit", "search_replace": "Edit", "write": "Write", "read_file": "Read"}

// readCursorFile reads the transcript at path; its session is the file's name.
var readCursorFile = fromText(readCursor)

// readCursor reads a transcript of session id, dated at.
func readCursor(r io.Reader, name, id string, at time.Time, opt transcript.Options) (*transcript.Channels, error) {
	b := newBuilder(name, opt)
	b.session(id)
	ts := at.Format(time.RFC3339)
	problems, err := jsonl.Scan(r, func(n int, raw []byte) error {
		b.line(n)
		var l line
		if err := jsonv2.Unmarshal(raw, &l); err != nil {
			return err
		}
		meta := transcript.Meta{UUID: fmt.Sprintf("%s:%d", id, n), Timestamp: ts, Line: n}
		var blocks []block
		var s string
		if jsonv2.Unmarshal(l.Message.Content, &s) == nil {
			blocks = []block{{Type: "text", Text: s}}
		} else {
			jsonv2.Unmarshal(l.Message.Content, &blocks)
		}
		for i, bl := range blocks {
			switch {
			case l.Role == "user" && bl.Type == "text":
				t := bl.Text
				if m := userQuery.FindStringSubmatch(t); m != nil {
					t = m[1]
				}
				b.user(meta, t, "")
			case l.Role == "assistant" && bl.Type == "text":
				b.assistant(meta, bl.Text)
			case l.Role == "assistant" && bl.Type == "tool_use":
				name := bl.Name
				if t, ok := cursorTools[name]; ok {
					name = t
				}
				var args struct {
					Command    string `json:"command"`
					FilePath   string `json:"file_path"`
					TargetFile string `json:"target_file"`
					Path       string `json:"path"`
				}
				jsonv2.Unmarshal(bl.Input, &args)
				var paths []string
				for _, p := range []string{args.FilePath, args.TargetFile, args.Path} {
					if p != "" {
						paths = append(paths, p)
						break
					}
				}
				tm := meta
				tm.UUID = fmt.Sprintf("%s:%d:%d", id, n, i)
				b.tool(tm, "", name, args.Command, paths, "")
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", name, err)
	}
	for _, p := range problems {
		b.problem(p)
	}
	return b.done(), nil
}

// isCursorTranscript reports whether the file at path is a Cursor agent
// transcript: a .jsonl under an agent-transcripts folder whose first line
// is a {role, message} object.
func isCursorTranscript(path string) bool {
	if !strings.HasSuffix(path, ".jsonl") || !strings.Contains(filepath.ToSlash(path), "/agent-transcripts/") {
		return false
	}
	var l line
	return jsonv2.Unmarshal(firstLine(path), &l) == nil && l.Type == "" && (l.Role == "user" || l.Role == "assistant")
}

// cursorHome is Cursor's folder: ~/.cursor.
func cursorHome(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cursor")
	}
	return ""
}

// cursorSlug is Cursor's name for a workspace's folder under projects/: the
// path with its separators (and other characters but letters, digits,
// "-" and "_") made "-", without the leading one. Lines record no cwd,
// so this name is the only link between a transcript and its workspace.
func cursorSlug(root string) string {
	s := regexp.MustCompile(`[^A-Za-z0-9_-]`).ReplaceAllString(filepath.ToSlash(filepath.Clean(root)), "-")
	return strings.TrimLeft(s, "-")
}

// findCursor lists the agent transcripts of the workspace root.
func findCursor(home, root string) ([]string, error) {
	dir := filepath.Join(home, "projects", cursorSlug(root), "agent-transcripts")
	var out []string
	for _, pattern := range []string{"*.jsonl", filepath.Join("*", "*.jsonl")} {
		files, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if isCursorTranscript(f) {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
