package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A password the person types in answer to the agent has no name before it
// ("2. West11berg1!" answering "What password should the user have?"), so
// no rule finds it. What was asked says what it is: Answer redacts, in a
// reply to a question that asks for a password, the words shaped like one.

// Redacts reports whether f redacts secrets (a caller may pass a function
// that keeps text as written): a token of a known format is its probe.
func Redacts(f func(string) string) bool {
	probe := "ghp_Zq8Lm3Vt7Xb1Nc5Rk9Pw2Hd6Jf4Gs0Ty3UaQ"
	return f(probe) != probe
}

// PasswordPlaceholder replaces a password typed in answer.
var PasswordPlaceholder = Placeholder("password-answer")

// Answer is reply with the passwords in it redacted, when asked (the agent's
// words it answers) asks for one; reply as it was otherwise.
func Answer(asked, reply string) string {
	if !HoldsPasswordShaped(reply) || !asksPassword(asked) {
		return reply
	}
	var b strings.Builder
	last := 0
	shapedWords(reply, func(start, end int) bool {
		b.WriteString(reply[last:start])
		b.WriteString(PasswordPlaceholder)
		last = end
		return true
	})
	b.WriteString(reply[last:])
	return b.String()
}

// HoldsPasswordShaped reports a word in s shaped like a password: the
// cheap test, allocating nothing, a caller makes before it looks for what s
// answered.
func HoldsPasswordShaped(s string) bool {
	found := false
	shapedWords(s, func(int, int) bool { found = true; return false })
	return found
}

// shapedWords calls yield with the bounds of each word of s shaped like a
// password (quotes and punctuation around it left out), until yield says
// to stop.
func shapedWords(s string, yield func(start, end int) bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i + strings.IndexFunc(s[i:], unicode.IsSpace)
		if j < i {
			j = len(s)
		}
		word := s[i:j]
		core := strings.TrimLeft(word, "\"'`“‘„‚«(<[")
		start := i + len(word) - len(core)
		core = strings.TrimRight(core, "\"'`”’“‘»)>].,;:")
		if passwordShaped(core) && !yield(start, start+len(core)) {
			return
		}
		i = j
	}
}

// NamesPassword reports s naming a password, in any of the languages
// people write to agents ("password", "senha", "パスワード").
func NamesPassword(s string) bool {
	low := strings.ToLower(s)
	for _, w := range passwordNames {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// passwordNames name a password in the languages people write to agents.
var passwordNames = []string{"password", "passphrase", "passcode", "passwd", "contraseña", "contrasena", "senha", "passwort", "kennwort", "mot de passe", "пароль", "密码", "密碼", "パスワード", "비밀번호", "암호"}

// asksPassword reports a turn that asks for a password: a password's name
// in a question ("What password should the user have?") or in the turn's
// last line ("Enter the new password:"). A turn that only names one, a
// report listing the credentials it set ("Senha: admin123"), asks nothing:
// the reply's test plan ("CT-AG-04: Validações …") holds no password.
func asksPassword(asked string) bool {
	low := strings.ToLower(strings.TrimSpace(asked))
	lastLine := strings.LastIndexByte(low, '\n') + 1
	for _, w := range passwordNames {
		for from := 0; ; {
			i := strings.Index(low[from:], w)
			if i < 0 {
				break
			}
			at := from + i
			if at >= lastLine || endsAsking(low[at:]) {
				return true
			}
			from = at + len(w)
		}
	}
	return false
}

// endsAsking reports whether the sentence that s starts inside ends with a
// question mark.
func endsAsking(s string) bool {
	end := strings.IndexAny(s, ".!?\n。！？")
	if end < 0 {
		return false
	}
	return s[end] == '?' || strings.HasPrefix(s[end:], "？")
}

// fileName reports a word made as a file's name is: letters, digits, dashes
// and underscores, then an extension of lower-case letters ("README.md",
// "docker-compose.yml"), which a password's mix of kinds also fits.
func fileName(w string) bool {
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || len(w)-dot-1 < 1 || len(w)-dot-1 > 5 {
		return false
	}
	letter := false
	for _, r := range w[dot+1:] {
		switch {
		case r >= 'a' && r <= 'z':
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	if !letter {
		return false
	}
	for _, r := range w[:dot] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_.", r) {
			return false
		}
	}
	return true
}

// passwordShaped reports a word made as passwords are: 6 to 64 characters,
// no path or address, and three kinds or more of lower case, upper case,
// digits and symbols ("West11berg1!", "p@ssw0rd"), which words, numbers
// and names are not.
func passwordShaped(w string) bool {
	n := utf8.RuneCountInString(w)
	if n < 6 || n > 64 || strings.ContainsAny(w, "/\\") || strings.Contains(w, "REDACTED") || fileName(w) {
		return false
	}
	var lower, upper, digit, symbol bool
	for _, r := range w {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			symbol = true
		default:
			return false // a letter without case, a space: not one
		}
	}
	kinds := 0
	for _, k := range []bool{lower, upper, digit, symbol} {
		if k {
			kinds++
		}
	}
	return kinds >= 3
}
