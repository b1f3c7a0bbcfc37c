package retrytimeout_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/retrytimeout"
)

// TestAttemptBudgetTotal: a deadline set once around a whole retry with
// one attempt's budget, beside total budgets and per-attempt timeouts.
func TestAttemptBudgetTotal(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./attemptbudget/...")
}
