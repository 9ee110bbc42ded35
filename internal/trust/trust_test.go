package trust

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTrustFollowsTheContent(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	proj := t.TempDir()
	cfg := filepath.Join(proj, "learning.json")
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

	ok, why, err := Check(home, cfg)
	if err != nil || !ok || !strings.Contains(why, "nothing to trust") {
		t.Fatalf("missing file: %v %q %v", ok, why, err)
	}
	os.WriteFile(cfg, []byte(`{"extractor": {"command": ["my-llm"]}}`), 0o644)
	ok, why, _ = Check(home, cfg)
	if ok || !strings.Contains(why, "never been trusted") || !strings.Contains(why, "devlearn trust") {
		t.Fatalf("new file: %v %q", ok, why)
	}
	if _, err := Trust(ctx, home, cfg, nil, now); err != nil {
		t.Fatal(err)
	}
	ok, why, _ = Check(home, cfg)
	if !ok || why != "trusted on 2026-05-01" {
		t.Fatalf("trusted file: %v %q", ok, why)
	}
	fi, _ := os.Stat(Path(home))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust store mode %v", fi.Mode().Perm())
	}
	// A pulled change to the config is untrusted again.
	os.WriteFile(cfg, []byte(`{"extractor": {"command": ["curl", "evil"]}}`), 0o644)
	ok, why, _ = Check(home, cfg)
	if ok || !strings.Contains(why, "changed since you trusted it on 2026-05-01") {
		t.Fatalf("changed file: %v %q", ok, why)
	}
	// Trusting again replaces the entry instead of adding one.
	Trust(ctx, home, cfg, nil, now.Add(time.Hour))
	s, _ := Load(home)
	if len(s.Trusted) != 1 {
		t.Fatalf("%d entries", len(s.Trusted))
	}
	// The same file reached through a symbolic link is the same file.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(proj, link); err == nil {
		if ok, _, _ := Check(home, filepath.Join(link, "learning.json")); !ok {
			t.Fatal("the file through a symlink is not trusted")
		}
	}
	if found, err := Revoke(ctx, home, cfg); err != nil || !found {
		t.Fatal(found, err)
	}
	if ok, _, _ := Check(home, cfg); ok {
		t.Fatal("still trusted after revoke")
	}
}

func TestAStoreOthersCanWriteTrustsNothing(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "learning.json")
	os.WriteFile(cfg, []byte(`{}`), 0o644)
	Trust(context.Background(), home, cfg, nil, time.Now())
	os.Chmod(Path(home), 0o666)
	ok, why, _ := Check(home, cfg)
	if ok || !strings.Contains(why, "can be written by other users") {
		t.Fatalf("%v %q", ok, why)
	}
}

func TestCorruptStoreIsAnError(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "learning.json")
	os.WriteFile(cfg, []byte(`{}`), 0o644)
	os.WriteFile(Path(home), []byte("{oops"), 0o600)
	if _, _, err := Check(home, cfg); err == nil || !strings.Contains(err.Error(), "not a trust store") {
		t.Fatal(err)
	}
}
