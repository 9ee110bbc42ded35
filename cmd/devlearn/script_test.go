package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/devlearn/devlearn/internal/hookcmd"
)

func TestMain(m *testing.M) {
	// The test binary itself, not a script's devlearn or devlearn-hook,
	// which run in the script's own home.
	if name := filepath.Base(os.Args[0]); name != "devlearn" && name != "devlearn-hook" {
		isolateHome()
	}
	testscript.Main(m, map[string]func(){
		"devlearn": func() { os.Exit(run()) },
		// The hook binary, as cmd/devlearn-hook runs it.
		"devlearn-hook": func() { os.Exit(hookcmd.Main(hookcmd.SystemEnv(), os.Args[1:])) },
	})
}

// TestScript runs every testdata/script/*.txtar against the real binary.
// Each script gets its own $HOME and $DEVLEARN_HOME, never the real ones.
func TestScript(t *testing.T) {
	p := scriptParams(t, "../../testdata/script")
	p.UpdateScripts = *updateScripts
	testscript.Run(t, p)
}

// -update rewrites the expected files of `cmp stdout want` lines in the
// scripts from the actual output; review the diff before committing.
var updateScripts = flag.Bool("update", false, "update testscript cmp files from actual output")
