package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// Every Stop hook asks which gates are in force, gates or none: a project
// config without gates costs one read of it.
func BenchmarkTrustedNoGates(b *testing.B) {
	home, root := b.TempDir(), b.TempDir()
	os.MkdirAll(filepath.Join(root, ".memory"), 0o755)
	os.WriteFile(filepath.Join(root, ".memory", "learning.json"), []byte(`{"$schema": "./learning.schema.json", "enabled": true}`), 0o644)
	cfg := config.Default()
	for b.Loop() {
		if in, err := Trusted(home, root, cfg); err != nil || len(in.Gates.Stop) != 0 {
			b.Fatal(in, err)
		}
	}
}

func BenchmarkExpandCommand(b *testing.B) {
	for b.Loop() {
		ExpandCommand(`cd {{worktree}} && test -d "{{project_path}}/.memory" && echo '{{worktree}}'`)
	}
}
