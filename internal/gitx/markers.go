package gitx

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/epiclabs-io/diff3"
)

// DefaultMarkerSize is git's conflict-marker-size: the length of the
// <<<<<<<, |||||||, ======= and >>>>>>> runs.
const DefaultMarkerSize = 7

// Labels of the three sides in the conflict markers devlearn writes.
const (
	LabelOurs   = "ours"
	LabelBase   = "base"
	LabelTheirs = "theirs"
)

// MergeTextMarked is MergeText that keeps going at a conflict: both sides'
// lines are written between git's markers, in the diff3 style (the base's
// lines too), so that 'devlearn resolve' can redo the merge exactly from the
// file alone, and a person sees what each side started from. size is the
// marker length (DefaultMarkerSize when 0 or less).
func MergeTextMarked(base, ours, theirs []byte, size int) (merged []byte, clean bool) {
	if size <= 0 {
		size = DefaultMarkerSize
	}
	blocks := diff3.Diff3MergeWithOptions(splitLines(ours), splitLines(base), splitLines(theirs), diff3.MergeOptions{Algorithm: diff3.DiffAlgorithmMyers, ExcludeFalseConflicts: true})
	var out bytes.Buffer
	out.Grow(len(ours) + len(theirs))
	clean = true
	marker := func(c byte, label string) {
		// A marker starts a line even after a last line without newline.
		if n := out.Len(); n > 0 && out.Bytes()[n-1] != '\n' {
			out.WriteByte('\n')
		}
		out.WriteString(strings.Repeat(string(c), size))
		if label != "" {
			out.WriteByte(' ')
			out.WriteString(label)
		}
		out.WriteByte('\n')
	}
	for _, b := range blocks {
		if b.Conflict == nil {
			for _, l := range b.Ok {
				out.WriteString(l)
			}
			continue
		}
		clean = false
		marker('<', LabelOurs)
		for _, l := range b.Conflict.A {
			out.WriteString(l)
		}
		marker('|', LabelBase)
		for _, l := range b.Conflict.O {
			out.WriteString(l)
		}
		marker('=', "")
		for _, l := range b.Conflict.B {
			out.WriteString(l)
		}
		marker('>', LabelTheirs)
	}
	return out.Bytes(), clean
}

// Sides are the three versions a conflict-marked file was made from, read
// back from its markers.
type Sides struct {
	Base, Ours, Theirs []byte
	// Conflicts counts the marked regions; 0 means the file has none.
	Conflicts int
	// BaseKnown is true when every region carried the base's lines (git's
	// diff3 and zdiff3 styles, and devlearn's own markers). Without them
	// (git's default style), Base holds only the lines outside the regions:
	// what each side has inside a region counts as added by that side.
	BaseKnown bool
}

// SplitMarkers reads a file left with git's conflict markers back into its
// sides. It accepts any marker length from 7 on (set by the first marker of
// each region) and any labels, and refuses markers that do not nest as git
// writes them, naming the line.
func SplitMarkers(data []byte) (Sides, error) {
	const (
		outside = iota
		inOurs
		inBase
		inTheirs
	)
	s := Sides{BaseKnown: true}
	var base, ours, theirs bytes.Buffer
	state, size, start := outside, 0, 0
	regionHasBase := false
	n := 0
	for rest := data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		n++
		switch state {
		case outside:
			if k := markerRun(line, '<', 0); k > 0 {
				state, size, start, regionHasBase = inOurs, k, n, false
				s.Conflicts++
				continue
			}
			base.Write(line)
			ours.Write(line)
			theirs.Write(line)
		case inOurs, inBase:
			if markerRun(line, '<', size) > 0 {
				return Sides{}, fmt.Errorf("line %d: a conflict starts inside the one opened on line %d", n, start)
			}
			if state == inOurs && markerRun(line, '|', size) > 0 {
				state, regionHasBase = inBase, true
				continue
			}
			if isSeparator(line, size) {
				state = inTheirs
				continue
			}
			if markerRun(line, '>', size) > 0 {
				return Sides{}, fmt.Errorf("line %d: the conflict opened on line %d ends without its ======= line", n, start)
			}
			if state == inOurs {
				ours.Write(line)
			} else {
				base.Write(line)
			}
		case inTheirs:
			if markerRun(line, '>', size) > 0 {
				state = outside
				if !regionHasBase {
					s.BaseKnown = false
				}
				continue
			}
			if markerRun(line, '<', size) > 0 || isSeparator(line, size) || markerRun(line, '|', size) > 0 {
				return Sides{}, fmt.Errorf("line %d: unexpected marker inside the conflict opened on line %d", n, start)
			}
			theirs.Write(line)
		}
	}
	if state != outside {
		return Sides{}, fmt.Errorf("the conflict opened on line %d is never closed", start)
	}
	if s.Conflicts == 0 {
		s.BaseKnown = false
		return s, nil
	}
	s.Base, s.Ours, s.Theirs = base.Bytes(), ours.Bytes(), theirs.Bytes()
	return s, nil
}

// HasMarkers reports whether data has a line that opens a conflict.
func HasMarkers(data []byte) bool {
	for rest := data; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if markerRun(line, '<', 0) > 0 {
			return true
		}
	}
	return false
}

// IsMarkerLine reports whether line is one of git's conflict marker lines
// (<<<<<<<, |||||||, =======, >>>>>>>, of any marker size), for callers
// that meet a file line by line, such as a log reader's skipped lines.
func IsMarkerLine(line []byte) bool {
	for _, c := range []byte("<|=>") {
		if markerRun(line, c, 0) > 0 {
			return true
		}
	}
	return false
}

// markerRun returns the length of the run of c that opens line when it is
// a marker: at least 7 long (exactly size when size > 0), then a space or
// the end of the line.
func markerRun(line []byte, c byte, size int) int {
	k := 0
	for k < len(line) && line[k] == c {
		k++
	}
	if k < DefaultMarkerSize || size > 0 && k != size {
		return 0
	}
	rest := line[k:]
	if len(rest) == 0 || rest[0] == ' ' || rest[0] == '\n' || rest[0] == '\r' {
		return k
	}
	return 0
}

// isSeparator reports whether line is the ======= line of a conflict: the
// run alone on its line.
func isSeparator(line []byte, size int) bool {
	t := bytes.TrimRight(line, "\r\n")
	return len(t) == size && bytes.Count(t, []byte{'='}) == size
}
