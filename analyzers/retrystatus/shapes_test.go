package retrystatus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestPollsAndFieldSets: OAuth device-code polls whose 403/404 mean
// "pending" (quiet) beside a retry of the same codes, and 5xx sets held in
// a struct field or a package variable beside range checks (issue 11).
func TestPollsAndFieldSets(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./devicepoll", "./fieldset")
}
