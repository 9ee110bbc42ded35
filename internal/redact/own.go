package redact

import (
	"strings"
	"unicode"
)

// ownRule is one of devlearn's rules, for secrets that gitleaks ties to
// file paths or leaves out: what an agent session shows is commands,
// headers, URLs and config snippets, not files.
type ownRule struct {
	ruleSpec
	rank int
	pick func(s string, m []int) (start, end int, ok bool)
}

var ownRules = []ownRule{
	{
		// gitleaks' private-key rule needs the END line; a key pasted into
		// a session is often cut short, so this one takes the BEGIN line and
		// every base64 (or PEM header) line after it, with real or
		// JSON-escaped newlines.
		ruleSpec: ruleSpec{
			ID: "private-key",
			Regex: `(?i)-----BEGIN[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----` +
				`(?:(?:\r?\n|(?:\\r)?\\n)[ \t]*(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Version|Comment):[^\r\n\\]*)?[ \t]*)+` +
				`(?:-----END[ A-Z0-9_-]{0,100}?PRIVATE KEY(?: BLOCK)?-----)?`,
			Keywords: []string{"-----begin"},
		},
		rank: rankSpecific,
		pick: pickPrivateKey,
	},
	{
		// scheme://user:password@host: only the password is replaced, so
		// the lesson keeps which service and user it was about.
		ruleSpec: ruleSpec{
			ID:       "url-password",
			Regex:    `(?i)\b[a-z][a-z0-9+.-]{1,30}://([^\s:/?#@'"<>\[\]{}\\]{0,256}):([^\s/?#@'"<>\[\]{}\\]{1,256})@[a-z0-9\[]`,
			Keywords: []string{"://"},
		},
		rank: rankContext,
		pick: pickURLPassword,
	},
	{
		// Authorization: <scheme> <credentials>, in HTTP dumps, curl
		// commands and header maps (gitleaks only looks inside curl).
		ruleSpec: ruleSpec{
			ID:       "authorization-header",
			Regex:    `(?i)\b(?:proxy-)?authorization\b(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?(?:(?:bearer|basic|token|digest|bot|apikey|api-key|sso-key|key)[ \t]+)?([A-Za-z0-9\-._~+/]{8,}=*)`,
			Keywords: []string{"authorization"},
		},
		rank: rankContext,
		pick: pickToken(1),
	},
	{
		ruleSpec: ruleSpec{
			ID:       "bearer-token",
			Regex:    `(?i)\bbearer[ \t]+([A-Za-z0-9\-._~+/]{16,}=*)`,
			Keywords: []string{"bearer"},
		},
		rank: rankContext,
		pick: pickToken(1),
	},
	{
		// A value assigned to a password-like name, in .env, shell, YAML,
		// JSON, TOML or code. gitleaks' generic rule wants high entropy,
		// which human passwords do not have; the name is the evidence here,
		// so the value only has to not look like a placeholder or code.
		ruleSpec: ruleSpec{
			ID: "password-assignment",
			Regex: `(?i)[\w.-]{0,40}?(?:pass|pwd|pw|secret)[\w.-]{0,20}?(?:\\?["'])?[ \t]*(?::=|=>|=|:)[ \t]*` +
				`(?:"([^"\r\n]{1,256})"|\\"([^"\\\r\n]{1,256})\\"|'([^'\r\n]{1,256})'|([^\s"'<>{}()\[\],;=\x60\\][^\s"'<>{}()\[\],;\x60\\]{0,255}))`,
			Keywords: []string{"pass", "pwd", "pw", "secret"},
		},
		rank: rankGeneric,
		pick: pickPassword,
	},
}

func pickPrivateKey(s string, m []int) (int, int, bool) {
	// Real key material is long; a BEGIN line followed by "...", a few
	// words or a short example is not a key.
	block := s[m[0]:m[1]]
	body := block[len("-----"):]
	body = body[strings.Index(body, "-----")+len("-----"):]
	if i := strings.LastIndex(strings.ToUpper(body), "-----END"); i >= 0 {
		body = body[:i]
	}
	body = strings.NewReplacer(`\n`, "", `\r`, "").Replace(body)
	n := 0
	for i := 0; i < len(body); i++ {
		if c := body[i]; 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' {
			n++
		}
	}
	if n < 64 {
		return 0, 0, false
	}
	return m[0], m[1], true
}

func pickURLPassword(s string, m []int) (int, int, bool) {
	user, pw := s[m[2]:m[3]], s[m[4]:m[5]]
	if isPlaceholder(pw) || strings.EqualFold(user, pw) {
		return 0, 0, false
	}
	return m[4], m[5], true
}

// pickToken accepts capture group g when it looks like a random credential
// rather than a word or a template.
func pickToken(g int) func(s string, m []int) (int, int, bool) {
	return func(s string, m []int) (int, int, bool) {
		v := s[m[2*g]:m[2*g+1]]
		if isPlaceholder(v) || !looksRandom(v) {
			return 0, 0, false
		}
		return m[2*g], m[2*g+1], true
	}
}

// looksRandom is true for strings that mix character classes the way
// generated tokens do: at least two of lower case, upper case and digits,
// and enough entropy.
func looksRandom(v string) bool {
	var lower, upper, digit bool
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	classes := 0
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	return classes >= 2 && entropy(v) > 3
}

// passwordSuffixes end the last component of a password's name
// (PGPASSWORD, clientSecret); the short words must be the whole component,
// or bypass and compass would be passwords.
var (
	passwordSuffixes = []string{"password", "passwd", "passwort", "passphrase", "pwd", "secret"}
	passwordWords    = map[string]bool{"pass": true, "pw": true}
)

func pickPassword(s string, m []int) (int, int, bool) {
	name := m[0]
	for name < m[1] && isNameByte(s[name]) {
		name++
	}
	if !isPasswordName(s[m[0]:name]) {
		return 0, 0, false
	}
	g := 1 // the value: "double", \"escaped\", 'single' or bare
	for ; g <= 4 && m[2*g] < 0; g++ {
	}
	if g > 4 {
		return 0, 0, false
	}
	start, end := m[2*g], m[2*g+1]
	v := s[start:end]
	if len(v) < 4 || isPlaceholder(v) {
		return 0, 0, false
	}
	// A shell or .env assignment (PGPASSWORD=value) holds a literal,
	// whatever it looks like; elsewhere a bare value may be code.
	if g == 4 && !isEnvAssignment(s[m[0]:name], s[name:start]) && looksLikeCode(s, v, end) {
		return 0, 0, false
	}
	return start, end, true
}

// isEnvAssignment reports NAME=value: an upper-case name and an = with no
// space around it.
func isEnvAssignment(name, between string) bool {
	return between == "=" && name == strings.ToUpper(name) && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isPasswordName reports whether the last component of a name (split at
// _ - . and lower-to-upper case changes, trailing digits ignored) names a
// password: DB_PASSWORD, dbPassword, PGPASSWORD, client-secret, pass2 do;
// password_hash, secretName, bypass, PASSWORD_FILE do not.
func isPasswordName(name string) bool {
	name = strings.TrimRight(name, "0123456789")
	last := name
	for i := len(name) - 1; i >= 0; i-- {
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			last = name[i+1:]
			break
		}
		if i > 0 && 'A' <= c && c <= 'Z' && 'a' <= name[i-1] && name[i-1] <= 'z' {
			last = name[i:]
			break
		}
	}
	last = strings.ToLower(last)
	if passwordWords[last] {
		return true
	}
	for _, w := range passwordSuffixes {
		if strings.HasSuffix(last, w) {
			return true
		}
	}
	return false
}

// looksLikeCode reports whether an unquoted value is a program expression
// rather than a literal: a call, an index, a field path, or an identifier
// written the way code names variables (snake_case, camelCase).
func looksLikeCode(s, v string, end int) bool {
	if end < len(s) && (s[end] == '(' || s[end] == '[' || s[end] == '{') {
		return true
	}
	ident, dots, underscores, camel := true, 0, 0, false
	for i, c := range v {
		switch {
		case c == '.':
			dots++
		case c == '_':
			underscores++
		case unicode.IsLetter(c):
			if i > 0 && unicode.IsUpper(c) && unicode.IsLower(rune(v[i-1])) {
				camel = true
			}
		case unicode.IsDigit(c):
			// A digit inside a word (Passw0rd, s3cret) is how passwords
			// are made, not how code names things.
			if i == 0 || i+1 < len(v) && isLetter(v[i-1]) && isLetter(v[i+1]) {
				ident = false
			}
		default:
			ident = false
		}
	}
	if !ident || strings.HasPrefix(v, ".") || strings.HasSuffix(v, ".") {
		return false
	}
	return dots > 0 || underscores > 0 || camel
}

// placeholderWords mark example values: a value containing one of them is
// documentation, not a secret.
var placeholderWords = []string{
	"your", "example", "changeme", "change_me", "change-me", "placeholder", "redacted",
	"xxxx", "****", "...", "…", "dummy", "sample", "insert", "replace", "todo", "fixme",
	"<", ">", "{{", "}}", "${", "$(", "%(", "#{",
}

// nonSecretValues are whole values that say what a field is, not what it
// holds: schema types, booleans, nulls and the field names themselves.
var nonSecretValues = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"null": true, "nil": true, "none": true, "undefined": true, "empty": true,
	"required": true, "optional": true, "string": true, "str": true, "text": true,
	"number": true, "int": true, "integer": true, "bool": true, "boolean": true,
	"bytes": true, "char": true, "varchar": true, "object": true, "any": true,
	"hidden": true, "masked": true, "sensitive": true, "secure": true, "type": true,
	"field": true, "input": true, "value": true, "default": true, "unknown": true,
	"password": true, "passwd": true, "pass": true, "passphrase": true, "pwd": true,
	"pw": true, "secret": true, "secrets": true, "token": true, "test": true,
	"foo": true, "bar": true, "baz": true, "qux": true, "user": true, "username": true,
	"admin": true, "root": true, "demo": true, "guest": true,
}

// isPlaceholder reports whether v is an example or reference rather than a
// secret: a variable or template reference, a marker such as <...> or xxxx,
// a well-known example word, or an ALL_CAPS_NAME standing for one.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '%', '@', '&', '*', '<', '{', '[', '(', '#':
		return true // a reference, template, YAML anchor or alias, mask, comment
	case '!':
		if isLowerWord(v[1:]) {
			return true // a YAML tag: !vault, !secret
		}
	}
	lower := strings.ToLower(v)
	if nonSecretValues[lower] {
		return true
	}
	for _, w := range placeholderWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	if strings.Count(v, v[:1]) == len(v) {
		return true // aaaa, 0000, ----
	}
	return isEnvName(v)
}

// isEnvName reports ALL_CAPS names with an underscore, which stand for a
// value (GITHUB_TOKEN, YOUR_API_KEY) rather than being one.
func isEnvName(v string) bool {
	if !strings.Contains(v, "_") || v[0] == '_' {
		return false
	}
	for _, c := range v {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isLowerWord(v string) bool {
	for _, c := range v {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return v != ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
