package plugin

import (
	"os"
	"sync"

	"github.com/retryvet/retryvet/internal/inputs"
)

// The analyzers read no file (internal/inputs): like the other drivers,
// the plugin finds the values file and the manifests of the module
// golangci-lint runs in and declares them. Once per working directory:
// each per-analyzer plugin asks, and collecting walks the module.
var declared struct {
	sync.Mutex
	dir string
	err error
}

func declareInputs() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	declared.Lock()
	defer declared.Unlock()
	if declared.dir == wd {
		return declared.err
	}
	found, err := inputs.Discover(wd, "")
	if err == nil {
		err = found.Declare()
	}
	declared.dir, declared.err = wd, err
	return err
}
