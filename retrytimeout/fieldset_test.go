package retrytimeout_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/retrytimeout"
)

// TestFieldPolicy: a retry whose statuses and backoff are struct fields
// set by a constructor (issue 11's second trial), beside the same client
// with jitter and Retry-After.
func TestFieldPolicy(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./fieldset")
}
