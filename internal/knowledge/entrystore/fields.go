package entrystore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// field is one top-level front matter key and its new one-line value.
type field struct{ key, value string }

// yaml is the value as the line holds it: a time quoted, as yaml.v3 writes
// it, so the file reads the same whichever way it was last written.
func (f field) yaml() string {
	if f.key == "created_at" || f.key == "updated_at" {
		return strconv.Quote(f.value)
	}
	return f.value
}

// withFields returns an entry file with some top-level one-line values
// set and every other byte kept. A key's line has its value replaced (a
// comment after it stays); a key without a line gets one before the
// closing "---". The result must parse, and say what was set.
func withFields(path string, data []byte, fields ...field) ([]byte, error) {
	for _, f := range fields {
		if f.key == "status" && !slices.Contains(knowledge.Statuses, f.value) {
			return nil, fmt.Errorf("status %q is not one of %s", f.value, strings.Join(knowledge.Statuses, ", "))
		}
		if f.key == "priority" && !slices.Contains(knowledge.Priorities, f.value) {
			return nil, fmt.Errorf("priority %q is not one of %s", f.value, strings.Join(knowledge.Priorities, ", "))
		}
		if strings.ContainsAny(f.value, "\n\r#:\"'") && f.key != "created_at" && f.key != "updated_at" {
			return nil, fmt.Errorf("%s: %q cannot be written on one line as it is", f.key, f.value)
		}
	}
	return rewriteFields(path, data, fields)
}

// rewriteFields is withFields once the values are checked.
func rewriteFields(path string, data []byte, fields []field) ([]byte, error) {
	if _, err := knowledge.ParseEntry(path, data); err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	open, end := -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if open < 0 {
			if strings.TrimPrefix(t, "\ufeff") == "" {
				continue
			}
			open = i
			continue
		}
		if t == "---" {
			end = i
			break
		}
	}
	if open < 0 || end < 0 {
		return nil, &knowledge.ParseError{Path: path, Line: 1, Msg: "no front matter"}
	}
	var missing []string
	for _, f := range fields {
		done := false
		for i := open + 1; i < end && !done; i++ {
			key, rest, ok := strings.Cut(lines[i], ":")
			if !ok || key != f.key {
				continue // only the top-level key, unindented
			}
			line := f.key + ": " + f.yaml()
			if j := strings.Index(rest, " #"); j >= 0 {
				// Keep the comment, in its column when the value allows.
				col := len(f.key+":") + j + 1
				line += strings.Repeat(" ", max(1, col-len(line))) + strings.TrimRight(rest[j+1:], "\n")
			}
			lines[i] = line + "\n"
			done = true
		}
		if !done {
			missing = append(missing, f.key+": "+f.yaml()+"\n")
		}
	}
	if len(missing) > 0 {
		lines = append(lines[:end], append(missing, lines[end:]...)...)
	}
	out := []byte(strings.Join(lines, ""))
	e, err := knowledge.ParseEntry(path, out)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		got := map[string]string{"status": e.Status, "priority": e.Priority, "updated_at": e.UpdatedAt, "created_at": e.CreatedAt, "summary": e.Summary, "category": e.Category, "accepted": e.Accepted}[f.key]
		if got != f.value {
			return nil, fmt.Errorf("%s: the %s line could not be changed (is it written in an unusual form?)", path, f.key)
		}
	}
	return out, nil
}
