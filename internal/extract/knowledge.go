package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/transcript"
)

// The agent (or the person) writes a knowledge entry for devlearn in the
// triads design's keys (knowledge.ParseBlock reads them: type, label,
// trigger_conditions, checklist, pattern, warning, requirement, ...) or as
//
//	[PROCESS_KNOWLEDGE]
//	key: version-bump-checklist
//	summary: Bumping a version means four files, not one
//	triggers: {tools: [Write, Edit], files: ["**/plugin.json"]}
//	body: ...
//	[/PROCESS_KNOWLEDGE]
//
// with the entry's YAML (docs/serve.md, What is served) inside. The opening tag must start a
// line, so that prose mentioning the tag ("emit a [PROCESS_KNOWLEDGE]
// block") is not a block; a code fence around the YAML is allowed.
const (
	openTag   = "[PROCESS_KNOWLEDGE]"
	closeTag  = "[/PROCESS_KNOWLEDGE]"
	maxBlock  = 16 << 10 // bytes of YAML in one block
	maxBlocks = 20       // blocks taken from one text
)

// KnowledgeBlock is one block: the YAML inside, parsed, exactly as written
// (no key added, none checked: the knowledge package validates entries),
// and the block itself, tags included.
type KnowledgeBlock struct {
	Entry map[string]any `json:"entry"`
	Raw   string         `json:"raw"`
}

// Hash identifies a block by its content, so that the same block seen by
// the Stop hook and by the transcript worker becomes one candidate
// (the entries and counters rule, docs/architecture.md). Line endings and trailing spaces do not count.
func (b KnowledgeBlock) Hash() string {
	lines := strings.Split(strings.ReplaceAll(b.Raw, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(strings.Join(lines, "\n"))))
	return hex.EncodeToString(sum[:])
}

// ParseKnowledgeBlocks returns the [PROCESS_KNOWLEDGE] blocks in text (an
// agent's last message, a transcript's text), redacted with opt.Redact.
// A block that is not a YAML mapping, is too large or is never closed is
// reported in errs, naming its line in text; the other blocks are still
// returned.
func ParseKnowledgeBlocks(text string, opt Options) (blocks []KnowledgeBlock, errs []error) {
	rest, offset := text, 0
	for len(blocks)+len(errs) < maxBlocks {
		i := openingTag(rest)
		if i < 0 {
			break
		}
		line := 1 + strings.Count(text[:offset+i], "\n")
		body := rest[i+len(openTag):]
		j := strings.Index(body, closeTag)
		if j < 0 {
			errs = append(errs, fmt.Errorf("knowledge block at line %d: no %s", line, closeTag))
			break
		}
		raw := rest[i : i+len(openTag)+j+len(closeTag)]
		offset += i + len(raw)
		rest = rest[i+len(raw):]
		b, err := parseBlock(body[:j], raw, opt)
		if err != nil {
			errs = append(errs, fmt.Errorf("knowledge block at line %d: %w", line, err))
			continue
		}
		blocks = append(blocks, b)
	}
	return blocks, errs
}

// openingTag returns the index of the first opening tag that starts a
// line, or -1.
func openingTag(s string) int {
	from := 0
	for {
		i := strings.Index(s[from:], openTag)
		if i < 0 {
			return -1
		}
		i += from
		lineStart := strings.LastIndexByte(s[:i], '\n') + 1
		if strings.TrimSpace(s[lineStart:i]) == "" {
			return i
		}
		from = i + len(openTag)
	}
}

func parseBlock(body, raw string, opt Options) (KnowledgeBlock, error) {
	y := strings.TrimSpace(body)
	if strings.HasPrefix(y, "```") || strings.HasPrefix(y, "~~~") {
		if nl := strings.IndexByte(y, '\n'); nl >= 0 {
			y = y[nl+1:]
		} else {
			y = ""
		}
		y = strings.TrimSpace(y)
		y = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(y, "```"), "~~~"))
	}
	if y == "" {
		return KnowledgeBlock{}, fmt.Errorf("empty")
	}
	if len(y) > maxBlock {
		return KnowledgeBlock{}, fmt.Errorf("%d bytes of YAML, more than %d", len(y), maxBlock)
	}
	var entry map[string]any
	if err := yaml.Unmarshal([]byte(y), &entry); err != nil {
		// The triads design's own reader takes each line as "key: value", split at
		// the first colon, so agents write values YAML reads otherwise
		// ("action: run `make fmt`: always"). Read that way, quoted, the
		// block means what its writer meant.
		var loose map[string]any
		if lerr := yaml.Unmarshal([]byte(quoteLoose(y)), &loose); lerr != nil {
			return KnowledgeBlock{}, fmt.Errorf("not a YAML mapping: %v", err)
		}
		entry = loose
	}
	if len(entry) == 0 {
		return KnowledgeBlock{}, fmt.Errorf("not a YAML mapping")
	}
	// Redacting the parsed values, not the YAML text: a placeholder like
	// [REDACTED] would change what the YAML means.
	return KnowledgeBlock{Entry: redactValue(entry, opt).(map[string]any), Raw: opt.redact(raw)}, nil
}

func redactValue(v any, opt Options) any {
	switch v := v.(type) {
	case string:
		return opt.redact(v)
	case map[string]any:
		for k, x := range v {
			v[k] = redactValue(x, opt)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = redactValue(x, opt)
		}
		return v
	}
	return v
}

// Candidate is a knowledge block found in a transcript, with where it was.
type Candidate struct {
	KnowledgeBlock
	Hash       string `json:"hash"`
	SessionID  string `json:"session_id"`
	RecordUUID string `json:"record_uuid"`
	Extractor  string `json:"extractor"`
	Timestamp  string `json:"timestamp,omitempty"`
}

// KnowledgeCandidates returns the knowledge blocks written in a session,
// by the person or the agent, each once. Unlike the other extractors it
// reads the text unredacted and redacts the parsed values (see
// parseBlock).
func KnowledgeCandidates(ch *transcript.Channels, opt Options) ([]Candidate, []error) {
	var out []Candidate
	var errs []error
	seen := map[string]bool{}
	add := func(text, session, uuid, ts string) {
		if !strings.Contains(text, openTag) {
			return
		}
		blocks, e := ParseKnowledgeBlocks(text, opt)
		for _, err := range e {
			errs = append(errs, fmt.Errorf("record %s: %w", uuid, err))
		}
		for _, b := range blocks {
			h := b.Hash()
			if seen[h] {
				continue
			}
			seen[h] = true
			out = append(out, Candidate{KnowledgeBlock: b, Hash: h, SessionID: session, RecordUUID: uuid, Extractor: ExtractorKnowledgeBlock, Timestamp: ts})
		}
	}
	for _, s := range ch.UserSignals {
		add(s.Text, s.SessionID, s.UUID, s.Timestamp)
	}
	for _, p := range ch.DialogPairs {
		add(p.Assistant, p.SessionID, p.AssistantUUID, p.Timestamp)
	}
	return out, errs
}

// looseLine is a "key: value" or "- value" line of a block, compiled on
// first use (every devlearn process links this package).
var looseLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\s*(?:-\s+)?)(?:([A-Za-z_][A-Za-z0-9_-]*):(?:\s+|$))?(.*)$`)
})

// quoteLoose quotes the plain values of a block's lines that YAML would
// misread: a value holding ": " or " #", or starting with a character
// YAML gives a meaning to. Flow lists, quoted values and block scalars are
// left as they are.
func quoteLoose(y string) string {
	lines := strings.Split(y, "\n")
	for i, l := range lines {
		m := looseLine().FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		prefix := l[m[2]:m[3]]
		key := ""
		if m[4] >= 0 {
			key = l[m[4]:m[5]]
		}
		val := strings.TrimSpace(l[m[6]:m[7]])
		if val == "" || (key == "" && !strings.HasPrefix(strings.TrimSpace(prefix), "-")) {
			continue
		}
		if strings.ContainsAny(val[:1], "[{\"'|>") {
			continue
		}
		if !strings.Contains(val, ": ") && !strings.Contains(val, " #") && !strings.ContainsAny(val[:1], "`@%&*!") {
			continue
		}
		q := strconv.Quote(val)
		if key != "" {
			lines[i] = prefix + key + ": " + q
		} else {
			lines[i] = prefix + q
		}
	}
	return strings.Join(lines, "\n")
}
