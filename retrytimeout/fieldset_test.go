package retrytimeout_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/retrytimeout"
)

// TestFieldPolicy: a retry whose statuses and backoff are struct fields
// set by a constructor (issue 11's second trial), beside the same client
// with jitter and Retry-After; and loops retrying through a code set (a
// field or a package variable written once) that holds 429 or 503 with no
// Retry-After read, beside the header read, other 5xx codes, a set changed
// elsewhere and a set only counted (issue 11, S3b).
func TestFieldPolicy(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./fieldset")
}
