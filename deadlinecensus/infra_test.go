package deadlinecensus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/deadlinecensus"
)

// TestInfra: route timeouts of the manifests in testdata/infra/deploy are
// deadlines on the handlers they serve (a module of its own, so its
// manifests reach no other testdata).
func TestInfra(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "infra"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, deadlinecensus.Analyzer, "./...")
}
