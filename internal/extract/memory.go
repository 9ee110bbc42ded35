package extract

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/adrg/frontmatter"
)

// A topic file of Claude Code's auto memory: front matter naming the
// memory, its one-line description and its type (user, feedback, project
// or reference; "type:" at the top, or under "metadata:" in another
// version), then the memory at length. Read the same whether devlearn
// finds the file on disk (internal/automemory) or sees the agent write it
// in a session (writtenLessons), and recorded by one rule (MemoryKind).

// MemoryFile is a memory topic file's content.
type MemoryFile struct {
	Name, Description string
	Type              string // user, feedback, project or reference, in lower case
	Body              string
}

// ParseMemory reads a memory topic file; an error when it has no front
// matter or no type.
func ParseMemory(data []byte) (MemoryFile, error) {
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Type        string `yaml:"type"`
		Metadata    struct {
			Type string `yaml:"type"`
		} `yaml:"metadata"`
	}
	body, err := frontmatter.MustParse(bytes.NewReader(data), &fm)
	if err != nil {
		return MemoryFile{}, fmt.Errorf("not a memory file (front matter with name, description and type): %v", err)
	}
	m := MemoryFile{Name: fm.Name, Description: fm.Description, Type: strings.ToLower(cmp.Or(strings.TrimSpace(fm.Type), strings.TrimSpace(fm.Metadata.Type))), Body: strings.TrimSpace(string(body))}
	if m.Type == "" {
		return MemoryFile{}, errors.New("no type in its front matter (user, feedback, project or reference)")
	}
	return m, nil
}

// ErrMemoryNotRecorded marks a memory that is not recorded, with why.
var ErrMemoryNotRecorded = errors.New("not recorded")

// MemoryKind is the observation type a memory of type typ is recorded as:
// feedback (what the person corrected or confirmed) a pitfall, as a
// correction is; project (a fact or decision about the work) a decision.
// A user memory describes the person and stays on their machine; a
// reference memory points outside the repository: neither is recorded.
func MemoryKind(typ string) (string, error) {
	switch typ {
	case "feedback":
		return Pitfall, nil
	case "project":
		return Decision, nil
	case "user":
		return "", fmt.Errorf("%w: a user memory is about the person and stays on this machine", ErrMemoryNotRecorded)
	case "reference":
		return "", fmt.Errorf("%w: a reference memory points outside the repository", ErrMemoryNotRecorded)
	}
	return "", fmt.Errorf("%w: unknown type %q", ErrMemoryNotRecorded, typ)
}
