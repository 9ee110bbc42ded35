package redact

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// Test secrets are generated, never stored: the corpus and the tables
// write {{kind N}} where a key would be, so that no secret scanner (nor a
// reader) mistakes devlearn's test data for leaked credentials, and so that
// every run checks the same random-looking values (the generator is seeded).

// alphabet returns the characters of a {{kind N}} template ("" if kind is
// unknown). A switch, not a map, keeps the package's init free of test data
// (BenchmarkProcessStart reports that init).
func alphabet(kind string) string {
	switch kind {
	case "alnum":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	case "alpha":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	case "lalnum":
		return "abcdefghijklmnopqrstuvwxyz0123456789"
	case "lower":
		return "abcdefghijklmnopqrstuvwxyz"
	case "upper":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	case "digits":
		return "0123456789"
	case "hex":
		return "0123456789abcdef"
	case "HEX":
		return "0123456789ABCDEF"
	case "b64":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	case "b64url":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	case "base32":
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	case "age":
		return "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	}
	return ""
}

// expand replaces the {{kind N}} templates in s with generated text:
// N characters of an alphabet above, {{uuid}}, {{pem N}} (N lines of
// base64 joined by newlines) or {{pemesc N}} (joined by a JSON-escaped \n).
func expand(s string, rng *rand.Rand) string {
	templateRE := regexp.MustCompile(`\{\{([a-zA-Z0-9]+)(?: ([0-9]+))?\}\}`)
	return templateRE.ReplaceAllStringFunc(s, func(t string) string {
		m := templateRE.FindStringSubmatch(t)
		kind := m[1]
		n, _ := strconv.Atoi(m[2])
		switch kind {
		case "uuid":
			return fmt.Sprintf("%s-%s-%s-%s-%s", random(rng, "hex", 8), random(rng, "hex", 4),
				random(rng, "hex", 4), random(rng, "hex", 4), random(rng, "hex", 12))
		case "pem", "pemesc":
			lines := make([]string, n)
			for i := range lines {
				lines[i] = random(rng, "b64", 64)
			}
			lines = append(lines, random(rng, "b64", 20)+"==")
			sep := "\n"
			if kind == "pemesc" {
				sep = `\n`
			}
			return strings.Join(lines, sep)
		}
		if alphabet(kind) == "" || n == 0 {
			panic("unknown template " + t)
		}
		return random(rng, kind, n)
	})
}

func random(rng *rand.Rand, kind string, n int) string {
	a := alphabet(kind)
	b := make([]byte, n)
	for i := range b {
		b[i] = a[rng.IntN(len(a))]
	}
	return string(b)
}
