package trust

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/devlearn/devlearn/internal/contenthash"
)

// SameCommands reports whether two contents of a project config set the
// same things that need trust (every key under "extractor" and "gates",
// as ConfigSets counts them): what either lets run is the same.
func SameCommands(before, after []byte) bool {
	type part struct {
		Extractor any `json:"extractor"`
		Gates     any `json:"gates"`
	}
	var a, b part
	if json.Unmarshal(before, &a) != nil || json.Unmarshal(after, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// Carry moves the trust of the config at path from its content before to
// its content after, when the person changed only keys that need no trust
// ('learn --configure --set worker.batch_size=5'): the commands the
// person trusted are the same, so asking again would only teach them to
// trust without reading. Nothing is carried unless before was trusted and
// SameCommands holds; it reports whether trust was carried.
func Carry(ctx context.Context, home, path string, before, after []byte) (bool, error) {
	if home == "" || !SameCommands(before, after) {
		return false, nil
	}
	c, err := canonical(path)
	if err != nil {
		return false, err
	}
	was, now := contenthash.Hash(before), contenthash.Hash(after)
	if s, err := Load(home); err != nil || !slices.ContainsFunc(s.Trusted, func(e Entry) bool { return e.Path == c && e.SHA256 == was }) {
		return false, err
	}
	carried := false
	err = update(ctx, home, func(s *Store) {
		for i := range s.Trusted {
			if e := &s.Trusted[i]; e.Path == c && e.SHA256 == was {
				e.SHA256, carried = now, true
			}
		}
	})
	return carried, err
}
