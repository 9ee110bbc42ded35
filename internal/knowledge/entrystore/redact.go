package entrystore

import (
	"fmt"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/redact"
)

// redacted returns a copy of e with every free text redacted by r: the
// summary, the body, tags, trigger words, evidence and the process
// content. The key, the enumerated fields, ids and times are left alone;
// a key is checked by checkKeySecret instead, since redacting a file's
// name would rename it.
func redacted(e *knowledge.Entry, r func(string) string) *knowledge.Entry {
	c := *e
	c.Summary, c.Body = r(c.Summary), r(c.Body)
	c.Tags = redactEach(r, c.Tags)
	c.Evidence = redactEach(r, c.Evidence)
	c.Triggers.Actions = redactEach(r, c.Triggers.Actions)
	c.Triggers.Context = redactEach(r, c.Triggers.Context)
	if p := c.Checklist; p != nil {
		q := *p
		q.Title, q.Items = r(q.Title), redactEach(r, q.Items)
		c.Checklist = &q
	}
	if p := c.Pattern; p != nil {
		q := *p
		q.Situation, q.Action, q.Rationale, q.Example = r(q.Situation), r(q.Action), r(q.Rationale), r(q.Example)
		c.Pattern = &q
	}
	if p := c.Warning; p != nil {
		q := *p
		q.Risk, q.Detection, q.Mitigation = r(q.Risk), r(q.Detection), r(q.Mitigation)
		c.Warning = &q
	}
	if p := c.Requirement; p != nil {
		q := *p
		q.Constraint, q.Rationale, q.Validation = r(q.Constraint), r(q.Rationale), r(q.Validation)
		c.Requirement = &q
	}
	return &c
}

func redactEach(r func(string) string, list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = r(s)
	}
	return out
}

// checkKeySecret refuses a key that holds a card number or an IBAN: it
// would name a committed file. A key made by knowledge.KeyFor from a
// redacted summary never does; a key someone chose may.
func checkKeySecret(key string) error {
	if rule := redact.InName(key); rule != "" {
		return fmt.Errorf("key %q holds what reads as a secret (%s), and it would name a committed file: choose a key that says what the entry is about", key, rule)
	}
	return nil
}
