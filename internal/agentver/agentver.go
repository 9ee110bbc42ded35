// Package agentver knows which versions of each agent take the context
// devlearn gives at which event: one table (Gaps) of what a version
// before a given release loses, with the fix and the upstream source.
// It reads the installed version (Reader: the agent's --version through
// an injected runner, else the version its newest session file records)
// and keeps the one read last per clone (Cache), for the hooks: a hook
// never runs an agent's binary, it reads that file.
//
// It is on the hook path: standard library and safefile only.
package agentver

import (
	"strconv"
	"strings"
)

// Claude is Claude Code's name here (the other agents' are their
// command-line names: codex, gemini, cursor, copilot).
const Claude = "claude"

// Version is a release as major.minor.patch; the zero Version is
// unknown.
type Version struct {
	n     [3]int
	known bool
}

// Parse finds the first version number in s ("codex-cli 0.123.0",
// "2.1.8 (Claude Code)", "1.0.48", "GitHub Copilot CLI 1.0.79-9."):
// two or three dot-separated numbers. A missing patch is 0. ok is false
// when s holds none.
func Parse(s string) (Version, bool) {
	for i := 0; i < len(s); i++ {
		if !digit(s[i]) || (i > 0 && (digit(s[i-1]) || s[i-1] == '.')) {
			continue
		}
		var v Version
		j, parts := i, 0
		for parts < 3 {
			k := j
			for k < len(s) && digit(s[k]) {
				k++
			}
			if k == j || k-j > 9 {
				break
			}
			v.n[parts], _ = strconv.Atoi(s[j:k])
			parts++
			j = k
			if j+1 < len(s) && s[j] == '.' && digit(s[j+1]) && parts < 3 {
				j++
				continue
			}
			break
		}
		if parts >= 2 {
			v.known = true
			return v, true
		}
	}
	return Version{}, false
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// MustParse is Parse of a version written in the table.
func MustParse(s string) Version {
	v, ok := Parse(s)
	if !ok {
		panic("agentver: not a version: " + s)
	}
	return v
}

// Known reports whether the version was read.
func (v Version) Known() bool { return v.known }

// Less reports whether v is an earlier release than w.
func (v Version) Less(w Version) bool {
	for i := range v.n {
		if v.n[i] != w.n[i] {
			return v.n[i] < w.n[i]
		}
	}
	return false
}

func (v Version) String() string {
	if !v.known {
		return "unknown"
	}
	var b strings.Builder
	for i, n := range v.n {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
