// Package contenthash is how devlearn tells whether a file is still what it
// wrote: sha256 in hex, and devflow's djb2 for manifests devflow wrote. A
// leaf, so that trust, git helpers and knowledge files compare hashes the
// manifest's way without depending on the manifest.
package contenthash

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Hash is the content hash devlearn records: sha256 in hex.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// IsLegacyHash tells devflow's 32-bit hashes from devlearn's sha256.
func IsLegacyHash(h string) bool { return len(h) > 0 && len(h) < 64 }

// Matches reports whether content has the recorded hash, reading devflow's
// djb2 hashes too.
func Matches(recorded string, content []byte) bool {
	if IsLegacyHash(recorded) {
		want := strings.TrimLeft(strings.ToLower(recorded), "0")
		return strings.TrimLeft(DJB2(string(content)), "0") == want
	}
	return recorded == Hash(content)
}

// DJB2 is devflow's hash: djb2 over UTF-16 code units, as JavaScript's
// charCodeAt sees them, kept to 32 bits, in hex.
func DJB2(s string) string {
	h := uint32(5381)
	for _, c := range utf16.Encode([]rune(s)) {
		h = h*33 + uint32(c)
	}
	return strconv.FormatUint(uint64(h), 16)
}
