package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Go runs the initialisation of every package a binary links before
// main, so what a hook costs to start is decided by the import graph of
// this entry point. These tests guard that graph, not a timing: a timed
// test would fail on a loaded machine and pass a slow change on a quiet
// one.

// heavy are packages a hook must never link, with why. A prefix ending
// in "/" covers the packages under it; any other entry is one package.
var heavy = map[string]string{
	"github.com/charmbracelet/":                       "terminal UI (huh, bubbletea, lipgloss): init queries and tables a hook never shows",
	"charm.land/":                                     "terminal UI, v2 (huh, bubbletea, bubbles, lipgloss): init queries and tables a hook never shows",
	"github.com/atotto/clipboard":                     "clipboard: looks for helper programs at init",
	"github.com/go-git/go-git/v5":                     "go-git's root package: registers every transport (http, ssh, git) at init",
	"github.com/go-git/go-git/v5/plumbing/transport/": "git transports and their crypto",
	"github.com/ProtonMail/go-crypto/":                "openpgp crypto of go-git's signing",
	"golang.org/x/crypto/ssh":                         "ssh crypto of go-git's transports",
	"github.com/modelcontextprotocol/":                "the MCP SDK",
	"github.com/spf13/cobra":                          "devlearn's command tree: every command's packages",
	"github.com/devlearn/devlearn/internal/cli":       "devlearn's command tree: every command's packages",
	"github.com/devlearn/devlearn/internal/gitx":      "the merge machinery links go-git's root package",
	"net":           "the network stack: a hook never talks to a network",
	"net/http":      "HTTP client and server",
	"crypto/tls":    "TLS: certificate and cipher tables",
	"crypto/x509":   "certificate parsing",
	"encoding/gob":  "its init registers types: a quarter of a millisecond on every hook",
	"text/template": "its execution links net/url and net/netip (0.05 ms of init on every hook): render walks the parsed templates",
	"net/url":       "a hook parses no URL; it links net/netip",
}

// cheap are the modules outside the standard library and devlearn that
// the hook path may link, each measured with GODEBUG=inittrace=1: tens of
// microseconds of initialisation or less, but for the front matter
// library the design names, whose cost is counted in the hook's budget.
// Adding one means measuring it first (docs/benchmarks.md, "Start-up").
var cheap = []string{
	"github.com/go-json-experiment/json",
	"golang.org/x/sys/",
	"golang.org/x/text/",
	"github.com/gofrs/flock",
	"github.com/pjbgf/sha1cd",
	"github.com/go-git/go-git/v5/plumbing",
	"github.com/go-git/go-git/v5/utils/binary",
	"gopkg.in/yaml.v3",
	"github.com/bmatcuk/doublestar/v4",
	"github.com/rogpeppe/go-internal/diff", // internal/evolve's diffs: no init at all
	"github.com/cespare/xxhash/v2",         // the fold's line ids: no init at all
	// adrg/frontmatter finds the front matter of the entries a hook
	// serves; with the YAML and TOML decoders it links, 0.15–0.2 ms.
	"github.com/adrg/frontmatter",
	"gopkg.in/yaml.v2",
	"github.com/BurntSushi/toml",
}

type pkg struct {
	path     string
	standard bool
}

// deps lists the packages the main package at path links.
func deps(t *testing.T, path string) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", path).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", path, err, stderr)
	}
	var ps []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		p, std, _ := strings.Cut(line, " ")
		ps = append(ps, pkg{path: p, standard: std == "true"})
	}
	return ps
}

// under reports whether package p is path, or lies under path when path
// ends in "/" (or is a module whose packages are all meant).
func under(p, path string) bool {
	if strings.HasSuffix(path, "/") {
		return strings.HasPrefix(p, path)
	}
	return p == path
}

// problems lists what the import graph ps links that a hook must not.
func problems(ps []pkg) []string {
	var out []string
	for _, p := range ps {
		found := false
		for h, why := range heavy {
			if under(p.path, h) && !found {
				out = append(out, p.path+": "+why)
				found = true
			}
		}
		if found || p.standard || strings.HasPrefix(p.path, "github.com/devlearn/devlearn/") {
			continue
		}
		ok := false
		for _, c := range cheap {
			ok = ok || p.path == c || strings.HasPrefix(p.path, strings.TrimSuffix(c, "/")+"/")
		}
		if !ok {
			out = append(out, p.path+": not measured for the hook path (measure its init with GODEBUG=inittrace=1, then add it to cheap)")
		}
	}
	return out
}

// TestHookPathImports is the guard: devlearn-hook, which every tool call
// of every session starts, links none of the heavy packages and only
// third-party packages measured cheap to initialise. Its initialisation
// then stays under a millisecond by construction (docs/benchmarks.md).
func TestHookPathImports(t *testing.T) {
	ps := deps(t, "github.com/devlearn/devlearn/cmd/devlearn-hook")
	for _, want := range []string{"github.com/devlearn/devlearn/internal/hook", "github.com/devlearn/devlearn/internal/hud", "github.com/devlearn/devlearn/internal/reconcile"} {
		found := false
		for _, p := range ps {
			found = found || p.path == want
		}
		if !found {
			t.Errorf("devlearn-hook does not link %s: it must serve every hook event and the status line", want)
		}
	}
	for _, p := range problems(ps) {
		t.Errorf("the hook path links %s", p)
	}
}

// TestTheGuardCanFail runs the same check on devlearn itself, which links
// the terminal UI and go-git for its other commands: the check must see
// them.
func TestTheGuardCanFail(t *testing.T) {
	got := strings.Join(problems(deps(t, "github.com/devlearn/devlearn/cmd/devlearn")), "\n")
	for _, want := range []string{"charm.land/huh/v2: ", "github.com/go-git/go-git/v5: ", "net/http: ", "github.com/devlearn/devlearn/internal/cli: "} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %s in devlearn's graph:\n%s", want, got)
		}
	}
}
