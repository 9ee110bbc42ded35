package evolve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
)

// A batch leaves its last steps (the audit entry, the renames) unsynced
// until the next batch's sync, so a crash of the system can lose them; the
// next writer rolls them forward (recover). A reader that judges the
// project's files against what devlearn wrote (reconcile: an artifact gone
// is a "no" that sticks) must not judge before that happens, or it would
// take a rename the crash lost for a person's deletion. Unsettled tells
// such a reader cheaply whether anything may be left; Settle finishes it.

// Unsettled reports whether p may hold a batch left unfinished: a marker in
// flight (a writer stopped mid-batch), or a finished batch's done marker
// written in another boot of the system. A done marker of this boot, the
// usual case after any batch, needs nothing: only a crash of the system
// loses a finished batch's steps. It reads the last bytes of the done
// marker, where its boot is, not the whole marker.
func Unsettled(p *project.Project) bool {
	w := &Writer{proj: p}
	if _, err := os.Lstat(w.pendingPath()); err == nil || !os.IsNotExist(err) {
		return true
	}
	f, err := os.Open(w.donePath())
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	boot := bootID()
	if boot == "" {
		return true // this system cannot tell its boots apart: settle
	}
	// pending's last field is its boot: json.Marshal ends the marker with
	// "boot":"<id>"}.
	want := []byte(`"boot":` + strconv.Quote(boot) + "}")
	fi, err := f.Stat()
	if err != nil || fi.Size() < int64(len(want)) {
		return true
	}
	tail := make([]byte, len(want)+1)
	n, _ := f.ReadAt(tail, fi.Size()-int64(len(tail)))
	return !bytes.HasSuffix(bytes.TrimRight(tail[:n], "\n"), want)
}

// Settle finishes or undoes, under the writer's lock, whatever batch a
// crash left (see recover); a batch finished in this boot is left as it
// is, for the next batch's sync.
func (w *Writer) Settle(ctx context.Context) error {
	unlock, err := jsonl.Lock(ctx, w.lockPath())
	if err != nil {
		return err
	}
	defer unlock()
	t := w.open()
	defer t.close()
	if _, err := w.recover(t); err != nil {
		return fmt.Errorf("finishing an interrupted write: %w", err)
	}
	return nil
}
