package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/worker"
)

// sessionEnd spools the session and, when a batch is due, starts the
// worker detached: SessionEnd hooks share about 1.5 seconds, so the hook
// does a few file operations and leaves the reading to the worker. A
// session that ends while a worker runs is spooled too: the running worker
// takes it when its batch is done, or the next session end starts one.
func (r *run) sessionEnd() (*Output, error) {
	st := worker.For(r.proj)
	err := st.Add(worker.Entry{
		SessionID:      r.in.SessionID,
		TranscriptPath: r.in.TranscriptPath,
		Root:           r.proj.Root,
		Reason:         r.in.Reason,
		EndedAt:        r.now.UTC().Format(time.RFC3339),
	})
	if err != nil {
		return nil, fmt.Errorf("spooling the session: %w", err)
	}
	d, err := st.Due(r.now, r.cfg.Worker)
	if err != nil {
		return nil, err
	}
	if !d.Start {
		if d.Capped {
			r.log.Printf("%s", d.Why)
		}
		return nil, errQuiet
	}
	if r.env.StartWorker == nil {
		return nil, errQuiet
	}
	if err := r.env.StartWorker(r.proj); err != nil {
		return nil, fmt.Errorf("starting the worker: %w (nothing is lost: the spool keeps every ended session for the next try)", err)
	}
	return nil, errQuiet
}

// stop saves the [PROCESS_KNOWLEDGE] blocks of the agent's last message as
// candidate entries for a person to review, and does nothing when the
// agent is already continuing because of a Stop hook. Only the stop gates
// (gates.go) ever block it.
func (r *run) stop() (o *Output, err error) {
	defer r.stopGates(&o, &err) // the quality gates: gates.go
	if r.in.StopHookActive {
		return nil, errQuiet
	}
	text := r.in.LastAssistantMessage
	if text == "" && r.in.TranscriptPath != "" {
		// Older Claude Code versions send no last_assistant_message; the
		// transcript may lag the hook, but its tail is the best left.
		t, err := LastAssistantText(r.in.TranscriptPath)
		if err != nil {
			return nil, err
		}
		text = t
	}
	if !strings.Contains(text, "[PROCESS_KNOWLEDGE]") {
		return nil, errQuiet
	}
	blocks, errs := extract.ParseKnowledgeBlocks(text, extract.Options{Redact: r.env.Redact})
	for _, err := range errs {
		r.log.Printf("the agent's last message: %v (skipped)", err)
	}
	r.debugKeep("stop", map[string]any{"last_assistant_message": text}, map[string]any{"blocks": blocks, "problems": fmt.Sprint(errs)})
	if len(blocks) == 0 {
		return nil, errQuiet
	}
	kept := r.takeKeepPending()
	for _, b := range blocks {
		if err := r.saveBlock(b, kept); err != nil {
			r.log.Printf("knowledge block not saved: %v", err)
		}
	}
	return nil, errQuiet
}

// tailBytes is how much of a transcript's end is read for the last
// assistant message: a turn's text, with room for the tool calls around it.
const tailBytes = 1 << 20

// LastAssistantText returns the text of the last assistant turn of the
// transcript at path, read from its last tailBytes.
func LastAssistantText(path string) (string, error) {
	// Opening a FIFO waits for a writer, for ever: only a regular file is
	// opened (the worker's transcript.FromPath does the same).
	if fi, err := os.Stat(path); err != nil {
		return "", err
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("transcript %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	off := max(fi.Size()-tailBytes, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if off > 0 {
		// Start at a line: the first one is cut.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var last string
	_, _, err = transcript.Walk(bytes.NewReader(buf), transcript.Options{MaxText: tailBytes}, transcript.Sink{
		DialogPair: func(p transcript.DialogPair) error { last = p.Assistant; return nil },
	})
	return last, err
}
