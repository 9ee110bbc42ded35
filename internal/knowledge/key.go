package knowledge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/textkey"
)

// MaxKey bounds a key, and so the name of its file.
const MaxKey = 80

// ValidKey checks that a key can be a file name and nothing else: lower
// case ASCII letters, digits and inner dashes. Everything else (dots,
// slashes, NUL, look-alike letters from other scripts) is refused rather
// than mapped, so that two keys never name the same file and no key names
// a file outside its folder.
func ValidKey(key string) error {
	if key == "" {
		return fmt.Errorf("key is empty")
	}
	if len(key) > MaxKey {
		return fmt.Errorf("key is %d characters; at most %d", len(key), MaxKey)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(key)-1:
		default:
			return fmt.Errorf("key %q may hold only a-z, 0-9 and inner dashes (a slug, such as version-bump-checklist)", key)
		}
	}
	if textkey.Reserved(key) {
		return fmt.Errorf("key %q is a name Windows keeps for a device; add a word (%s-notes)", key, key)
	}
	return nil
}

// KeyFor derives a key from a summary: its slug, cut to leave room for a
// suffix.
func KeyFor(summary string) string {
	s := textkey.Slug(summary)
	if len(s) > MaxKey-10 {
		s = strings.TrimRight(s[:MaxKey-10], "-")
	}
	if textkey.Reserved(s) {
		s += "-notes" // "aux" would name a device on Windows
	}
	return s
}

// EntryFile is the file of key in the folder dir (a project-relative
// folder with forward slashes, or an absolute one). It proves the result
// is a direct child of dir.
func EntryFile(dir, key string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	var p, parent string
	if filepath.IsAbs(dir) {
		p = filepath.Join(dir, key+".md")
		parent = filepath.Clean(dir)
		if filepath.Dir(p) != parent {
			return "", fmt.Errorf("refusing key %q: it would leave %s", key, dir)
		}
		return p, nil
	}
	p = path.Join(dir, key+".md")
	parent = path.Clean(dir)
	if path.Dir(p) != parent {
		return "", fmt.Errorf("refusing key %q: it would leave %s", key, dir)
	}
	return p, nil
}

// ContentHash identifies what an entry says, whoever wrote it down: the
// key, the status and the source are left out, so that the Stop hook and
// the worker, seeing the same block, compute the same hash (the entries and counters rule, docs/architecture.md).
func ContentHash(e *Entry) string {
	c := *e
	c.Key, c.Status, c.Source = "", "", ""
	// Nor when and by what it was seen: the hook and the worker see the
	// same block at different times, with different evidence.
	c.SourceID, c.Evidence, c.TokenEstimate, c.CreatedAt, c.UpdatedAt = "", nil, 0, "", ""
	c.Clone, c.Accepted = "", ""
	data, err := c.marshal()
	if err != nil {
		data = []byte(c.Summary + "\n" + c.Body)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// CandidateKey is the key of a candidate entry: the slug of its summary and
// eight hex digits of its content hash, so the same block always lands in
// the same file and two different blocks with one summary never collide.
func CandidateKey(e *Entry) string {
	h := ContentHash(e)[:8]
	s := KeyFor(e.Summary)
	if s == "" {
		return "entry-" + h
	}
	return s + "-" + h
}
