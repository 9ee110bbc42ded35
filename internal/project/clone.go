package project

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/devlearn/devlearn/internal/safefile"
)

// cloneIDFile holds the clone's id in its state folder: never committed,
// shared by the clone's worktrees.
const cloneIDFile = "clone-id"

// CloneID is the id of this clone, made at first use: what an agent's
// draft records as the clone that wrote it, so that it is served only
// there until a person promotes it. Two processes making it at once agree
// on one (the first link wins).
func (p *Project) CloneID() (string, error) {
	path := p.StatePath(cloneIDFile)
	if id, err := readCloneID(path); err == nil {
		return id, nil
	}
	if err := safefile.MkdirAll(p.CommonDir, p.StateDir(), 0o755); err != nil {
		return "", err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	tmp := fmt.Sprintf("%s.%s.tmp", path, id)
	if err := safefile.WriteFile(p.CommonDir, tmp, []byte(id+"\n"), 0o644); err != nil {
		return "", err
	}
	defer safefile.Remove(p.CommonDir, tmp)
	if err := safefile.Link(p.CommonDir, tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return readCloneID(path)
}

func readCloneID(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(data))
	if len(id) != 16 {
		return "", fmt.Errorf("%s: %q is not a clone id (delete the file: a new one is made)", path, id)
	}
	return id, nil
}
