package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// No string a fold keeps is a view of the mapped log: the mapping goes
// when the fold is done, and a string read after that faults outside the
// fold's guard and kills the process (a hook, a server). Every kind of
// line is folded from a mapping, each with an event id of its own, and
// every string the states hold is checked to lie outside it.
func TestFoldKeepsNoViewOfTheMapping(t *testing.T) {
	lines := randomLogWithEIDs(t)
	data := bytes.Join(append(lines, nil), []byte("\n"))
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, unmap, ok := mapFile(mustOpen(t, path), int64(len(data)))
	if !ok {
		t.Skip("no mapping of files here")
	}
	defer unmap()
	l, err := foldInto(nil, &mappedLog{data: m}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	hi := lo + uintptr(len(m))
	seen := map[uintptr]bool{}
	var walk func(where string, v reflect.Value)
	walk = func(where string, v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if s := v.String(); len(s) > 0 {
				if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p >= lo && p < hi {
					t.Errorf("%s %q is a view of the mapped log", where, s)
				}
			}
		case reflect.Pointer:
			if !v.IsNil() && !seen[v.Pointer()] {
				seen[v.Pointer()] = true
				walk(where, v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(where+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(where, v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(where+"[key]", it.Key())
				walk(where, it.Value())
			}
		}
	}
	for id, s := range l.states {
		walk("state "+id, reflect.ValueOf(s))
	}
}

// randomLogWithEIDs is randomLog's lines, each given an event id, so that
// every kind of line (devflow lines too) has one to keep, and snapshots of
// the states they fold to.
func randomLogWithEIDs(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for i, line := range randomLog(rand.New(rand.NewSource(7)), 2_000) {
		if !bytes.HasPrefix(line, []byte("{")) {
			t.Fatalf("line %d is not an object: %s", i+1, line)
		}
		if !bytes.Contains(line, []byte(`"eid":`)) {
			line = append([]byte(fmt.Sprintf(`{"eid":"e%d",`, i)), line[1:]...)
		}
		out = append(out, line)
	}
	// Snapshot lines (compaction's) of what those lines fold to.
	for _, s := range fold(t, out).states {
		b, err := json.Marshal(s.snapshot())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
