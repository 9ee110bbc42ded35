package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's install line works on a machine where Go's bin folder does
// not exist yet (it used to be `cp bin/devlearn ~/go/bin/`, which failed
// there).
func TestMakeInstallMakesTheFolder(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\nmake install ") {
		t.Fatal("the README no longer installs with make install: test its install line instead")
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "no", "such", "bin")
	cmd := exec.Command("make", "install", "INSTALL_DIR="+dir, "BIN="+filepath.Join(tmp, "build", "devlearn"))
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "is not on your PATH") {
		t.Errorf("make install did not say the folder is not on the PATH:\n%s", out)
	}
	out, err := exec.Command(filepath.Join(dir, "devlearn"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "devlearn ") {
		t.Fatalf("the installed devlearn: %v %s", err, out)
	}
	// devlearn-hook is installed beside it: the hooks 'devlearn init'
	// registers run it first, and it starts the worker from that devlearn.
	out, err = exec.Command(filepath.Join(dir, "devlearn-hook"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "devlearn-hook ") {
		t.Fatalf("the installed devlearn-hook: %v %s", err, out)
	}
}
