package doubleretry_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestHandOffs runs retries reached through hand-offs: a wrapper that
// hands its function to retry-go, a helper that hands it on inside a
// closure, an SDK of another package whose client retries by itself; and
// their quiet lookalikes (a client without retries, RetryMax 0, a function
// handed to a goroutine, stored, or called once).
func TestHandOffs(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./handoff/...")
}
