package redact

// keywordIndex finds every occurrence of a set of keywords in one pass over
// the text, ignoring ASCII case, without copying or lower-casing the text
// and without allocating when no keyword occurs. This is the prefilter that
// keeps redaction nearly free on text without secrets: no regex runs unless
// one of its rule's keywords is present.
//
// Two bitsets that stay in cache answer "could a keyword start here?" for
// each position, one over the first three bytes of the keywords (hashed),
// one over the first two bytes of the few two-byte keywords; only then are
// the keywords sharing that start compared. An Aho-Corasick automaton
// (github.com/BobuSumisu/aho-corasick, which gitleaks uses) was measured
// against it on the same 246 keywords and 285 KB transcript: it took 2.6 ms
// and 2.9 MB to build (a 256-way table per state), against 0.2-0.35 ms and
// 0.29 MB for a whole Redactor, and scanned at ~80 MB/s, the text first
// lower-cased into a copy since it matches exact bytes, against 140-230
// MB/s here (2-core machine shared with other work; medians of 2-3 runs).
type keywordIndex struct {
	words   []string        // lower case, at least 2 bytes
	rules   [][]int         // word -> indices of the rules it triggers
	two     [1 << 10]uint64 // bit per bigram: a two-byte word is it
	three   [1 << 10]uint64 // bit per trigram hash: a longer word starts with it
	slot    []uint16        // bigram -> 1 + index in buckets, 0 for none
	buckets [][]int         // words sharing a first bigram
	ids     map[string]int  // word -> its index in words
}

type hit struct {
	start, end int
	word       int
}

var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func bigram(a, b byte) uint16 { return uint16(lowerTable[a])<<8 | uint16(lowerTable[b]) }

// trigram hashes three bytes, ASCII case folded, to 16 bits.
func trigram(a, b, c byte) uint16 {
	return uint16(lowerTable[a])<<10 ^ uint16(lowerTable[b])<<5 ^ uint16(lowerTable[c])
}

// add registers word (any case, at least 2 bytes) as a keyword of rule.
func (k *keywordIndex) add(word string, rule int) {
	word = asciiLower(word)
	if id, ok := k.ids[word]; ok {
		k.rules[id] = append(k.rules[id], rule)
		return
	}
	if k.ids == nil {
		k.ids = map[string]int{}
		k.slot = make([]uint16, 1<<16)
	}
	id := len(k.words)
	k.ids[word] = id
	k.words = append(k.words, word)
	k.rules = append(k.rules, []int{rule})
	bg := bigram(word[0], word[1])
	if len(word) == 2 {
		k.two[bg>>6] |= 1 << (bg & 63)
	} else {
		h := trigram(word[0], word[1], word[2])
		k.three[h>>6] |= 1 << (h & 63)
	}
	if k.slot[bg] == 0 {
		k.buckets = append(k.buckets, nil)
		k.slot[bg] = uint16(len(k.buckets))
	}
	b := k.slot[bg] - 1
	k.buckets[b] = append(k.buckets[b], id)
}

// scan appends every keyword occurrence in s to hits, in order of position.
func (k *keywordIndex) scan(s string, hits []hit) []hit {
	if len(s) < 2 || k.slot == nil {
		return hits
	}
	two, three, low := &k.two, &k.three, &lowerTable
	l0, l1 := low[s[0]], low[s[1]]
	for i := 0; i+1 < len(s); i++ {
		var l2 byte // past the end: no three-byte word can start here anyway
		if i+2 < len(s) {
			l2 = low[s[i+2]]
		}
		bg := uint16(l0)<<8 | uint16(l1)
		h := uint16(l0)<<10 ^ uint16(l1)<<5 ^ uint16(l2)
		if two[bg>>6]&(1<<(bg&63)) != 0 || three[h>>6]&(1<<(h&63)) != 0 {
			hits = k.verify(s, i, bg, hits)
		}
		l0, l1 = l1, l2
	}
	return hits
}

// verify compares the words starting with bigram bg against s[i:].
func (k *keywordIndex) verify(s string, i int, bg uint16, hits []hit) []hit {
	b := k.slot[bg]
	if b == 0 {
		return hits // a hash collision
	}
	for _, id := range k.buckets[b-1] {
		w := k.words[id]
		if len(s)-i >= len(w) && hasPrefixFold(s[i:], w) {
			hits = append(hits, hit{start: i, end: i + len(w), word: id})
		}
	}
	return hits
}

// hasPrefixFold reports whether s starts with the lower-case word, ignoring
// ASCII case in s.
func hasPrefixFold(s, word string) bool {
	for i := 2; i < len(word); i++ {
		if lowerTable[s[i]] != word[i] {
			return false
		}
	}
	return true
}

// asciiLower lower-cases only ASCII letters, the folding scan applies to the
// text; strings.ToLower would also change non-ASCII bytes that the scan
// compares as they are.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerTable[c]
	}
	return string(b)
}
