// Claude Code's prompt history (~/.claude/history.jsonl): every prompt the
// person typed, of every project, one JSON object a line —
// {"display", "pastedContents", "timestamp" (ms), "project", "sessionId"
// (recent versions)} — with no replies and no tool calls. People keep it
// when they keep their ~/.claude folder; Claude Code keeps it after it has
// deleted the sessions' transcripts.
//
// Each session is one Log (by sessionId; before versions wrote one, by
// project, a new session after an hour without a prompt). A session whose
// transcript lies in the projects folder beside the file is left to it:
// the transcript holds the replies too, and a prompt read from both would
// count twice. So is every prompt without a session id of a project that
// has transcripts there. Slash commands and shell escapes ("!ls") are not
// words to the agent; a paste the prompt names ("[Pasted text #1 +20
// lines]") is not the person's words either, and stays out.

package sessions

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// claudeHistoryName is the file Claude Code keeps its prompt history in.
const claudeHistoryName = "history.jsonl"

// historyGap is the pause after which prompts without a session id start
// another session.
const historyGap = time.Hour

type historyEntry struct {
	Display   string `json:"display"`
	Timestamp int64  `json:"timestamp"`
	Project   string `json:"project"`
	SessionID string `json:"sessionId"`
}

var pastedRef = regexp.MustCompile(`\[Pasted text #\d+(?: \+\d+ lines)?\]|\[Image #\d+\]`)

// claudeHistory is a history.jsonl read: its prompts by session.
type claudeHistory struct {
	name     string
	sessions []string
	prompts  map[string][]prompt
	cwd      map[string]string
}

// isClaudeHistory reports whether the file at path is Claude Code's prompt
// history: named history.jsonl, its first line an entry with a project.
func isClaudeHistory(path string) bool {
	if filepath.Base(path) != claudeHistoryName {
		return false
	}
	var e historyEntry
	return jsonv2.Unmarshal(firstLine(path), &e, lenient) == nil && e.Project != "" && e.Timestamp > 0
}

func loadClaudeHistory(path string) (*claudeHistory, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read prompt history: %w", err)
	}
	defer f.Close()
	projects := filepath.Join(filepath.Dir(path), "projects")
	h := &claudeHistory{name: path, prompts: map[string][]prompt{}, cwd: map[string]string{}}
	last := map[string]int64{}     // a project's last prompt without a session id
	current := map[string]string{} // and the session it opened
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		var e historyEntry
		if jsonv2.Unmarshal(sc.Bytes(), &e, lenient) != nil || e.Project == "" {
			continue
		}
		text := strings.TrimSpace(pastedRef.ReplaceAllString(e.Display, ""))
		if text == "" || strings.HasPrefix(text, "!") || isSlashCommand(text) {
			continue
		}
		id := e.SessionID
		switch {
		case id != "" && transcriptBeside(projects, id):
			continue
		case id == "" && projectBeside(projects, e.Project):
			continue
		case id == "":
			if s, ok := current[e.Project]; ok && e.Timestamp-last[e.Project] <= historyGap.Milliseconds() {
				id = s
			} else {
				sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", e.Project, e.Timestamp)))
				id = "history-" + hex.EncodeToString(sum[:8])
				current[e.Project] = id
			}
			last[e.Project] = e.Timestamp
		}
		if _, ok := h.prompts[id]; !ok {
			h.sessions = append(h.sessions, id)
			h.cwd[id] = e.Project
		}
		at := time.UnixMilli(e.Timestamp).UTC().Format(time.RFC3339)
		h.prompts[id] = append(h.prompts[id], prompt{uuid: fmt.Sprintf("%s:L%d", id, n), at: at, text: text, line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read prompt history %s: %w", path, err)
	}
	sort.SliceStable(h.sessions, func(i, j int) bool { return h.prompts[h.sessions[i]][0].line < h.prompts[h.sessions[j]][0].line })
	return h, nil
}

// read is one session's prompts, in the order they were typed.
func (h *claudeHistory) read(session string, opt transcript.Options) *transcript.Channels {
	return readPrompts(h.name, session, h.cwd[session], h.prompts[session], true, opt)
}

// transcriptBeside reports whether the projects folder holds the session's
// transcript.
func transcriptBeside(projects, session string) bool {
	if strings.ContainsAny(session, `/\`) || session == "" {
		return false
	}
	found, _ := filepath.Glob(filepath.Join(projects, "*", session+".jsonl"))
	return len(found) > 0
}

// projectBeside reports whether the projects folder holds transcripts of
// the project. Claude Code names its folder after the path, with the
// characters it replaces by "-" changing between versions: each way is
// looked for.
func projectBeside(projects, project string) bool {
	ways := []func(rune) bool{
		func(r rune) bool { return !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))) },
		func(r rune) bool { return strings.ContainsRune(`/\:.`, r) },
		func(r rune) bool { return r == '/' || r == '\\' },
	}
	for _, replaced := range ways {
		slug := strings.Map(func(r rune) rune {
			if replaced(r) {
				return '-'
			}
			return r
		}, project)
		if found, _ := filepath.Glob(filepath.Join(projects, slug, "*.jsonl")); len(found) > 0 {
			return true
		}
	}
	return false
}

// historyLogs are the sessions of the history at path.
func historyLogs(path string) []Log {
	h, err := loadClaudeHistory(path)
	if err != nil {
		return sessionsOf("claude-code", path, nil, nil, err)
	}
	return sessionsOf("claude-code", path, h.sessions, h.read, nil)
}
