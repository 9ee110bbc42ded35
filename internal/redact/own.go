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
	// personal marks personal data (e-mail addresses, phone numbers), not
	// a credential: redact.personal_data can keep it.
	personal bool
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
	{
		// A password given on a command line as its own argument:
		// mysql --password hunter2, tool --api-key XYZ. (-p is left alone:
		// it is a port as often as a password.)
		ruleSpec: ruleSpec{
			ID:       "password-flag",
			Regex:    `(?i)(?:^|[\s'"=])--(?:[a-z0-9]+-)?(?:password|passwd|pass|pwd|passphrase|secret|token|api-?key|auth-token|access-token)[ \t]+(?:"([^"\r\n]{4,256})"|'([^'\r\n]{4,256})'|([^\s"'\-][^\s"']{3,255}))`,
			Keywords: []string{"--"},
		},
		rank: rankContext,
		pick: pickFlagValue,
	},
	{
		// A password said in words: "my password is hunter2", "the
		// password for staging is s3cr3t!". Without a name or operator the
		// value must look like a password (a digit, a capital inside, a
		// sign), or be quoted, so that "the password is required" stays.
		ruleSpec: ruleSpec{
			ID:       "password-phrase",
			Regex:    `(?i)\b(?:password|passwd|passphrase|passcode)\b(?:[ \t]+(?:for|of|on|to|at)[ \t]+[\w.@/:-]{1,60})?[ \t]+(?:is|was)[ \t]+(?:"([^"\r\n]{4,128})"|'([^'\r\n]{4,128})'|\x60([^\x60\r\n]{4,128})\x60|([^\s"'\x60]{4,128}))`,
			Keywords: []string{"password", "passwd", "passphrase", "passcode"},
		},
		rank: rankGeneric,
		pick: pickPhrase,
	},
	{
		// A password named just before it, with no verb: "your password
		// `West11berg1!` is in user.nix", "senha (Barb3r!2024) do banco",
		// "パスワード：Hunter2x!". The name is the evidence, so the value
		// must be shaped like a password (passwordShaped) and be no code
		// or variable's name.
		ruleSpec: ruleSpec{
			ID:       "password-named",
			Regex:    `(?i)(?:\b(?:password|passwd|passphrase|passcode|contraseña|contrasena|senha|passwort|kennwort|mot de passe)\b|пароль|密码|密碼|パスワード|비밀번호)([^\r\n]{1,40})`,
			Keywords: []string{"password", "passwd", "passphrase", "passcode", "contraseña", "contrasena", "senha", "passwort", "kennwort", "mot de passe", "пароль", "密码", "密碼", "パスワード", "비밀번호"},
		},
		rank: rankGeneric,
		pick: pickNamed,
	},
	{
		// Known token prefixes at lengths a little either side of the
		// documented ones, the whole token taken: gitleaks' rules want the
		// exact length, so a token one character short was kept and one
		// longer lost only its head.
		ruleSpec: ruleSpec{
			ID: "token-prefix",
			Regex: `(?:^|[^A-Za-z0-9_])((?:gh[pousr]_[A-Za-z0-9]{28,251}|github_pat_[A-Za-z0-9_]{40,251}|glpat-[A-Za-z0-9_-]{16,128}|AIza[0-9A-Za-z_-]{30,60}` +
				`|xox[abposr]-[A-Za-z0-9-]{10,250}|sk-(?:proj|ant|svcacct|admin)-[A-Za-z0-9_-]{20,300}|[sr]k_live_[A-Za-z0-9]{16,250}|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{12,24}))(?:$|[^A-Za-z0-9_-])`,
			Keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "aiza", "xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "sk-proj-", "sk-ant-", "sk-svcacct-", "sk-admin-", "sk_live_", "rk_live_", "akia", "asia", "abia", "acca"},
		},
		rank: rankSpecific,
		pick: pickTokenPrefix,
	},
	{
		// A key with no name before it, but a provider's name shortly
		// before: "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCY...". It must
		// mix lower case, capitals and digits, which a git hash, a UUID
		// or a word never does.
		ruleSpec: ruleSpec{
			ID:       "provider-key",
			Regex:    `(?i)\b(?:aws|amazon|azure|gcp|google|stripe|openai|anthropic|github|gitlab|slack|twilio|heroku|cloudflare|datadog|sendgrid|mailgun|digitalocean)\b[^\r\n]{0,48}?(?:^|[\s:=,'"\x60(])([A-Za-z0-9/+_=-]{32,100})(?:$|[\s'"\x60),.;])`,
			Keywords: []string{"aws", "amazon", "azure", "gcp", "google", "stripe", "openai", "anthropic", "github", "gitlab", "slack", "twilio", "heroku", "cloudflare", "datadog", "sendgrid", "mailgun", "digitalocean"},
		},
		rank: rankContext,
		pick: pickProviderKey,
	},
	{
		// E-mail addresses are personal data. git@host (an SSH remote)
		// and package@version are not addresses.
		ruleSpec: ruleSpec{
			ID:    "email",
			Regex: `(?i)(?:^|[^A-Za-z0-9._%+/:-])([A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24})\b`,
			// "@" and the domain's first character: the index wants two
			// bytes.
			Keywords: withEach("@", "abcdefghijklmnopqrstuvwxyz0123456789", ""),
		},
		rank:     rankContext,
		pick:     pickEmail,
		personal: true,
	},
	{
		// Phone numbers: international (+ and a country code) or written
		// the North American way, 3-3-4 with a bracketed or separated area
		// code. Dates, versions, IP addresses, port lists and hashes have
		// other shapes.
		ruleSpec: ruleSpec{
			ID:    "phone",
			Regex: `(?:^|[^\w+.-])(\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){1,2}(?:[ .-]?\d{2,4}){2,4}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}-\d{3}-\d{4}|\d{3}\.\d{3}\.\d{4})(?:$|[^\w.-]|\.(?:$|\s))`,
			Keywords: append(append(withEach("+", "0123456789", ""), withEach("(", "0123456789", "")...),
				append(withEach("", "0123456789", "-"), withEach("", "0123456789", ".")...)...),
		},
		rank:     rankContext,
		pick:     pickPhone,
		personal: true,
	},
}

// withEach returns prefix+c+suffix for each byte c of chars.
func withEach(prefix, chars, suffix string) []string {
	out := make([]string, 0, len(chars))
	for i := 0; i < len(chars); i++ {
		out = append(out, prefix+chars[i:i+1]+suffix)
	}
	return out
}

// pickFlagValue takes the value of a --password VALUE argument.
func pickFlagValue(s string, m []int) (int, int, bool) {
	for g := 1; g <= 3; g++ {
		if m[2*g] >= 0 {
			v := s[m[2*g]:m[2*g+1]]
			if isPlaceholder(v) || g == 3 && !hasLetterOrDigit(v) {
				return 0, 0, false
			}
			return m[2*g], m[2*g+1], true
		}
	}
	return 0, 0, false
}

// notPasswordParts are what a sentence about a password says of it
// ("the password is sha256-hashed"), not a password.
var notPasswordParts = []string{"hash", "crypt", "sha1", "sha2", "sha-", "md5", "base64", "salt", "stored", "required", "optional", "protected", "-based", "managed"}

// saysOfPassword reports a value that says something of a password
// (notPasswordParts) rather than being one.
func saysOfPassword(v string) bool {
	lower := strings.ToLower(v)
	for _, w := range notPasswordParts {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// pickPhrase takes the password of "password is VALUE" when quoted or when
// it looks like one.
func pickPhrase(s string, m []int) (int, int, bool) {
	g := 1
	for ; g <= 4 && m[2*g] < 0; g++ {
	}
	if g > 4 {
		return 0, 0, false
	}
	start, end := m[2*g], m[2*g+1]
	if g == 4 {
		// A sentence goes on after the value: its full stop or comma is
		// not part of it.
		for end > start && strings.ContainsRune(".,;:)", rune(s[end-1])) {
			end--
		}
	}
	v := s[start:end]
	if len(v) < 4 || isPlaceholder(v) || saysOfPassword(v) {
		return 0, 0, false
	}
	if g == 4 && !looksLikePassword(v) {
		return 0, 0, false
	}
	return start, end, true
}

// looksLikePassword: a digit, a capital after the first letter, or a sign.
func looksLikePassword(v string) bool {
	for i, c := range v {
		switch {
		case '0' <= c && c <= '9':
			return true
		case i > 0 && 'A' <= c && c <= 'Z':
			return true
		case !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z'):
			return true
		}
	}
	return false
}

// pickTokenPrefix takes the whole token, unless it is documentation
// (AKIA...EXAMPLE, ghp_XXXX...).
func pickTokenPrefix(s string, m []int) (int, int, bool) {
	v := s[m[2]:m[3]]
	if isPlaceholder(v) || entropy(v) < 3 {
		return 0, 0, false
	}
	return m[2], m[3], true
}

func pickProviderKey(s string, m []int) (int, int, bool) {
	v := s[m[2]:m[3]]
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
	if !lower || !upper || !digit || entropy(v) < 4 || isPlaceholder(v) {
		return 0, 0, false
	}
	return m[2], m[3], true
}

func pickEmail(s string, m []int) (int, int, bool) {
	addr := s[m[2]:m[3]]
	local := addr[:strings.IndexByte(addr, '@')]
	if strings.EqualFold(local, "git") {
		return 0, 0, false // git@github.com:owner/repo
	}
	return m[2], m[3], true
}

func pickPhone(s string, m []int) (int, int, bool) {
	v := s[m[2]:m[3]]
	digits := 0
	for _, c := range v {
		if '0' <= c && c <= '9' {
			digits++
		}
	}
	if digits < 9 || digits > 15 {
		return 0, 0, false
	}
	return m[2], m[3], true
}

func hasLetterOrDigit(v string) bool {
	for _, c := range v {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return true
		}
	}
	return false
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

// pickNamed takes the first word shaped like a password in the few words
// after a password's name, unless it is code or a variable's name
// (DB_PASSWORD_2024, Field(...), user.password2).
func pickNamed(s string, m []int) (int, int, bool) {
	window := s[m[2]:m[3]]
	start, end, found := 0, 0, false
	shapedWords(window, func(i, j int) bool {
		v := window[i:j]
		if strings.ContainsAny(v, "()[]{}<>=$%") || isPlaceholder(v) || v == strings.ToUpper(v) && strings.Contains(v, "_") {
			return true
		}
		if asksPassword(v) || dotted(v) || saysOfPassword(v) {
			return true // a name again ("1Password"), a field (user.password2), a hash
		}
		start, end, found = m[2]+i, m[2]+j, true
		return false
	})
	return start, end, found
}

// dotted reports a name in code: a dot between two letters (user.pw2).
func dotted(v string) bool {
	for i := 1; i+1 < len(v); i++ {
		if v[i] == '.' && unicode.IsLetter(rune(v[i-1])) && unicode.IsLetter(rune(v[i+1])) {
			return true
		}
	}
	return false
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
	// whatever it looks like, and so does password=db_pass_2024 (lower
	// case, no space, a digit in the value: code rarely names a variable
	// so); elsewhere a bare value may be code.
	op := strings.TrimSpace(s[name:start])
	called := end < len(s) && strings.ContainsRune("([{", rune(s[end]))
	literal := isEnvAssignment(s[m[0]:name], s[name:start]) || (op == "=" || op == ":") && !called && strings.ContainsAny(v, "0123456789")
	if g == 4 && !literal && looksLikeCode(s, v, end) {
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
