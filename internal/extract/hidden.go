package extract

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/transcript"
)

// hiddenSkipped are the searches for a file by its name that found
// nothing because the tool leaves hidden folders out (`rg --files`, `fd`),
// when the agent then used a file of that name inside one: the search
// said the file was not there, and the next session's search says it
// again (`rg --files -g '*.butler.yaml'` exits 1 in three sessions, the
// specs being under `.ai-clean/specs/`). A search that found nothing and
// was left at that is a look around, no lesson; found where it was not
// searched for, it is one. ch is as read, its paths not yet stored.
func hiddenSkipped(ch *transcript.Channels, root string) []Observation {
	var spoke []int
	for _, s := range ch.UserSignals {
		spoke = append(spoke, s.Line)
	}
	var out []Observation
	seen := map[string]bool{}
	for i := range ch.Tools {
		f := &ch.Tools[i]
		if !f.Failed() || f.Command == "" {
			continue
		}
		s, ok := nameSearch(f.Command)
		if !ok || !foundNothing(f.Error, s.tool) {
			continue
		}
		for j := i + 1; j < len(ch.Tools) && j <= i+maxFixWindow; j++ {
			t := &ch.Tools[j]
			if t.Sidechain != f.Sidechain || t.AgentID != f.AgentID {
				continue
			}
			if !t.Sidechain && personBetween(spoke, f.Line, t.Line) {
				break
			}
			if !t.HasResult || t.Failed() {
				continue
			}
			file, dir, ok := s.foundHidden(root, f.Cwd, t)
			if !ok {
				continue
			}
			if seen[s.tool+"\x00"+dir] {
				break // one lesson a folder: the session's other misses there say it again
			}
			seen[s.tool+"\x00"+dir] = true
			out = append(out, s.observation(*f, file, dir))
			break
		}
	}
	return out
}

// search is a search for files by name that leaves hidden folders out.
type search struct {
	tool   string            // as the lesson names it: "rg --files", "fd"
	hidden string            // the flag that would have searched them
	glob   string            // the glob searched for, as written; "" for a pattern
	match  func(string) bool // reports a file name the search was for
	roots  []string          // the folders searched, as written; none for the working folder
}

// nameSearch reads the search for files by name in a command: `rg
// --files` with a glob (-g) or piped into a filter, or `fd`, without the
// flags that take hidden folders in.
func nameSearch(cmd string) (search, bool) {
	words := shellWords(commandLine(cmd))
	for i := 0; i < len(words); i++ {
		link := words[i:]
		for k, w := range link {
			if chainOp(w) {
				link = link[:k]
				break
			}
		}
		next := i + len(link)
		rest := skipPrefixes(link)
		if len(rest) > 0 {
			var s search
			var ok bool
			switch progName(rest[0]) {
			case "rg":
				s, ok = rgFiles(rest[1:])
				if ok && s.match == nil && next < len(words) && words[next] == "|" {
					s.match = filterPattern(words[next+1:])
				}
			case "fd", "fdfind":
				s, ok = fdSearch(rest[1:])
			}
			if ok && s.match != nil {
				return s, true
			}
		}
		i = next
	}
	return search{}, false
}

// chainOp reports a word that ends a command of a chain.
func chainOp(w string) bool { return w == "&&" || w == "||" || w == ";" || w == "|" }

// rgFiles reads `rg --files`'s arguments: its globs and folders; false
// when it does not list files or takes hidden folders in.
func rgFiles(args []string) (search, bool) {
	s := search{tool: "rg --files", hidden: "--hidden"}
	files := false
	var globs []string
	for k := 0; k < len(args); k++ {
		a := unquote(args[k])
		switch {
		case a == "--files":
			files = true
		case a == "--hidden" || a == "-." || strings.HasPrefix(a, "-uu"):
			return search{}, false
		case a == "-g" || a == "--glob" || a == "--iglob":
			if k+1 < len(args) {
				k++
				globs = append(globs, unquote(args[k]))
			}
		case strings.HasPrefix(a, "--glob=") || strings.HasPrefix(a, "--iglob="):
			globs = append(globs, a[strings.IndexByte(a, '=')+1:])
		case strings.HasPrefix(a, "-g") && len(a) > 2:
			globs = append(globs, unquote(a[2:]))
		case strings.HasPrefix(a, "-"):
		default:
			s.roots = append(s.roots, a)
		}
	}
	if !files {
		return search{}, false
	}
	for _, g := range globs {
		if g == "" || strings.HasPrefix(g, "!") {
			continue // a glob that leaves files out
		}
		base := g[strings.LastIndexByte(g, '/')+1:]
		if base == "" || base == "**" || base == "*" {
			continue
		}
		s.glob = g
		s.match = func(name string) bool {
			ok, err := path.Match(base, name)
			return ok && err == nil
		}
		break
	}
	return s, true
}

// fdSearch reads `fd`'s arguments: its pattern (a regular expression, or
// a glob with -g) and folders; false when it takes hidden folders in.
func fdSearch(args []string) (search, bool) {
	s := search{tool: "fd", hidden: "--hidden"}
	glob := false
	var pattern string
	for k := 0; k < len(args); k++ {
		a := unquote(args[k])
		switch {
		case a == "-H" || a == "--hidden" || a == "-u" || a == "--unrestricted" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "Hu"):
			return search{}, false
		case a == "-g" || a == "--glob":
			glob = true
		case a == "-e" || a == "--extension" || a == "-t" || a == "--type" || a == "-d" || a == "--max-depth" || a == "-E" || a == "--exclude":
			k++ // a flag's value
		case strings.HasPrefix(a, "-"):
		case pattern == "":
			pattern = a
		default:
			s.roots = append(s.roots, a)
		}
	}
	if pattern == "" {
		return search{}, false
	}
	if glob {
		s.glob = pattern
		s.match = func(name string) bool {
			ok, err := path.Match(pattern, name)
			return ok && err == nil
		}
		return s, true
	}
	re, err := regexp.Compile("(?i)" + pattern) // fd is smart-case: lower case matches either
	if err != nil {
		return search{}, false
	}
	s.match = re.MatchString
	return s, true
}

// filterPattern is what the filter a file list is piped into matches
// (`| rg 'copilot-instructions\.md'`, `| grep -i agents`), tried on a
// path as the list prints it.
func filterPattern(words []string) func(string) bool {
	if len(words) == 0 {
		return nil
	}
	switch progName(words[0]) {
	case "rg", "grep", "egrep":
	default:
		return nil
	}
	fold := false
	var pattern string
	for k := 1; k < len(words) && !chainOp(words[k]); k++ {
		a := unquote(words[k])
		switch {
		case a == "-v" || a == "--invert-match":
			return nil
		case a == "-e" && k+1 < len(words):
			k++
			pattern = unquote(words[k])
		case strings.HasPrefix(a, "-"):
			if strings.Contains(a, "i") && !strings.HasPrefix(a, "--") || a == "--ignore-case" {
				fold = true
			}
		case pattern == "":
			pattern = a
		}
	}
	if pattern == "" {
		return nil
	}
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	return re.MatchString
}

// foundNothing reports a search's failure that only says it found
// nothing: exit status 1 (the tools' "no match"), and no line of the
// tool's own about an error (`rg: x: No such file or directory` exits 2).
func foundNothing(errText, tool string) bool {
	if code, ok := exitCode(errText); ok && code != 1 {
		return false
	}
	prog := strings.Fields(tool)[0]
	for _, l := range strings.Split(errText, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, prog+":") || strings.HasPrefix(l, "["+prog+" error]") || strings.HasPrefix(l, "error:") {
			return false
		}
	}
	return true
}

// exitCodeLine is how the agents' runners report a command's exit status
// ("Exit code 1", "Exit code: 1", "Process exited with code 1").
var exitCodeLine = regexp.MustCompile(`(?i)exit(?:ed with)? code:? (\d+)`)

// exitCode is the exit status a runner reported, if it did.
func exitCode(errText string) (int, bool) {
	m := exitCodeLine.FindStringSubmatch(errText)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// foundHidden reports a file of the name searched for that call t used,
// inside a hidden folder under the folders searched: the file, and the
// folder it is in, both as stored (relative to the project).
func (s search) foundHidden(root, cwd string, t *transcript.ToolCall) (file, dir string, ok bool) {
	candidates := t.Paths
	if t.Command != "" {
		for _, w := range shellWords(commandLine(t.Command)) {
			if w = unquote(w); strings.ContainsAny(w, `/\`) && !strings.HasPrefix(w, "-") {
				candidates = append(candidates, w)
			}
		}
	}
	for _, p := range candidates {
		rel, ok := projectPath(root, t.Cwd, p)
		if !ok || unheld(rel) {
			continue
		}
		rel = repopath.Slash(rel)
		parts := strings.Split(rel, "/")
		hidden := -1
		for k, part := range parts[:len(parts)-1] {
			if len(part) > 1 && part[0] == '.' && part != ".." && part != ".git" {
				hidden = k
				break
			}
		}
		name := parts[len(parts)-1]
		if hidden < 0 || !s.match(name) && !s.match(rel) || !s.under(root, cwd, rel) {
			continue
		}
		return rel, strings.Join(parts[:len(parts)-1], "/") + "/", true
	}
	return "", "", false
}

// under reports a file inside the folders the search was given (any, when
// it was given none).
func (s search) under(root, cwd, rel string) bool {
	if len(s.roots) == 0 {
		return true
	}
	for _, r := range s.roots {
		if r == "." || r == "./" {
			return true
		}
		if rr, ok := projectPath(root, cwd, r); ok {
			rr = strings.TrimSuffix(repopath.Slash(rr), "/")
			if rel == rr || strings.HasPrefix(rel, rr+"/") {
				return true
			}
		}
	}
	return false
}

// observation is the lesson: the search leaves the folder out, and how
// to search it.
func (s search) observation(f transcript.ToolCall, file, dir string) Observation {
	// A glob names what is looked for the next time too; a pattern is
	// read as the file it found.
	name := s.glob
	if name == "" {
		name = path.Base(file)
	}
	fails := " finds nothing (exit 1) for `" + clip(name, 60) + "`"
	pattern := "`" + s.tool + "` leaves out hidden folders: `" + clip(name, 60) + "` is in `" + clip(dir, 80) +
		"`, which it did not search; add `" + s.hidden + "` or use `find`."
	details := commandDetails(s.tool, f.Command, fails, "the search reports the file missing though it is there",
		"search with "+s.tool+" "+s.hidden+" or find; the file is "+file)
	return failurePitfall(f, pattern, details,
		quote("tool", "`"+oneLine(f.Command)+"` → found nothing"),
		quote("tool", "later used `"+file+"`"))
}
