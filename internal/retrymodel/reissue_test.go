package retrymodel_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/testmod"
)

// TestReissue checks retries without a loop: a Bubble Tea Update that
// answers a failure by issuing the request again (through an error
// helper that counts and sleeps, or on the error message after a tick),
// beside a refresh tick, an error shown and left, a spinner and a stream
// reading its next chunk, which are not retries.
func TestReissue(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, show, "./shapes_reissue")
}
