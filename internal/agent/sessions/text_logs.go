// What the session logs kept as text share (SpecStory's markdown, Claude
// Code's /export text, conversations exported to markdown): one look at
// the start of a file to tell which it is, if any; the file opened with
// the time its name or its stamp gives; its lines, numbered.

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
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// textHeadSize is how much of a file is looked at to know a text log.
const textHeadSize = 64 << 10

// textFormat is the agent and the reader of the text log at path, or ""
// and nil when it is none. The start of the file is read once for every
// format. strict (a file met while walking a folder) asks for the strong
// signs only; a file named alone may show weaker ones.
func textFormat(path string, strict bool) (string, Reader) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".md" && ext != ".markdown" && ext != ".txt" && ext != ".log" && ext != "" {
		return "", nil
	}
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	buf := make([]byte, textHeadSize)
	n, _ := io.ReadFull(f, buf)
	head := buf[:n]
	switch {
	case ext == ".md" && specStoryHead(head):
		return "specstory", readSpecStoryFile
	case ext != ".markdown" && claudeExportHead(head, strict):
		return "claude-code", readClaudeExportFile
	case ext != ".log" && ext != "" && chatMarkdownHead(head, strict):
		return "claude-code", readChatMarkdownFile
	}
	return "", nil
}

// textReader reads a text log from r, as session id unless the log names
// its own, dated at.
type textReader func(r io.Reader, name, id string, at time.Time, opt transcript.Options) (*transcript.Channels, error)

// fromText is the Reader of a file read by read, with the id and the time
// textLog gives it.
func fromText(read textReader) Reader {
	return func(path string, opt transcript.Options) (*transcript.Channels, error) {
		return readText(path, opt, read, "")
	}
}

// fromSaved is fromText for a log a person saved under a name of their
// choosing. A name that gives no time ("contexto.md", "LAST_CHAT.md") is
// often saved over by each new session, and as its id it made every
// session saved there one: a lesson taught in each was seen in one
// session, and never recurred. Such a log is named by its name and its
// first message from the person, which a later save of the same session,
// grown, keeps. A log that names its own session keeps that id.
func fromSaved(read textReader) Reader {
	return func(path string, opt transcript.Options) (*transcript.Channels, error) {
		ch, err := readText(path, opt, read, "")
		if err != nil || ch.SessionID != nameID(path) {
			return ch, err
		}
		if _, dated := nameTime(filepath.Base(path)); dated {
			return ch, nil
		}
		first := ""
		for _, u := range ch.UserSignals {
			if first = strings.Join(strings.Fields(u.Text), " "); first != "" {
				break
			}
		}
		if first == "" {
			return ch, nil
		}
		sum := sha256.Sum256([]byte(first))
		return readText(path, opt, read, hex.EncodeToString(sum[:4]))
	}
}

// readText reads the text log at path with read, its id textLog's with
// suffix, when given, after a hyphen.
func readText(path string, opt transcript.Options, read textReader, suffix string) (*transcript.Channels, error) {
	f, id, at, err := textLog(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if suffix != "" {
		id += "-" + suffix
	}
	return read(f, path, id, at, opt)
}

// nameID is the id textLog gives the log at path: its name without the
// extension.
func nameID(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// textLog opens the text log at path: its id is its name without the
// extension, its time the one the name gives, else its modification time
// (the log itself may give others, record by record).
func textLog(path string) (f *os.File, id string, at time.Time, err error) {
	f, err = safefile.OpenRegular(path)
	if err != nil {
		return nil, "", time.Time{}, fmt.Errorf("read transcript: %w", err)
	}
	at = time.Now().UTC()
	if fi, err := f.Stat(); err == nil {
		at = fi.ModTime().UTC()
	}
	base := filepath.Base(path)
	if t, ok := nameTime(base); ok {
		at = t
	}
	return f, nameID(path), at, nil
}

// nameTime is the time a file's name gives: "2025-10-01_23-30Z-…" (what
// SpecStory names), "2025-08-05-…" (what /export names: a day).
func nameTime(base string) (time.Time, bool) {
	if t, ok := specTimeOf(base); ok {
		return t, true
	}
	if m := exportDate.FindStringSubmatch(base); m != nil {
		if t, err := time.Parse("2006-01-02", m[1]); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// eachLine hands read each line of r, numbered from 1, without its line
// end, and counts it in b.
func eachLine(r io.Reader, b *builder, name string, read func(n int, line string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		b.line(n)
		read(n, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read transcript %s: %w", name, err)
	}
	return nil
}

// firstLine is the first line of the file at path (at most 1 MB of it),
// trimmed; nil when it cannot be read.
func firstLine(path string) []byte {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	first, _ := bufio.NewReader(io.LimitReader(f, 1<<20)).ReadBytes('\n')
	return bytes.TrimSpace(first)
}

// readPrompts is a session of which only the person's prompts are known
// (a prompt log), in the order they were typed. claude: Claude Code's,
// whose texts in the person's place are told apart.
func readPrompts(name, session, cwd string, prompts []prompt, claude bool, opt transcript.Options) *transcript.Channels {
	b := newBuilder(name, opt)
	b.claude = claude
	b.session(session)
	for _, p := range prompts {
		b.line(p.line)
		b.user(transcript.Meta{UUID: p.uuid, Timestamp: p.at, Line: p.line}, p.text, cwd)
	}
	return b.done()
}
