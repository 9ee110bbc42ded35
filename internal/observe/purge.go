package observe

import (
	"bytes"
	"context"
	"errors"

	"github.com/devlearn/devlearn/internal/jsonl"
)

// Purge drops the log's corrupt lines: those folding reports and skips
// (lines of unknown ops, from a newer devlearn, are kept). It holds the
// log's lock from the read to the write, so no append is lost, and hands
// the new content to write, which must replace the file atomically (the
// command passes the one writer, which keeps a copy of the old log). It
// returns the lines it dropped; with none, nothing is written.
func (st Store) Purge(ctx context.Context, write func(data []byte) error) ([]jsonl.Problem, error) {
	unlock, err := jsonl.Lock(ctx, st.LockPath)
	if err != nil {
		return nil, err
	}
	defer unlock()
	l := NewLog()
	var kept bytes.Buffer
	problems, err := jsonl.ScanFile(st.Path, func(n int, line []byte) error {
		if err := l.foldLine(n, line); err != nil {
			return err
		}
		kept.Write(line)
		kept.WriteByte('\n')
		return nil
	})
	if errors.Is(err, jsonl.ErrNotExist) {
		return nil, nil
	}
	if err != nil || len(problems) == 0 {
		return nil, err
	}
	return problems, write(kept.Bytes())
}
