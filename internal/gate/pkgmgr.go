package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PackageManagers are the JavaScript package managers a preset's commands
// are written for; the presets are written for npm (ClawFlow's).
var PackageManagers = []string{"npm", "pnpm", "yarn", "bun"}

// pmForms are each package manager's forms of npm's two commands: run a
// package's binary (npx) and run the test script. Bun's is 'bun run test':
// 'bun test' runs bun's own test runner, not the project's script.
var pmForms = map[string]struct{ exec, test string }{
	"npm":  {"npx ", "npm test"},
	"pnpm": {"pnpm exec ", "pnpm test"},
	"yarn": {"yarn ", "yarn test"},
	"bun":  {"bunx ", "bun run test"},
}

// pmLocks are the lock files that name a package manager, in the order a
// folder holding several is read.
var pmLocks = []struct{ file, pm string }{
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"bun.lockb", "bun"},
	{"bun.lock", "bun"},
	{"package-lock.json", "npm"},
}

// DetectPackageManager says which package manager the project at root
// uses, and why: package.json's packageManager field (what Corepack
// reads) first, else the lock file there, else npm.
func DetectPackageManager(root string) (pm, why string) {
	if data, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil {
		var pkg struct {
			PackageManager string `json:"packageManager"`
		}
		if json.Unmarshal(data, &pkg) == nil && pkg.PackageManager != "" {
			name, _, _ := strings.Cut(pkg.PackageManager, "@")
			if _, ok := pmForms[name]; ok {
				return name, "package.json packageManager"
			}
		}
	}
	for _, l := range pmLocks {
		if _, err := os.Stat(filepath.Join(root, l.file)); err == nil {
			return l.pm, l.file
		}
	}
	return "npm", "no packageManager field or lock file of another"
}

// ForPackageManager returns the preset with its npm commands written for
// pm ("npx X" → "pnpm exec X", "npm test" → "pnpm test"); npm, or a preset
// with no npm command, is returned as it is.
func (p *Preset) ForPackageManager(pm string) (*Preset, error) {
	f, ok := pmForms[pm]
	if !ok {
		return nil, fmt.Errorf("package manager %q is not one of %s", pm, strings.Join(PackageManagers, ", "))
	}
	if pm == "npm" {
		return p, nil
	}
	var gates any
	if err := json.Unmarshal(p.raw, &gates); err != nil {
		return nil, err
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if cmd, ok := t["command"].(string); ok {
				t["command"] = npmTo(cmd, f.exec, f.test)
			}
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(gates)
	raw, err := json.Marshal(gates)
	if err != nil {
		return nil, err
	}
	q := *p
	q.raw = raw
	return &q, nil
}

// UsesNPM reports whether any of the preset's commands runs npm or npx.
func (p *Preset) UsesNPM() bool {
	for _, g := range All(p.Gates) {
		if npmTo(g.Command, "", "") != g.Command {
			return true
		}
	}
	return false
}

func npmTo(cmd, exec, test string) string {
	switch {
	case strings.HasPrefix(cmd, "npx "):
		return exec + strings.TrimPrefix(cmd, "npx ")
	case cmd == "npm test" || strings.HasPrefix(cmd, "npm test "):
		return test + strings.TrimPrefix(cmd, "npm test")
	}
	return cmd
}
