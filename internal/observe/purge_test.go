package observe

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestPurgeDropsOnlyCorruptLines(t *testing.T) {
	dir := t.TempDir()
	st := Store{Root: dir, Path: filepath.Join(dir, "log.jsonl"), LockPath: filepath.Join(dir, "log.lock")}
	good := `{"op":"observe","eid":"a1","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_1","type":"pitfall","pattern":"P"}`
	future := `{"op":"teleport","eid":"z","at":"2026-05-04T09:00:00Z","id":"obs_1"}`
	os.WriteFile(st.Path, []byte(good+"\nnot json\n"+future+"\n{\"op\":\"observe\",\"id\":\"obs_2\"}\n{\"id\":"), 0o644)
	var written []byte
	dropped, err := st.Purge(context.Background(), func(b []byte) error { written = b; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 3 || dropped[0].Line != 2 || dropped[1].Line != 4 || dropped[2].Line != 5 || !dropped[2].Torn {
		t.Fatalf("dropped %+v", dropped)
	}
	if string(written) != good+"\n"+future+"\n" {
		t.Fatalf("kept %q", written)
	}
	os.WriteFile(st.Path, written, 0o644)
	if d, _ := st.Purge(context.Background(), func([]byte) error { t.Fatal("wrote a clean log"); return nil }); len(d) != 0 {
		t.Fatal(d)
	}
}
