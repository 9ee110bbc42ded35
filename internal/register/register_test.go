package register

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/gitx"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "global"))
	if _, err := ExecGit(dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRegisterIsIdempotentAndUndone(t *testing.T) {
	dir := gitRepo(t)
	s, err := Settings(ExecGit, dir)
	if err != nil || Registered(s) {
		t.Fatal(s, err)
	}
	set, err := Register(ExecGit, dir)
	if err != nil || len(set) != 2 {
		t.Fatal(set, err)
	}
	out, _ := ExecGit(dir, "config", "--get", "merge.devlearn.driver")
	if strings.TrimSpace(string(out)) != gitx.DriverCommand {
		t.Fatalf("driver %q", out)
	}
	if set, _ := Register(ExecGit, dir); len(set) != 0 {
		t.Fatal("registered twice")
	}
	if s, _ := Settings(ExecGit, dir); !Registered(s) {
		t.Fatal(s)
	}
	if ok, err := Unregister(ExecGit, dir); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := Unregister(ExecGit, dir); ok || err != nil {
		t.Fatal(ok, err)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if strings.Contains(string(cfg), "devlearn") {
		t.Fatalf("left in config:\n%s", cfg)
	}
}

func TestRoutesKeepTheRestOfTheFile(t *testing.T) {
	mine := "*.png binary\n# mine\n*.sh text eol=lf"
	out, added := WithRoutes([]byte(mine))
	if len(added) != len(routes())-1 || !strings.HasPrefix(string(out), mine+"\n\n# devlearn") {
		t.Fatalf("%q\n%s", added, out)
	}
	again, added2 := WithRoutes(out)
	if len(added2) != 0 || string(again) != string(out) {
		t.Fatal("added twice")
	}
	back, removed := WithoutRoutes(out)
	if len(removed) != len(added) || string(back) != mine+"\n" {
		t.Fatalf("%q", back)
	}
	if empty, _ := WithRoutes(nil); !strings.HasPrefix(string(empty), "# devlearn") {
		t.Fatalf("%q", empty)
	}
	// git itself routes every devlearn file to the driver.
	dir := gitRepo(t)
	os.WriteFile(filepath.Join(dir, ".gitattributes"), out, 0o644)
	missing, err := Routed(ExecGit, dir)
	if err != nil || len(missing) != 0 {
		t.Fatal(missing, err)
	}
	os.WriteFile(filepath.Join(dir, ".gitattributes"), back, 0o644)
	if missing, _ := Routed(ExecGit, dir); len(missing) != len(SamplePaths) {
		t.Fatal(missing)
	}
}
