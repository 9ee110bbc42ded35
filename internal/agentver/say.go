package agentver

import "strings"

// Level is how much a report matters to doctor.
type Level int

const (
	// Fine: nothing is lost, or nothing is known to be.
	Fine Level = iota
	// Partial: this version drops part of what devlearn gives.
	Partial
	// Nothing: no hook of this agent runs at all.
	Nothing
)

// Says is the report in words, for init and doctor: the version and where
// it was read, what that version will not receive (or, unknown, what the
// versions that lose something lose), and the fix.
func (r Report) Says() (detail, fix string, level Level) {
	var b strings.Builder
	if r.Found.Version.Known() {
		b.WriteString(r.Found.Version.String() + " (" + r.Found.From + ")")
	} else {
		b.WriteString("version unknown (no version command on the PATH answered and no session file records one)")
	}
	switch {
	case len(r.Lost) > 0:
		var lost []string
		var highest Gap
		for _, g := range r.Lost {
			lost = append(lost, g.Lost)
			if g.Event == "" && g.OptIn != "" {
				level = Nothing
			} else if level < Partial {
				level = Partial
			}
			if highest.Since == "" || MustParse(highest.Since).Less(MustParse(g.Since)) {
				highest = g
			}
		}
		b.WriteString(": does not receive " + strings.Join(lost, "; "))
		if level == Partial {
			b.WriteString("; devlearn records none of it as served, and serves it at the next event this version takes context at")
		}
		fixes := []string{highest.Fix}
		for _, g := range r.Lost {
			if g.OptIn != "" && g.Fix != highest.Fix {
				fixes = append([]string{g.Fix}, fixes...)
			}
		}
		fix = strings.Join(fixes, "; ")
	case r.Found.Version.Known():
		b.WriteString(": receives everything devlearn gives it")
	}
	var maybe []string
	for _, g := range r.Maybe {
		if g.Since == "" {
			maybe = append(maybe, g.Lost)
		} else {
			maybe = append(maybe, "before "+g.Since+": "+g.Lost)
		}
	}
	if len(maybe) > 0 {
		b.WriteString("; " + strings.Join(maybe, "; "))
		if fix == "" {
			for _, g := range r.Maybe {
				if g.Since == "" {
					fix = g.Fix
				}
			}
		}
	}
	return b.String(), fix, level
}
