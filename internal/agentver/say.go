package agentver

import "strings"

// Level is how much a report matters to doctor.
type Level int

const (
	// Fine: nothing is lost, or nothing is known to be.
	Fine Level = iota
	// Partial: this version drops part of what devlearn gives, or may
	// run no hook unless switched on (a setting devlearn does not read).
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
	var maybe, unconfirmed []string
	for _, g := range r.Maybe {
		if g.Since == "" {
			unconfirmed = append(unconfirmed, g.Lost)
			fix = g.Fix
		} else {
			maybe = append(maybe, "before "+g.Since+": "+g.Lost)
		}
	}
	switch {
	case len(r.Lost) > 0:
		var lost, or []string
		var highest Gap
		atEvent := false
		for _, g := range r.Lost {
			lost = append(lost, g.Lost)
			switch {
			case g.Event == "" && g.OptIn != "":
				level = Nothing
			case level < Partial:
				level = Partial
			}
			atEvent = atEvent || g.Event != "" && !g.Once
			if highest.Since == "" || MustParse(highest.Since).Less(MustParse(g.Since)) {
				highest = g
			}
			if g.Or != "" {
				or = append(or, g.Or)
			}
		}
		if level == Nothing {
			// No hook runs: what a hook would drop is beside the point.
			lost = lost[:0]
			for _, g := range r.Lost {
				if g.Event == "" {
					lost = append(lost, g.Lost)
				}
			}
		}
		b.WriteString(": does not receive " + strings.Join(lost, "; "))
		if atEvent && level != Nothing {
			b.WriteString("; devlearn records none of it as served, and serves it at the next event this version takes context at")
		}
		fix = strings.Join(append([]string{highest.Fix}, or...), "; or, short of that, ")
	case len(unconfirmed) > 0:
		b.WriteString(": may not receive " + strings.Join(unconfirmed, "; "))
	case r.Found.Version.Known():
		b.WriteString(": receives everything devlearn gives it")
	}
	if len(maybe) > 0 {
		b.WriteString("; " + strings.Join(maybe, "; "))
	}
	return b.String(), fix, level
}

// Effect is the report in words for an agent's installed version, as
// init and doctor both say it: optFile is the Codex config whose
// [features] switched its hooks on, "" when none did.
func Effect(agent string, f Found, optFile string) (detail, fix string, level Level) {
	optIn := optFile != ""
	detail, fix, level = Assess(agent, f, func(Gap) bool { return optIn }).Says()
	for _, g := range Of(agent) {
		if optIn && g.OptIn != "" && g.Applies(f.Version) {
			detail += "; hooks switched on by [features] " + g.OptIn + " = true in " + optFile
		}
	}
	return detail, fix, level
}
