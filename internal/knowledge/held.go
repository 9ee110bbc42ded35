package knowledge

import (
	"strings"

	"github.com/devlearn/devlearn/internal/inject"
)

// EntryText is all an entry says, as it is checked for orders and as a
// person's acceptance of it is hashed.
func EntryText(e *Entry) string {
	return e.Summary + "\n" + e.Process.Text() + "\n" + strings.TrimRight(e.Body, "\n")
}

// SectionText is what an ADR or pitfall section says, as it is checked
// and hashed: its Accepted line left out, since adding it must not change
// the hash it records.
func SectionText(title, body string) string {
	var b strings.Builder
	b.WriteString(title)
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "- **Accepted**:") {
			continue
		}
		b.WriteString("\n")
		b.WriteString(l)
	}
	return b.String()
}

// heldReason is why a lesson is held for a person's review: its text
// reads as an order to fetch and run code or to ignore other
// instructions, and no person accepted this text (accepted is the hash
// they recorded). "" when it may be served.
func heldReason(text, accepted string) string {
	why := inject.Held(text)
	if why == "" || (accepted != "" && accepted == inject.Hash(text)) {
		return ""
	}
	return why
}

// HeldNext is what a person does about a held lesson.
func HeldNext(it *Item) string {
	if it.Type == TypeEntry {
		return "read it; 'devlearn learn --review --keep entry:" + it.ID + "' accepts it, '--deprecate entry:" + it.ID + "' archives it"
	}
	return "read it; a person who accepts it adds the line '- **Accepted**: " + inject.Hash(SectionText(it.Title, it.Text)) + "' to its section in " + it.Path
}

// ServedIn reports whether an item may be served in the clone named
// clone: not held for review, and not an agent's draft written in another
// clone (a draft stays with the clone that wrote it until a person
// promotes it; a learned draft is kept in the clone's own folder).
func (it *Item) ServedIn(clone string) bool {
	if it.Detail == nil {
		return true
	}
	if it.Held != "" {
		return false
	}
	return !it.Draft() || it.Learned() || (it.Clone != "" && it.Clone == clone)
}

// Servable is the set as it may be served in the clone named clone
// (ServedIn), and the lessons held for review apart, for the log to say
// why. The set is not changed; its items are shared.
//
// clone is asked for only when the set holds a draft: most clones never
// need their id made.
func (s *Set) Servable(clone func() string) (out *Set, held []*Item) {
	o := *s
	o.Items = make([]*Item, 0, len(s.Items))
	id, asked := "", false
	for _, it := range s.Items {
		if !asked && it.Detail != nil && it.Draft() && !it.Learned() {
			id, asked = clone(), true
		}
		switch {
		case it.ServedIn(id):
			o.Items = append(o.Items, it)
		case it.Held != "":
			held = append(held, it)
		}
	}
	return &o, held
}

// acceptedMark is the line a person adds to a directive file to accept
// it when it is held: devlearn:accepted and the hash of the file without
// that line.
const acceptedMark = "<!-- devlearn:accepted "

// FileHeld is why a directive file's text is held for a person's review
// ("" when it is served): it reads as an order to fetch and run code or
// to ignore other instructions, and carries no acceptedMark line with the
// hash of what it says now. accept is the line that would accept it.
func FileHeld(text string) (why, accept string) {
	var rest []string
	mark := ""
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, acceptedMark) {
			mark = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(t, acceptedMark)), "-->")
			continue
		}
		rest = append(rest, l)
	}
	body := strings.Join(rest, "\n")
	why = inject.Held(body)
	hash := inject.Hash(body)
	if why == "" || strings.TrimSpace(mark) == hash {
		return "", ""
	}
	return why, acceptedMark + hash + " -->"
}
