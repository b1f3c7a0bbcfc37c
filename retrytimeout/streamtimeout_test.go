package retrytimeout_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/retrytimeout"
)

// TestStreamHelpers: total timeouts on bodies streamed through helpers,
// to callbacks, or with a config default, beside bodies that are no stream.
func TestStreamHelpers(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./streamhelper")
}
