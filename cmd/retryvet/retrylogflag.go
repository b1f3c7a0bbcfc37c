package main

import (
	"flag"

	"github.com/retryvet/retryvet/analyzers/retrystatus"
)

// retryLogUsage documents -retrylog, the short form of the analyzer flag
// -retrystatus.retrylog (and the golangci-lint plugin's retrylog setting).
const retryLogUsage = "also report retries that go round again without logging, counting or tracing the decision (off by default)"

// retryLogFlag sets retrystatus's retrylog flag as soon as it is parsed,
// as p99Flag does for the model, so it works standalone and under go vet.
type retryLogFlag struct{}

func (retryLogFlag) IsBoolFlag() bool { return true }

func (retryLogFlag) String() string {
	if f := retrystatus.Analyzer.Flags.Lookup(retrystatus.RetryLogFlag); f != nil {
		return f.Value.String()
	}
	return "false"
}

func (retryLogFlag) Set(s string) error {
	return retrystatus.Analyzer.Flags.Set(retrystatus.RetryLogFlag, s)
}

func registerRetryLog(fs *flag.FlagSet) { fs.Var(retryLogFlag{}, "retrylog", retryLogUsage) }
