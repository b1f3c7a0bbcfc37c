package doubleretry_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestInfra: the retries of the mesh in testdata/infra/deploy are a layer
// outside the handlers they serve (a module of its own, so its manifests
// reach no other testdata).
func TestInfra(t *testing.T) {
	dir := filepath.Join("testdata", "infra")
	testmod.Download(t, dir)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The manifests are an input a driver declares (the standalone and go vet
	// collect them from the module); the analyzers read no file themselves.
	infra.Use(infra.Collect(abs))
	t.Cleanup(func() { infra.Use(nil) })
	sideEffectsOn(t) // a route that retries a handler that writes (api.go)
	analysistest.Run(t, abs, doubleretry.Analyzer, "./...")
}
