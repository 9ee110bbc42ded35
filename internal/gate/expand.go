package gate

import "strings"

// The placeholders a gate's command and cwd may hold (ClawFlow's, docs/gates.md), and
// the environment variables that carry their values into the command.
const (
	ProjectPlaceholder  = "{{project_path}}"
	WorktreePlaceholder = "{{worktree}}"
	ProjectEnv          = "DEVLEARN_PROJECT_PATH"
	WorktreeEnv         = "DEVLEARN_WORKTREE"
)

var placeholders = []struct{ text, env string }{
	{ProjectPlaceholder, ProjectEnv},
	{WorktreePlaceholder, WorktreeEnv},
}

// ExpandCommand replaces the placeholders of a command (a person's shell
// text) by references to the environment variables that hold the paths,
// quoted for where each placeholder stands: "${VAR}" outside quotes, ${VAR}
// inside double quotes, and '"${VAR}"' inside single quotes (the single
// quotes are closed around it). The paths themselves never become shell
// text, so a folder named `$(rm -rf ~)` or `a b'c` is only ever a value:
// there is no way from a path to the shell.
func ExpandCommand(cmd string) string {
	if !strings.Contains(cmd, "{{") {
		return cmd
	}
	var b strings.Builder
	const (
		plain = iota
		single
		double
	)
	state := plain
	for i := 0; i < len(cmd); {
		matched := false
		for _, p := range placeholders {
			if strings.HasPrefix(cmd[i:], p.text) {
				switch state {
				case plain:
					b.WriteString(`"${` + p.env + `}"`)
				case double:
					b.WriteString(`${` + p.env + `}`)
				case single:
					b.WriteString(`'"${` + p.env + `}"'`)
				}
				i += len(p.text)
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		c := cmd[i]
		switch {
		case c == '\\' && state != single && i+1 < len(cmd):
			// An escaped character is taken as it is, quote or not.
			b.WriteString(cmd[i : i+2])
			i += 2
			continue
		case c == '\'' && state == plain:
			state = single
		case c == '\'' && state == single:
			state = plain
		case c == '"' && state == plain:
			state = double
		case c == '"' && state == double:
			state = plain
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// ExpandPath replaces the placeholders of a cwd by the paths: a cwd is a
// folder name, never run by a shell.
func ExpandPath(s, project, worktree string) string {
	s = strings.ReplaceAll(s, ProjectPlaceholder, project)
	return strings.ReplaceAll(s, WorktreePlaceholder, worktree)
}
