package deadlinecensus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/deadlinecensus"
	"github.com/retryvet/retryvet/internal/infra"
)

// TestInfra: route timeouts of the manifests in testdata/infra/deploy are
// deadlines on the handlers they serve (a module of its own, so its
// manifests reach no other testdata).
func TestInfra(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "infra"))
	if err != nil {
		t.Fatal(err)
	}
	// The manifests are an input a driver declares (the standalone and go vet
	// collect them from the module); the analyzers read no file themselves.
	infra.Use(infra.Collect(dir))
	t.Cleanup(func() { infra.Use(nil) })
	analysistest.Run(t, dir, deadlinecensus.Analyzer, "./...")
}
