package extract

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/transcript"
)

// hiddenSkipped are the searches for a file by its name that found
// nothing because `rg --files` leaves hidden folders out, when the agent
// then read a file of that name inside one: the search said the file was
// not there, and the next session's search says it again (`rg --files -g
// '*.butler.yaml'` exits 1 in three sessions, the specs being under
// `.ai-clean/specs/`). A search that found nothing and was left at that
// is a look around, no lesson; found where it was not searched, it is
// one. ch is as read, its paths not yet stored.
func hiddenSkipped(ch *transcript.Channels, root string) []Observation {
	spoke := spokeAt(ch)
	var out []Observation
	seen := map[string]bool{}
	for i := range ch.Tools {
		f := &ch.Tools[i]
		if !f.Failed() || f.Command == "" || changesFolder(f.Command) {
			continue // after a cd, which folder was searched is not known
		}
		s, ok := nameSearch(f.Command)
		if !ok || !foundNothing(f.Error) {
			continue
		}
		for t := range nextOwnCalls(ch.Tools, spoke, i) {
			file, dir, ok := s.foundHidden(root, f.Cwd, t)
			if !ok {
				continue
			}
			if !seen[dir] {
				// One lesson a folder: the session's other misses there
				// say it again.
				seen[dir] = true
				out = append(out, s.observation(*f, file, dir))
			}
			break
		}
	}
	return out
}

// search is a search for files by name that leaves hidden folders out.
type search struct {
	globs  []glob            // the globs searched for; none for a filter alone
	filter func(string) bool // the filter the file list was piped into, tried on a path as listed; nil for none
	roots  []string          // the folders searched, as written; none for the working folder
}

// nameSearch reads `rg --files` in a command, given globs (-g) or piped
// into a filter, without the flags that take hidden folders in.
func nameSearch(cmd string) (search, bool) {
	words := shellWords(commandLine(cmd))
	for i := 0; i < len(words); {
		end := i
		for end < len(words) && !chainOp(words[end]) {
			end++
		}
		if rest := skipPrefixes(words[i:end]); len(rest) > 0 && progName(rest[0]) == "rg" {
			s, ok := rgFiles(rest[1:])
			if ok && end < len(words) && words[end] == "|" {
				s.filter = filterPattern(words[end+1:])
			}
			if ok && (len(s.globs) > 0 || s.filter != nil) {
				return s, true
			}
		}
		i = end + 1
	}
	return search{}, false
}

// chainOp reports a word that ends a command of a chain.
func chainOp(w string) bool { return w == "&&" || w == "||" || w == ";" || w == "|" }

// rgValueFlags are rg's flags that take the next word as their value.
var rgValueFlags = map[string]bool{
	"-t": true, "--type": true, "-T": true, "--type-not": true, "--type-add": true, "--type-clear": true,
	"-j": true, "--threads": true, "-d": true, "--max-depth": true, "--sort": true, "--sortr": true,
	"-e": true, "--regexp": true, "-f": true, "--file": true, "-m": true, "--max-count": true,
	"-A": true, "--after-context": true, "-B": true, "--before-context": true, "-C": true, "--context": true,
	"-M": true, "--max-columns": true, "--max-filesize": true, "--color": true, "--colors": true,
	"-E": true, "--encoding": true, "--path-separator": true, "--pre": true, "--pre-glob": true,
	"-r": true, "--replace": true, "--ignore-file": true,
}

// grepValueFlags are grep's flags that take the next word as their
// value: its -E and -r take none, where rg's do.
var grepValueFlags = map[string]bool{
	"-m": true, "--max-count": true, "-A": true, "--after-context": true, "-B": true, "--before-context": true,
	"-C": true, "--context": true, "--label": true,
}

// rgFiles reads `rg --files`'s arguments: its globs and folders; false
// when it does not list files, or takes hidden folders in.
func rgFiles(args []string) (search, bool) {
	var s search
	files := false
	addGlob := func(g string, fold bool) {
		g = unquote(g)
		if g == "" || strings.HasPrefix(g, "!") {
			return // a glob that leaves files out
		}
		s.globs = append(s.globs, glob{g, fold})
	}
	for k := 0; k < len(args); k++ {
		a := unquote(args[k])
		switch {
		case redirection(a):
			if strings.HasSuffix(a, ">") {
				k++ // its file is the next word
			}
		case a == "--files":
			files = true
		case a == "--hidden" || a == "-." || strings.HasPrefix(a, "-uu") || a == "--unrestricted":
			return search{}, false
		case a == "-g" || a == "--glob" || a == "--iglob":
			if k+1 < len(args) {
				k++
				addGlob(args[k], a == "--iglob")
			}
		case strings.HasPrefix(a, "--glob=") || strings.HasPrefix(a, "--iglob="):
			addGlob(a[strings.IndexByte(a, '=')+1:], strings.HasPrefix(a, "--iglob="))
		case strings.HasPrefix(a, "-g") && !strings.HasPrefix(a, "--") && len(a) > 2:
			addGlob(a[2:], false)
		case rgValueFlags[a]:
			k++
		case strings.HasPrefix(a, "-"):
		default:
			s.roots = append(s.roots, a)
		}
	}
	return s, files
}

// filterPattern is what the filter a file list is piped into matches
// (`| rg 'copilot-instructions\.md'`, `| grep -i agents`), tried on a
// path as the list prints it; nil when there is no such filter or it is
// not read for sure.
func filterPattern(words []string) func(string) bool {
	if len(words) == 0 {
		return nil
	}
	prog := progName(words[0])
	switch prog {
	case "rg", "grep", "egrep":
	default:
		return nil
	}
	fold, fixed, extended := false, false, prog != "grep"
	valueFlags := grepValueFlags
	if prog == "rg" {
		valueFlags = rgValueFlags
	}
	var pattern string
	for k := 1; k < len(words) && !chainOp(words[k]); k++ {
		a := unquote(words[k])
		switch {
		case a == "-v" || a == "--invert-match" || a == "-f" || a == "--file":
			return nil // what passes is not what the pattern names
		case a == "-e" || a == "--regexp":
			if k+1 < len(words) {
				k++
				pattern = unquote(words[k])
			}
		case valueFlags[a]:
			k++
		case redirection(a):
		case strings.HasPrefix(a, "--"):
			fold = fold || a == "--ignore-case"
			fixed = fixed || a == "--fixed-strings"
			extended = extended || a == "--extended-regexp"
		case strings.HasPrefix(a, "-"):
			fold = fold || strings.ContainsRune(a, 'i')
			fixed = fixed || strings.ContainsRune(a, 'F')
			extended = extended || strings.ContainsRune(a, 'E')
		case pattern == "":
			pattern = a
		}
	}
	if pattern == "" {
		return nil
	}
	switch {
	case fixed:
		pattern = regexp.QuoteMeta(pattern)
	case !extended:
		// grep's basic syntax escapes what the extended one writes bare.
		pattern = strings.NewReplacer(`\|`, "|", `\(`, "(", `\)`, ")", `\+`, "+", `\?`, "?").Replace(pattern)
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
// nothing: exit status 1 (rg's "no match"; 2 is an error), and no line
// of rg's own about an error (`rg: x: No such file or directory`).
func foundNothing(errText string) bool {
	if code, ok := exitCode(errText); ok && code != 1 {
		return false
	}
	for _, l := range strings.Split(errText, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "rg:") || strings.HasPrefix(l, "error:") {
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

// fileReaders are the programs whose passing run on a path shows the
// file is there: they read it, or list it by name.
var fileReaders = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "bat": true, "nl": true,
	"wc": true, "ls": true, "stat": true, "get-content": true, "type": true, "jq": true, "yq": true,
}

// filesRead are the paths call t found and read, as it named them: none
// unless it passed without an error (a call refused found nothing). Read
// means read: the read tool, an edit, or a reading program's run on a
// path with a folder in it on this machine, not a write that made the
// file, nor a command whose status does not stand for every step (`cat x
// || echo missing`, `cat x; cat y`: the last step's).
func filesRead(t *transcript.ToolCall) []string {
	if t.IsError || !t.HasResult {
		return nil
	}
	var out []string
	switch {
	case t.Command != "":
		if strings.Contains(t.Command, "||") || strings.Contains(t.Command, ";") || changesFolder(t.Command) {
			return nil
		}
		for _, st := range stepsOf(t.Command) {
			if !fileReaders[st.prog] && !(st.prog == "sed" && reads(st)) || st.via != "" {
				continue
			}
			for _, w := range st.words[1:] {
				if w = bare(unquote(w)); strings.ContainsAny(w, `/\`) && !strings.HasPrefix(w, "-") && !strings.Contains(w, "://") && !redirection(w) {
					out = append(out, w)
				}
			}
		}
	case readTools[t.Name] || t.Name == "Edit" || t.Name == "MultiEdit":
		out = t.Paths
	}
	return out
}

// foundHidden reports a file of the name searched for that call t read
// (filesRead), inside a hidden folder below the folders searched: the
// file, and the folder it is in, both relative to the project.
func (s search) foundHidden(root, cwd string, t *transcript.ToolCall) (file, dir string, ok bool) {
	for _, p := range filesRead(t) {
		rel, ok := projectPath(root, t.Cwd, p)
		if !ok || unheld(rel) {
			continue
		}
		rel = repopath.Slash(rel)
		parts := strings.Split(rel, "/")
		if !s.matches(parts[len(parts)-1], rel) {
			continue
		}
		for _, r := range s.searched(root, cwd) {
			if h := hiddenBelow(parts, r); h >= 0 && !ignoredAnyway(parts[h]) {
				return rel, strings.Join(parts[:len(parts)-1], "/") + "/", true
			}
		}
	}
	return "", "", false
}

// matches reports a file the search was for: its name matches one of the
// globs (rg matches a glob without a slash against the name), and the
// path the filter.
func (s search) matches(name, rel string) bool {
	if len(s.globs) > 0 && !slices.ContainsFunc(s.globs, func(g glob) bool { return g.match(name) }) {
		return false
	}
	return s.filter == nil || s.filter(rel)
}

// glob is a glob rg was given, and whether it ignores case (--iglob).
type glob struct {
	pattern string
	fold    bool
}

// match matches a file's name against the glob, its braces ({yml,yaml})
// expanded, as rg reads them; a glob with folders is matched by its last
// element.
func (g glob) match(name string) bool {
	p := g.pattern[strings.LastIndexByte(g.pattern, '/')+1:]
	if p == "" {
		return false
	}
	if g.fold {
		p, name = strings.ToLower(p), strings.ToLower(name)
	}
	for _, alt := range braces(p) {
		if ok, err := path.Match(alt, name); ok && err == nil {
			return true
		}
	}
	return false
}

// braces expands a glob's first {a,b} group, and the rest in turn.
func braces(g string) []string {
	open := strings.IndexByte(g, '{')
	end := strings.IndexByte(g, '}')
	if open < 0 || end < open {
		return []string{g}
	}
	var out []string
	for _, alt := range strings.Split(g[open+1:end], ",") {
		out = append(out, braces(g[:open]+alt+g[end+1:])...)
	}
	return out
}

// searched are the folders the search looked in, relative to the project
// ("" for the project itself); the working folder when it named none.
// A folder outside the project is none of them.
func (s search) searched(root, cwd string) []string {
	roots := s.roots
	if len(roots) == 0 {
		roots = []string{"."}
	}
	var out []string
	for _, r := range roots {
		// As projectPath reads a path: relative to the repository when
		// inside it, else to the folder the session ran in.
		rel := repopath.Rel(root, cwd, r)
		if c, ok := repopath.Under(cwd, rel); ok && repopath.IsAbs(rel) {
			rel = c
		}
		if rel == "." {
			rel = ""
		}
		if repopath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
			continue
		}
		out = append(out, strings.TrimSuffix(rel, "/"))
	}
	return out
}

// hiddenBelow is the index in parts of the first hidden folder of a file
// under folder r, below r itself: a hidden folder the search was given
// by name is searched all the same. -1 when the file is not under r or
// no folder between is hidden. .git is not a folder one searches.
func hiddenBelow(parts []string, r string) int {
	from := 0
	if r != "" {
		rp := strings.Split(r, "/")
		if len(rp) >= len(parts) {
			return -1
		}
		for k := range rp {
			if !strings.EqualFold(rp[k], parts[k]) {
				return -1
			}
		}
		from = len(rp)
	}
	for k := from; k < len(parts)-1; k++ {
		if p := parts[k]; len(p) > 1 && p[0] == '.' && p != ".." && p != ".git" {
			return k
		}
	}
	return -1
}

// ignoredAnyway reports a hidden folder a project's ignore file almost
// always names (a virtual environment, a cache, a build's output), which
// rg leaves out for that reason too: `--hidden` alone would not find what
// is in it, so the lesson would say the wrong thing.
func ignoredAnyway(dir string) bool {
	switch strings.ToLower(dir) {
	case ".venv", ".env", ".next", ".nuxt", ".cache", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox",
		".terraform", ".gradle", ".idea", ".vs", ".turbo", ".parcel-cache", ".svelte-kit", ".angular", ".yarn", ".pnpm-store", ".expo", ".dart_tool":
		return true
	}
	return false
}

// observation is the lesson: the search leaves the folder out, and how
// to search it.
func (s search) observation(f transcript.ToolCall, file, dir string) Observation {
	// A glob names what is looked for the next time too; a filter is
	// read as the file it found.
	name := path.Base(file)
	for _, g := range s.globs {
		if g.match(name) {
			name = g.pattern
			break
		}
	}
	fails := " finds nothing (exit 1) for `" + clip(name, 60) + "`"
	pattern := "`rg --files` leaves out hidden folders: `" + clip(name, 60) + "` is in `" + clip(dir, 80) +
		"`, which it did not search; add `--hidden` or use `find`."
	details := commandDetails("rg --files", f.Command, fails, "the search reports the file missing though it is there",
		"search with rg --files --hidden or find, the file is "+file)
	return failurePitfall(f, pattern, details,
		quote("tool", "`"+oneLine(f.Command)+"` → found nothing"),
		quote("tool", "later read `"+file+"`"))
}
