package retrytimeout_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/retrytimeout"
)

// TestSharedAttemptCtx: a retry that runs a handler again on the same
// message, beside a middleware of that type that leaves the message on a
// cancelled context; and the retries and middlewares that do not.
func TestSharedAttemptCtx(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./sharedctx")
}
