package render

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// field is one key of an artifact's front matter. A literal value is
// written as it stands (a YAML bool the artifact's reader must see as a
// bool); every other value is learned text and is written so that it
// reads back as exactly that string.
type field struct {
	key, value string
	literal    bool
}

// frontMatter writes the YAML front matter of an artifact: one "key: value"
// line per field, so that no learned text can close the block, add a key
// or read back as anything but its own string.
//
// It is written here rather than by yaml.v3's encoder, which built a node
// tree and ran its emitter for every artifact (about a tenth of a bulk
// render's plan). The output is yaml.v3's for every value yaml.v3 wrote
// back as its own string (TestFrontMatterAsYAMLv3Wrote); where yaml.v3
// wrote a value plain that reads back as another type ("null", "false",
// "123", "yes"), or as null (""), it is quoted (TestFrontMatterReadsBack).
func frontMatter(fields ...field) string {
	var b strings.Builder
	for _, f := range fields {
		b.WriteString(scalar(f.key))
		b.WriteString(": ")
		if f.literal {
			b.WriteString(f.value)
		} else {
			b.WriteString(scalar(f.value))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// text is a front matter field of learned text.
func text(key, value string) field { return field{key: key, value: value} }

// scalar is s as a YAML scalar that reads back as the string s, in the
// plainest style that does so safely: plain for ordinary text, single
// quotes for printable text that plain would misread, double quotes with
// escapes for anything else. Invalid UTF-8 cannot be a YAML string: each
// bad byte is written as U+FFFD, as a JSON decoder would have read it.
func scalar(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	switch {
	case plainSafe(s):
		return s
	case printable(s):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return doubleQuoted(s)
}

// plainSafe is whether s can be written without quotes and read back by
// any YAML parser (1.1 or 1.2) as the string s: it begins with a letter
// (no indicator, sign, digit, dot or space: so no number, date, ".inf",
// "~", "---" or "- item"), holds only printable characters, has no ": "
// or " #" (a key or a comment), does not end in ":" or a space, and is not
// a word that reads as a bool or null.
func plainSafe(s string) bool {
	first, _ := utf8.DecodeRuneInString(s)
	if s == "" || !unicode.IsLetter(first) || !printable(s) {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, " ") {
		return false
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
			return false
		}
	}
	return true
}

// printable is whether every character of s is one YAML writes as itself
// inside quotes or plain: printable ASCII, or a printable letter, mark,
// number, punctuation or symbol of the BMP beyond Latin-1's controls. Line
// breaks (U+0085, U+2028, U+2029), tabs, the byte order mark, format and
// private characters are not; nor, as yaml.v3 had it, is anything beyond
// the BMP (an emoji is escaped, as it was).
func printable(s string) bool {
	for _, r := range s {
		if !printableRune(r) {
			return false
		}
	}
	return true
}

func printableRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r != 0x7f
	}
	return r >= 0xa0 && r <= 0xffff && r != 0xfeff && unicode.IsPrint(r)
}

// doubleQuoted is s in YAML's double quotes, every character printable
// does not accept escaped (YAML's \xXX, \uXXXX and \UXXXXXXXX are code
// points, as Go's are).
func doubleQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case printableRune(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			b.WriteString(hex(uint32(r), 2))
		case r <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(hex(uint32(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hex(uint32(r), 8))
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex(v uint32, width int) string {
	h := strconv.FormatUint(uint64(v), 16)
	return strings.Repeat("0", width-len(h)) + strings.ToUpper(h)
}
