package deadlinecensus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/deadlinecensus"
)

// TestProbe: the census's first step reports the pipeline (a retried
// remote call) and stays quiet on its caller and on remote calls nobody
// retries (a readiness poll, pagination, one call).
func TestProbe(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "probe"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, deadlinecensus.Probe, "./...")
}
