package deadlinecensus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/deadlinecensus"
	"github.com/retryvet/retryvet/internal/testmod"
)

func TestAnalyzer(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, deadlinecensus.Analyzer, "./...")
}
