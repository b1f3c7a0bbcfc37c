package retrymodel_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestShapes checks retries written the ways real code writes them (waits
// and guards in helpers, raised waits, fallbacks after the last attempt,
// decisions in switches and helper classifiers) and polls that must not be
// taken for retries.
func TestShapes(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, show, "./shapes")
}

// TestSummaryFacts checks the summaries helpers export: a computed wait
// as a table, a guard helper's parameter.
func TestSummaryFacts(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, retrymodel.Analyzer, "./shapeslib")
}
