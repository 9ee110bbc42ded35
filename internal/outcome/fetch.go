package outcome

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Fetch is an item an agent fetched through devlearn's agent tools, as
// the session's transcript shows it: a tool_use block of an MCP tool named
// "mcp__<server>__fetch_knowledge" (Claude Code's name for a server's
// tool) with the key or id it asked for. Reading it from the transcript,
// not from the server, ties it to its session exactly: the server is not
// told which session calls it.
type Fetch struct {
	ID      string // the key_or_id asked for
	Session string
	At      time.Time
}

// FetchTool is the tool whose calls count as applying an item.
const FetchTool = "fetch_knowledge"

// Fetches reads transcript files for fetch_knowledge calls.
func Fetches(paths []string) ([]Fetch, error) {
	var out []Fetch
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		_, err = transcript.Records(f, func(r *transcript.Record) error {
			if !r.Type.Is("assistant") || r.Content == nil {
				return nil
			}
			return transcript.ParseBlocks(r.Content, func(b *transcript.Block) error {
				if !b.Type.Is("tool_use") || !isFetch(b.Name.String()) {
					return nil
				}
				var in struct {
					KeyOrID string `json:"key_or_id"`
				}
				if json.Unmarshal(b.Input, &in) != nil || strings.TrimSpace(in.KeyOrID) == "" {
					return nil
				}
				at, _ := time.Parse(time.RFC3339Nano, r.Timestamp.String())
				out = append(out, Fetch{ID: strings.TrimSpace(in.KeyOrID), Session: r.SessionID.String(), At: at.UTC().Truncate(time.Second)})
				return nil
			})
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return out, nil
}

func isFetch(name string) bool {
	return strings.HasPrefix(name, "mcp__") && strings.HasSuffix(name, "__"+FetchTool)
}
