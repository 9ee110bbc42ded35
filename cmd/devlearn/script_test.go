package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"devlearn": func() { os.Exit(run()) },
	})
}

// TestScript runs every testdata/script/*.txtar against the real binary.
// Each script gets its own $HOME and $DEVLEARN_HOME, never the real ones.
func TestScript(t *testing.T) {
	testscript.Run(t, scriptParams(t, "../../testdata/script"))
}
