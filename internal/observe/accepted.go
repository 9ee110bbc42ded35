package observe

import "strings"

// FlagAccepted records that a person read a lesson held for review (its
// text reads as an order to fetch and run code or to ignore other
// instructions) and let it be served. Its reason ends with the hash of
// the text accepted (AcceptedReason), so that another text is held again.
const FlagAccepted = "accepted"

// AcceptedReason is the reason of a FlagAccepted flag for a text's hash.
func AcceptedReason(hash string) string { return "accepted by a person: " + hash }

// Accepted reports whether a person accepted id's text with this hash.
func (l *Log) Accepted(id, hash string) bool {
	for _, m := range l.Marks(id) {
		if m.Kind == "flag:"+FlagAccepted && m.On && strings.HasSuffix(m.Reason, ": "+hash) {
			return true
		}
	}
	return false
}
