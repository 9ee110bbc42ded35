package gate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/trust"
)

// InForce is the gates that may run for a project (contract 4): the
// config's gates when the project file sets none or is trusted; the
// global config's alone when the project file sets gates nobody on this
// machine trusted. Untrusted says why the project's were left out.
type InForce struct {
	Gates config.Gates
	// Untrusted is empty when the project's gates are in force (or it
	// has none); otherwise what to do about them.
	Untrusted string
}

// Trusted returns the gates in force for the project at root, given its
// config as loaded (global, then project). home is $DEVLEARN_HOME.
func Trusted(home, root string, cfg *config.Config) (*InForce, error) {
	path := filepath.Join(root, filepath.FromSlash(project.ConfigFile))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !trust.ConfigSets(data).Gates) {
		return &InForce{Gates: cfg.Gates}, nil
	}
	if err != nil {
		return nil, err
	}
	ok, why, err := trust.Check(home, path)
	if err != nil {
		return nil, err
	}
	if ok {
		return &InForce{Gates: cfg.Gates}, nil
	}
	// Only what a person wrote on this machine runs: the global file.
	global := ""
	if home != "" {
		global = filepath.Join(home, config.GlobalFile)
	}
	l, err := config.Load(global, "")
	if err != nil {
		return nil, err
	}
	return &InForce{Gates: l.Gates, Untrusted: "the project's gates were not run: " + why}, nil
}
