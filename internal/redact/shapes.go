package redact

import "strings"

// Some secrets have no name or keyword before them but a shape and a
// checksum: a card number pasted alone, an IBAN in a sentence, an AWS
// secret access key on a line of its own. No keyword can trigger them (a
// digit or a capital starts half of all words), and a regex over every
// text would cost the fast path what the keyword index saves, so one pass
// over the bytes finds them: a table lookup per byte, and the checks run
// only where the shape is already there.
//
// Each check is what keeps the clean corpus clean: a card number must pass
// Luhn, start with an issuer's prefix and have that issuer's length, so
// millisecond timestamps (1715331600000), snowflake ids and float digits
// do not; an IBAN must name a country, have its length and pass mod 97;
// an AWS secret must be exactly 40 characters and read as random (every
// character class, changing often), which a git hash, a path or a
// camel-case name does not.

// Rule names of the shape rules, and so their placeholders.
const (
	RuleCard      = "card-number"
	RuleIBAN      = "iban"
	RuleAWSSecret = "aws-secret-key"
	RuleAppPass   = "app-password"
)

const (
	cDigit = 1 << iota
	cUpper
	cLower
	cSym // + and /, base64's other two
)

var shapeClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = cUpper
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = cLower
	}
	t['+'], t['/'] = cSym, cSym
	return t
}()

const cAlnum = cDigit | cUpper | cLower

// findShapes appends the card numbers, IBANs and bare AWS secret keys in s.
// Only the first byte of a word is looked at closely; the rest of the word
// is skipped in a tight loop, counting the run of base64 characters that an
// AWS key would be.
func findShapes(s string, out []candidate) []candidate {
	run := 0 // length of the run of base64 characters ending before i
	for i := 0; i < len(s); {
		k := shapeClass[s[i]]
		switch {
		case k == 0:
			if run == awsSecretLen {
				out = awsSecretAt(s, i-run, i, out)
			}
			run = 0
			i++
			continue
		case k == cSym:
			run++
			i++
			continue
		}
		if i == 0 || shapeClass[s[i-1]]&cAlnum == 0 && s[i-1] != '_' && s[i-1] != '.' {
			switch {
			case k == cDigit && (i == 0 || s[i-1] != '+'): // +44 is a phone number
				if end := cardAt(s, i); end > 0 {
					out = append(out, candidate{Finding{Rule: RuleCard, Start: i, End: end}, rankSpecific})
				}
			case k == cUpper:
				if end := ibanAt(s, i); end > 0 {
					out = append(out, candidate{Finding{Rule: RuleIBAN, Start: i, End: end}, rankSpecific})
				}
			case k == cLower && i+appPasswordLen <= len(s) && s[i+4] == '-' && (i == 0 || s[i-1] != '-'):
				if end := appPasswordAt(s, i); end > 0 {
					out = append(out, candidate{Finding{Rule: RuleAppPass, Start: i, End: end}, rankSpecific})
				}
			}
		}
		j := i + 1
		for j < len(s) && shapeClass[s[j]]&cAlnum != 0 {
			j++
		}
		run += j - i
		i = j
	}
	if run == awsSecretLen {
		out = awsSecretAt(s, len(s)-run, len(s), out)
	}
	return out
}

// --- app-specific passwords ----------------------------------------------

// appPasswordLen is an app-specific password's length: four groups of four
// lower-case letters joined by dashes, as Apple writes the ones it makes
// for an Apple ID ("abcd-efgh-ijkl-mnop").
const appPasswordLen = 19

// appPasswordAt returns the end of the app-specific password that starts at
// s[i] (a lower-case letter at a word's start), or 0. Four-letter words
// joined by dashes ("text-base-font-bold") have vowels in each; letters
// drawn at random leave one group without one four times in five, which
// is what is asked: a group of four consonants.
func appPasswordAt(s string, i int) int {
	end := i + appPasswordLen
	if end > len(s) || s[i+4] != '-' || s[i+9] != '-' || s[i+14] != '-' ||
		end < len(s) && (wordByte(s[end]) || s[end] == '-') {
		return 0 // most words: the dashes are not where they would be
	}
	voweless := false
	for g := 0; g < 4; g++ {
		at := i + 5*g
		if g > 0 && s[at-1] != '-' {
			return 0
		}
		vowels := 0
		for _, c := range []byte(s[at : at+4]) {
			if shapeClass[c] != cLower {
				return 0
			}
			if strings.IndexByte("aeiouy", c) >= 0 {
				vowels++
			}
		}
		voweless = voweless || vowels == 0
	}
	if !voweless {
		return 0
	}
	return end
}

// wordByte is a byte that continues a word or number, so that a shape
// next to it is part of something longer.
func wordByte(c byte) bool { return shapeClass[c]&cAlnum != 0 || c == '_' }

// --- card numbers ------------------------------------------------------------

const maxCardGroups = 8

// cardAt returns the end of the card number that starts at s[i] (a digit
// at a word's start), or 0. It is written contiguous or in groups joined
// by one space or one dash throughout: 4-4-4-4, 4-4-4-4-3, 4-6-5 (American
// Express), 4-6-4 (Diners). A run of digits is never cut, and a list of
// four-digit groups longer than a card is not one; a shorter group after
// the card (an expiry date) ends it.
func cardAt(s string, i int) int {
	var ends [maxCardGroups]int
	var lens [maxCardGroups]int
	var buf [19]byte
	n, digits, sep := 0, 0, byte(0)
	for at := i; n < maxCardGroups; {
		j := at
		for j < len(s) && shapeClass[s[j]] == cDigit {
			j++
		}
		lens[n], ends[n] = j-at, j
		n++
		digits += j - at
		if digits > 19 || j+1 >= len(s) || shapeClass[s[j+1]] != cDigit {
			break
		}
		if c := s[j]; c == ' ' || c == '-' {
			if sep == 0 {
				sep = c
			}
			if c != sep {
				break
			}
			at = j + 1
			continue
		}
		break
	}
	if n > 1 && fourDigitsBefore(s, i, sep) {
		return 0 // the middle of a list of numbers (ports, years)
	}
	for g := n; g > 0; g-- {
		end := ends[g-1]
		if !cardLayout(lens[:g]) || !cardEnds(s, end) {
			continue
		}
		if g < n && lens[g] == 4 {
			return 0 // the list goes on in groups of four: not a card
		}
		if d := cardDigits(s[i:end], &buf); cardIssuer(d) && luhn(d) {
			return end
		}
	}
	return 0
}

// fourDigitsBefore reports a group of four digits joined by sep right
// before s[i].
func fourDigitsBefore(s string, i int, sep byte) bool {
	if i < 5 || s[i-1] != sep {
		return false
	}
	for k := i - 5; k < i-1; k++ {
		if shapeClass[s[k]] != cDigit {
			return false
		}
	}
	return i == 5 || !wordByte(s[i-6])
}

// cardLayout: one run of 13 to 19 digits, groups of four and a last of one
// to four, or 4-6-5 and 4-6-4.
func cardLayout(lens []int) bool {
	total := 0
	for _, l := range lens {
		total += l
	}
	if total < 13 || total > 19 {
		return false
	}
	switch {
	case len(lens) == 1:
		return true
	case len(lens) == 3 && lens[0] == 4 && lens[1] == 6 && (lens[2] == 5 || lens[2] == 4):
		return true
	}
	for _, l := range lens[:len(lens)-1] {
		if l != 4 {
			return false
		}
	}
	return lens[len(lens)-1] <= 4
}

// cardEnds: what follows the number ends it, and is not a decimal part.
func cardEnds(s string, end int) bool {
	if end == len(s) {
		return true
	}
	if wordByte(s[end]) {
		return false
	}
	return !(s[end] == '.' && end+1 < len(s) && shapeClass[s[end+1]] == cDigit)
}

// cardDigits returns the digits of v (at most 19 of them) without its
// separators, in buf.
func cardDigits(v string, buf *[19]byte) string {
	n := 0
	for i := 0; i < len(v); i++ {
		if shapeClass[v[i]] == cDigit {
			buf[n] = v[i]
			n++
		}
	}
	return string(buf[:n])
}

// cardIssuer reports whether the digits start with a card issuer's prefix
// and have a length that issuer uses.
func cardIssuer(d string) bool {
	n := len(d)
	p := func(k int) int { // the first k digits as a number
		v := 0
		for i := 0; i < k; i++ {
			v = 10*v + int(d[i]-'0')
		}
		return v
	}
	switch {
	case d[0] == '4': // Visa
		return n == 13 || n == 16 || n == 19
	case p(2) == 34 || p(2) == 37: // American Express
		return n == 15
	case p(2) >= 51 && p(2) <= 55, p(4) >= 2221 && p(4) <= 2720: // Mastercard
		return n == 16
	case p(4) >= 2200 && p(4) <= 2204: // Mir
		return n >= 16
	case p(4) == 6011, p(3) >= 644 && p(3) <= 649, p(2) == 65, p(2) == 62: // Discover, UnionPay
		return n >= 16
	case p(4) >= 3528 && p(4) <= 3589: // JCB
		return n >= 16
	case p(3) >= 300 && p(3) <= 305: // Diners Club Carte Blanche
		return n == 14
	case p(2) == 36: // Diners Club International
		return n >= 14
	case p(2) == 38, p(2) == 39: // Diners Club on the Discover network
		return n >= 16
	case p(2) == 50, p(2) >= 56 && p(2) <= 58, p(2) == 63, p(2) == 67: // Maestro
		return n >= 13
	}
	return false
}

func luhn(d string) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			if v *= 2; v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

// --- IBANs -------------------------------------------------------------------

// ibanLengths is each country's IBAN length (ISO 13616, SWIFT's registry).
const ibanLengths = "AD24AE23AL28AT20AZ28BA20BE16BG22BH22BI27BR29BY28CH21CR22CY28CZ24DE22DJ27DK18DO28" +
	"EE20EG29ES24FI18FK18FO18FR27GB22GE22GI23GL18GR27GT28HR21HU28IE22IL23IQ23IS26IT27JO30" +
	"KW30KZ20LB28LC32LI21LT20LU20LV21LY25MC27MD24ME22MK19MN20MR27MT31MU30NI28NL18NO15OM23" +
	"PK24PL28PS29PT25QA29RO24RS22RU33SA24SC31SD18SE24SI19SK24SM27SO23ST25SV28TL23TN24TR26" +
	"UA29VA22VG24XK20YE30"

func ibanLength(cc string) int {
	for i := 0; i+4 <= len(ibanLengths); i += 4 {
		if ibanLengths[i:i+2] == cc {
			return int(ibanLengths[i+2]-'0')*10 + int(ibanLengths[i+3]-'0')
		}
	}
	return 0
}

// ibanAt returns the end of the IBAN that starts at s[i] (a capital at a
// word's start), or 0: a country code, two check digits and the country's
// number of capitals and digits, contiguous or in groups of four split by
// one space, passing mod 97.
func ibanAt(s string, i int) int {
	if i+4 > len(s) || shapeClass[s[i+1]] != cUpper || shapeClass[s[i+2]] != cDigit || shapeClass[s[i+3]] != cDigit {
		return 0
	}
	n := ibanLength(s[i : i+2])
	if n == 0 {
		return 0
	}
	upperOrDigit := func(c byte) bool { return shapeClass[c]&(cUpper|cDigit) != 0 }
	var b [34]byte
	j, got := i, 0
	grouped := i+4 < len(s) && s[i+4] == ' '
	for got < n {
		if j >= len(s) {
			return 0
		}
		if grouped && got > 0 && got%4 == 0 {
			if s[j] != ' ' {
				return 0
			}
			j++
			if j >= len(s) {
				return 0
			}
		}
		if !upperOrDigit(s[j]) {
			return 0
		}
		b[got] = s[j]
		got++
		j++
	}
	if j < len(s) && wordByte(s[j]) {
		return 0
	}
	if !mod97(b[:n]) {
		return 0
	}
	return j
}

// mod97 checks an IBAN: its first four characters moved to the end, each
// letter read as two digits (A is 10), the number mod 97 is 1.
func mod97(v []byte) bool {
	r := 0
	add := func(c byte) {
		if c >= 'A' {
			r = (r*100 + int(c-'A') + 10) % 97
			return
		}
		r = (r*10 + int(c-'0')) % 97
	}
	for _, c := range v[4:] {
		add(c)
	}
	for _, c := range v[:4] {
		add(c)
	}
	return r == 1
}

// --- AWS secret access keys ---------------------------------------------------

const awsSecretLen = 40

// awsSecretAt appends s[a:b], a run of exactly 40 base64 characters, if it
// reads as an AWS secret access key: it stands alone (not part of a longer
// name, path, base64 text with padding or file name), has lower case,
// capitals and digits and is not hexadecimal (a git hash is never one),
// changes character class at least minClassChanges times (a path or a
// camel-case name changes far less), has the entropy of a random string,
// and is no documentation example.
func awsSecretAt(s string, a, b int, out []candidate) []candidate {
	if a > 0 && strings.IndexByte("_-.\\", s[a-1]) >= 0 {
		return out
	}
	if b < len(s) {
		if c := s[b]; c == '_' || c == '-' || c == '=' || c == '.' && b+1 < len(s) && wordByte(s[b+1]) {
			return out
		}
	}
	v := s[a:b]
	var seen uint8
	changes, hex := 0, true
	for i := 0; i < len(v); i++ {
		k := shapeClass[v[i]]
		seen |= k
		if i > 0 && k != shapeClass[v[i-1]] {
			changes++
		}
		if hex && !(k == cDigit || 'a' <= v[i]|0x20 && v[i]|0x20 <= 'f') {
			hex = false
		}
	}
	if seen&cAlnum != cAlnum || hex || changes < minClassChanges || entropy(v) < minAWSEntropy || isPlaceholder(v) {
		return out
	}
	return append(out, candidate{Finding{Rule: RuleAWSSecret, Start: a, End: b}, rankGeneric})
}

// A random 40-character base64 string changes class about 25 times and has
// about 4.9 bits of entropy per character; see TestAWSSecretThresholds.
const (
	minClassChanges = 14
	minAWSEntropy   = 4.3
)

// InName returns the rule whose secret a file name or key holds (a card
// number or an IBAN, as a slug writes them: lower case, words joined by
// dashes), or "". Text that is redacted before it is slugged never holds
// one; this is for names a person or an agent chose.
func InName(name string) string {
	for _, s := range []string{name, nameAsText(name)} {
		if c := findShapes(s, nil); len(c) > 0 {
			return c[0].Rule
		}
	}
	return ""
}

// nameAsText undoes a slug as far as the shapes care: capitals again, and
// a space where a dash, an underscore or a dot joined two words.
func nameAsText(name string) string {
	b := []byte(name)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c == '-' || c == '_' || c == '.':
			b[i] = ' '
		}
	}
	return string(b)
}
