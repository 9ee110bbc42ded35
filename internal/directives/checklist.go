package directives

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A checklist is submitted as the engine's directives say: JSON on stdin, each key the
// absolute path of a CHECKLIST.md, each value the file's whole markdown
// with nothing changed but its boxes ticked ("[ ]" made "[x]"). The
// submission is compared with the file line by line.

// LineProblem is a line of a submission that is not the file's line with
// at most its box ticked.
type LineProblem struct {
	Line     int    `json:"line"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Why      string `json:"why"`
}

// Comparison is what a submission makes of one checklist.
type Comparison struct {
	Boxes    int           `json:"boxes"`    // boxes in the file
	Ticked   int           `json:"ticked"`   // boxes ticked in the submission
	Unticked []int         `json:"unticked"` // lines whose box is still "[ ]"
	Problems []LineProblem `json:"problems"` // lines changed otherwise
}

// OK reports whether the submission is the file with every box ticked.
func (c Comparison) OK() bool { return len(c.Problems) == 0 && len(c.Unticked) == 0 }

// maxProblems bounds the lines reported for one file.
const maxProblems = 20

// Compare checks a submission against the checklist file's content. Line
// endings are read alike (\r\n as \n) and one final newline more or less
// is not a difference; anything else is. When the submission has more or
// fewer lines than the file, the first difference is reported, since every
// line after an added or dropped one would differ too.
func Compare(file, submitted string) Comparison {
	want, got := lines(file), lines(submitted)
	c := Comparison{Unticked: []int{}, Problems: []LineProblem{}}
	for _, l := range want {
		if _, ok := box(l); ok {
			c.Boxes++
		}
	}
	n := max(len(want), len(got))
	for i := 0; i < n; i++ {
		var p *LineProblem
		switch {
		case i >= len(got):
			p = &LineProblem{Line: i + 1, Expected: want[i], Got: "(nothing: the submission ends here)", Why: "the submission stops before the file does: send the whole file"}
		case i >= len(want):
			p = &LineProblem{Line: i + 1, Expected: "(nothing: the file ends before this line)", Got: got[i], Why: "a line the file does not have"}
		default:
			p = c.line(i+1, want[i], got[i])
		}
		if p == nil {
			continue
		}
		if len(want) != len(got) {
			p.Why += fmt.Sprintf(" (the submission has %d lines, the file %d)", len(got), len(want))
			c.Problems = append(c.Problems, *p)
			break
		}
		c.Problems = append(c.Problems, *p)
		if len(c.Problems) == maxProblems {
			break
		}
	}
	return c
}

// line compares one line; nil when it is the file's, ticked or not.
func (c *Comparison) line(n int, want, got string) *LineProblem {
	pos, isBox := box(want)
	if want == got {
		switch {
		case !isBox:
		case want[pos] == ' ':
			c.Unticked = append(c.Unticked, n)
		default:
			c.Ticked++
		}
		return nil
	}
	if isBox && want[pos] == ' ' && len(got) == len(want) && got[:pos] == want[:pos] && got[pos+1:] == want[pos+1:] && (got[pos] == 'x' || got[pos] == 'X') {
		c.Ticked++
		return nil
	}
	why := "this line must stay exactly as the file has it"
	if isBox {
		why = "only its box may change, from [ ] to [x]"
	}
	return &LineProblem{Line: n, Expected: want, Got: got, Why: why}
}

func lines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// box finds a task-list box at the start of a markdown list item ("- [ ]",
// "* [x]", "1. [ ]", indented or not) and returns the index of the
// character inside it.
func box(line string) (int, bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	switch {
	case i < len(line) && strings.IndexByte("-*+", line[i]) >= 0:
		i++
	default:
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j == i || j >= len(line) || (line[j] != '.' && line[j] != ')') {
			return 0, false
		}
		i = j + 1
	}
	if i >= len(line) || line[i] != ' ' {
		return 0, false
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i+3 > len(line) || line[i] != '[' || line[i+2] != ']' || strings.IndexByte(" xX", line[i+1]) < 0 {
		return 0, false
	}
	if i+3 < len(line) && line[i+3] != ' ' && line[i+3] != '\t' {
		return 0, false
	}
	return i + 1, true
}

// OpenBoxes counts the boxes of a checklist still to tick.
func OpenBoxes(content string) int {
	n := 0
	for _, l := range lines(content) {
		if pos, ok := box(l); ok && l[pos] == ' ' {
			n++
		}
	}
	return n
}

// Sum is what a checked checklist is remembered by: the sha256 of the
// file's content, so that a checklist edited since it was checked is
// asked for again.
func Sum(content []byte) string {
	s := sha256.Sum256(content)
	return hex.EncodeToString(s[:])
}

// Submission is one checklist of a submission.
type Submission struct {
	Key     string // the key as sent
	Abs     string // the file it names
	Content string
}

// ParseSubmission reads the JSON of a submission, naming the engine's
// common mistakes: markdown instead of JSON, a path under ~, a key that is
// not a CHECKLIST.md. Relative keys are read from root. Keys come back in
// the order sent.
func ParseSubmission(data []byte, root string) ([]Submission, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("nothing on stdin: send %s", submissionShape)
	}
	if trimmed[0] != '{' {
		first, _, _ := strings.Cut(string(trimmed), "\n")
		return nil, fmt.Errorf("stdin is not JSON (it starts with %q): send %s, not the markdown alone", cut(first, 60), submissionShape)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("stdin is not JSON: %v; send %s", err, submissionShape)
	}
	var out []Submission
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("stdin is not valid JSON: %v; send %s", err, submissionShape)
		}
		key, _ := tok.(string)
		var content string
		if err := dec.Decode(&content); err != nil {
			return nil, fmt.Errorf("the value of %q must be the checklist's markdown as one JSON string: %v", key, err)
		}
		abs, err := checklistPath(key, root)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(s Submission) bool { return s.Abs == abs }) {
			return nil, fmt.Errorf("%q is sent twice", key)
		}
		out = append(out, Submission{Key: key, Abs: abs, Content: content})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("stdin is not valid JSON: %v; send %s", err, submissionShape)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the JSON object is empty: send %s", submissionShape)
	}
	return out, nil
}

const submissionShape = `{"<absolute path of CHECKLIST.md>": "<its whole markdown, with [ ] made [x]>"}`

func checklistPath(key, root string) (string, error) {
	switch {
	case strings.HasPrefix(key, "~"):
		return "", fmt.Errorf("%q: give the absolute path, not one under ~ (the Stop hook's message names it in full)", key)
	case filepath.Base(key) != ChecklistFile:
		return "", fmt.Errorf("%q is not a %s: the keys are the paths of the checklists to submit", key, ChecklistFile)
	}
	abs := key
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	abs = filepath.Clean(abs)
	if fi, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("%q: %v", key, err)
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%q is not a file", key)
	}
	return abs, nil
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Pending is a checklist the Stop gate waits for.
type Pending struct {
	Checklist
	Open int // boxes to tick
}

// Pending lists the session's checklists the Stop gate waits for: each
// discovered CHECKLIST.md in force where the session changed a file (it
// was found walking up from an edited file) that has a box to tick and was
// not submitted ticked since its content last changed. A checklist gone
// from the disk waits for nothing.
func (st *State) Pending() []Pending {
	var out []Pending
	for _, c := range st.Checklists {
		if !st.Armed[c.Real] {
			continue
		}
		data, err := os.ReadFile(c.Abs)
		if err != nil {
			continue
		}
		open := OpenBoxes(string(data))
		if open == 0 || st.Checked[c.Real] == Sum(data) {
			continue
		}
		out = append(out, Pending{Checklist: c, Open: open})
	}
	return out
}
