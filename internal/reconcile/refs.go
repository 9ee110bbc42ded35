package reconcile

import (
	"path"
	"strings"
)

// knownExt are file extensions that make a bare name a code reference.
var knownExt = map[string]bool{
	"go": true, "js": true, "mjs": true, "cjs": true, "ts": true, "tsx": true, "jsx": true, "py": true,
	"rb": true, "rs": true, "java": true, "kt": true, "md": true, "json": true, "yaml": true, "yml": true,
	"toml": true, "sh": true, "sql": true, "css": true, "html": true, "lock": true, "mod": true, "sum": true,
	"c": true, "h": true, "cc": true, "cpp": true, "hpp": true, "cs": true, "php": true, "swift": true,
	"tf": true, "proto": true, "xml": true, "ini": true, "cfg": true, "txt": true,
}

// codeRefs finds the repository paths a text mentions. It prefers missing a
// reference to inventing one: a token counts only if it is a relative path
// with a folder and a file name with an extension or a trailing slash
// ("src/server.js", "scripts/hooks/", "src/"), or a bare file name with a known
// extension ("CHANGELOG.md"). URLs, absolute paths and "and/or" do not.
func codeRefs(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == ';' || r == '(' || r == ')' ||
			r == '[' || r == ']' || r == '"' || r == '\'' || r == '`' || r == '<' || r == '>' || r == '|'
	}) {
		tok = strings.TrimRight(tok, ".:!?")
		if tok == "" || strings.Contains(tok, "://") || strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "~") ||
			strings.HasPrefix(tok, "-") || strings.Contains(tok, "..") || strings.ContainsAny(tok, "*{}$=@#%&") {
			continue
		}
		dir := strings.HasSuffix(tok, "/")
		base := path.Base(strings.TrimSuffix(tok, "/"))
		ext := strings.TrimPrefix(path.Ext(base), ".")
		ok := false
		switch {
		case strings.Contains(strings.TrimSuffix(tok, "/"), "/"):
			ok = dir || (ext != "" && !isNumber(ext))
		case dir:
			ok = len(base) >= 2 // "src/", not "w/"
		default:
			ok = knownExt[strings.ToLower(ext)]
		}
		if ok && !seen[tok] {
			seen[tok] = true
			out = append(out, tok)
		}
	}
	return out
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
