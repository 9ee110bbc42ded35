package reconcile

import (
	"path"
	"slices"
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

// codeRefs finds the repository paths the texts mention, in order, each
// once. It prefers missing a reference to inventing one: a token counts
// only if it is a relative path with a folder and a file name with an
// extension or a trailing slash ("src/server.js", "scripts/hooks/", "src/"),
// or a bare file name with a known extension ("CHANGELOG.md"). URLs,
// absolute paths and "and/or" do not.
//
// Reconcile asks it of every ready and created observation on each full
// check: tokens are cut by byte (every separator is ASCII, which no byte of
// a longer UTF-8 sequence is), and one with neither a slash nor a dot,
// most words, is passed over before anything is allocated for it.
func codeRefs(first string, more ...string) []string {
	var out []string
	for k := -1; k < len(more); k++ {
		text := first
		if k >= 0 {
			text = more[k]
		}
		for len(text) > 0 {
			i := 0
			for i < len(text) && refSep[text[i]] {
				i++
			}
			j := i
			for j < len(text) && !refSep[text[j]] {
				j++
			}
			tok := text[i:j]
			text = text[j:]
			if strings.IndexByte(tok, '/') < 0 && strings.IndexByte(tok, '.') < 0 {
				continue
			}
			if tok = refToken(tok); tok != "" && !slices.Contains(out, tok) {
				out = append(out, tok)
			}
		}
	}
	return out
}

// refSep are the bytes that end a token.
var refSep = func() (t [256]bool) {
	for _, c := range " \t\n,;()[]\"'`<>|" {
		t[c] = true
	}
	return t
}()

// refToken is tok as a code reference, or "" when it is not one.
func refToken(tok string) string {
	tok = strings.TrimRight(tok, ".:!?")
	if tok == "" || strings.Contains(tok, "://") || strings.HasPrefix(tok, "/") || strings.HasPrefix(tok, "~") ||
		strings.HasPrefix(tok, "-") || strings.Contains(tok, "..") || strings.ContainsAny(tok, "*{}$=@#%&") {
		return ""
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
	if !ok {
		return ""
	}
	return tok
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
