package knowledge

import (
	"strings"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/words"
)

// maxNamed bounds the files and the commands read from one request.
const maxNamed = 20

// RequestCall is what a person's request offers to match, before any
// tool is chosen: the files it names (relative to root, from cwd), the
// commands it names ("run `npm install`", "with playwright"), and its
// words for keywords and topics. It reads the request the way a lesson's
// text is read (derive.go), without the cues: a request that names
// something is asking about it.
func RequestCall(root, cwd, prompt string) *Call {
	c := &Call{Prompt: true, Words: words.NewHaystack(prompt), Line: prompt}
	units := splitUnits(prompt, false)
	for i, u := range units {
		switch {
		case u.code:
			if cmd, ok := commandIn(u.text); ok {
				c.addCommand(cmd)
			} else if pathWord(u.text, true) {
				c.addPath(root, cwd, u.text)
			}
		case pathWord(u.text, false):
			c.addPath(root, cwd, u.text)
		case knownVerbs.has(u.lower) && u.text == u.lower:
			cmd := Command{Verb: u.lower}
			if i+1 < len(units) && !u.end && !units[i+1].code && subcommands.has(units[i+1].lower) {
				cmd.Words = []string{alias(cmd.Verb, units[i+1].lower)}
			} else if ambiguousVerbs.has(cmd.Verb) {
				continue
			}
			c.addCommand(cmd)
		}
	}
	return c
}

func (c *Call) addPath(root, cwd, p string) {
	if len(c.Paths) < maxNamed {
		p = strings.TrimRight(p, ".:")
		c.Paths = append(c.Paths, repopath.Rel(root, cwd, p))
		c.written = append(c.written, repopath.Fold(p))
	}
}

func (c *Call) addCommand(cmd Command) {
	if len(c.Commands) < maxNamed {
		c.Commands = append(c.Commands, Segment{Verb: cmd.Verb, Words: cmd.Words})
	}
}
