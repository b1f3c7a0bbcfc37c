package retrystatus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestDataPolicies: retry policies handed to a library as data (the codes
// of an elasticsearch.Config), beside handlers, metrics labels and log
// lists of codes, a disabled retry and the library's defaults.
func TestDataPolicies(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./data")
}

// TestFieldSets: a 5xx set held in a struct field a constructor sets once,
// beside a field a setter changes and fields of codes that decide no retry.
func TestFieldSets(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./fields")
}
