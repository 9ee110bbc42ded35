package gitx

import "testing"

func TestIsMarkerLine(t *testing.T) {
	for line, want := range map[string]bool{
		"<<<<<<< HEAD":         true,
		"|||||||":              true,
		"=======\n":            true,
		">>>>>>> theirs\r\n":   true,
		"<<<<<<<< wide marker": true,
		"<<<<<< short":         false,
		"=======x":             false,
		`{"op":"observe"}`:     false,
		"":                     false,
	} {
		if got := IsMarkerLine([]byte(line)); got != want {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}
