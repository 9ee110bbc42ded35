// Package repopath puts a path, as a lesson or a tool call names it, into
// the one form devlearn stores and matches: relative to the repository
// root, with forward slashes, whatever the machine it was written on. A
// lesson learned in a clone at /home/alice/shop, or on Windows at
// C:\Users\bob\shop, must fire in a clone at /work/shop.
//
// It works on strings only, for every operating system at once: a
// Windows path is recognised on Linux (a pitfall learned there is read
// here) and a POSIX one on Windows. Comparisons fold case, as the file
// systems of Windows and macOS do.
package repopath

import (
	"path"
	"strings"
)

// Slash turns backslashes into slashes, drops "./" prefixes and repeated
// slashes (keeping the two of a UNC path), and lowers a drive letter:
// `C:\Users\bob\x.go` becomes "c:/Users/bob/x.go".
func Slash(p string) string {
	if p == "" {
		return ""
	}
	p = strings.ReplaceAll(p, `\`, "/")
	unc := strings.HasPrefix(p, "//")
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if unc {
		p = "/" + p
	}
	for strings.HasPrefix(p, "./") && len(p) > 2 {
		p = p[2:]
	}
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		p = string(p[0]|0x20) + p[1:]
	}
	return p
}

// Fold is the form paths are compared in: Slash, then lower case.
func Fold(p string) string { return strings.ToLower(Slash(p)) }

// IsAbs reports whether p is absolute on any system: "/x", "C:/x",
// `C:\x`, `\\server\share`.
func IsAbs(p string) bool {
	p = Slash(p)
	return strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && p[2] == '/' && isLetter(p[0])
}

// Rel is p relative to root, with forward slashes: a relative p is taken
// from cwd (from root when cwd is empty). A path outside root stays
// absolute (slashed); a relative path without a cwd or root to resolve it
// against is returned cleaned. Case is kept; the prefix is compared
// without regard to it.
func Rel(root, cwd, p string) string {
	p = Slash(p)
	if p == "" {
		return ""
	}
	if !IsAbs(p) {
		base := cwd
		if base == "" {
			base = root
		}
		if base == "" || !IsAbs(base) {
			return clean(p)
		}
		p = Slash(base) + "/" + p
	}
	p = clean(p)
	if r, ok := Under(root, p); ok {
		return r
	}
	return p
}

// Under returns p relative to dir when p is dir or inside it, comparing
// without regard to case or slashes ("." for dir itself).
func Under(dir, p string) (string, bool) {
	if dir == "" {
		return "", false
	}
	d := strings.TrimSuffix(clean(Slash(dir)), "/")
	p = clean(Slash(p))
	if len(p) < len(d) || !strings.EqualFold(p[:len(d)], d) {
		return "", false
	}
	switch {
	case len(p) == len(d):
		return ".", true
	case p[len(d)] == '/':
		return p[len(d)+1:], true
	case d == "/" || strings.HasSuffix(d, ":/"):
		return p[len(d):], true
	}
	return "", false
}

// clean is path.Clean that keeps a lone "" and a Windows drive root.
func clean(p string) string {
	if p == "" {
		return ""
	}
	c := path.Clean(p)
	if len(c) == 2 && c[1] == ':' {
		c += "/"
	}
	return c
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Stored is how a path is kept in a lesson (a pitfall's Area, an entry's
// file trigger): relative to root when it is inside it, else relative to
// the folder the session ran in (the root of another clone, usually),
// slashed. Outside both it keeps only its last two elements, so that no
// home folder is written into a file that is committed, and it still
// names the file: matching takes a stored path as a tail that may sit
// under any folder.
func Stored(root, cwd, p string) string {
	folder := ""
	if strings.HasSuffix(Slash(p), "/") {
		folder = "/" // "scripts/hooks/" stays a folder
	}
	r := Rel(root, cwd, p)
	if !IsAbs(r) {
		if r == "." {
			return r
		}
		return r + folder
	}
	if c, ok := Under(cwd, r); ok && c != "." {
		return c + folder
	}
	parts := strings.Split(strings.TrimSuffix(r, "/"), "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/") + folder
}
