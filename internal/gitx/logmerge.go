package gitx

import "bytes"

// MergeLog merges a JSONL event log (the observation log, the audit log, a
// task log) with MergeLines, after checking that every side is one: each
// line that is not blank must start a JSON object. A log a person rewrote
// (pretty-printed, prose, conflict markers) would be scrambled by a set
// merge of its lines, since repeated lines such as "}" would collapse; it is
// reported instead, and merged as plain text. A line that is only torn or
// corrupt is still a line and is kept: the log's reader reports it.
func MergeLog(base, ours, theirs []byte) ([]byte, error) {
	for _, s := range []struct {
		name string
		data []byte
	}{{"the base", base}, {"ours", ours}, {"theirs", theirs}} {
		if n := firstNonJSONL(s.data); n > 0 {
			return nil, formatErr(s.name, "line %d is not a JSON object", n)
		}
	}
	return MergeLines(base, ours, theirs), nil
}

// firstNonJSONL returns the number of the first line that is neither blank
// nor the start of a JSON object, or 0.
func firstNonJSONL(data []byte) int {
	n := 0
	for rest := data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		n++
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '{' {
			return n
		}
	}
	return 0
}
