package main

import (
	"flag"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/doubleretry"
)

// The opt-in checks have a short flag each, the same as the analyzer's
// own: -retrylog is -retrystatus.retrylog, -sideeffects is
// -doubleretry.sideeffects (and the golangci-lint plugin's settings of
// those names).
const (
	retryLogUsage    = "also report retries that go round again without logging, counting or tracing the decision (off by default)"
	sideEffectsUsage = "also report writes a retry repeats and POSTs it sends again with no idempotency key (off by default)"
)

// optInFlag sets an analyzer's flag as soon as it is parsed, as p99Flag
// does for the model, so it works standalone and under go vet.
type optInFlag struct {
	a    *analysis.Analyzer
	name string
}

func (optInFlag) IsBoolFlag() bool { return true }

func (f optInFlag) String() string {
	if f.a == nil {
		return "false" // the zero value flag.PrintDefaults makes
	}
	if fl := f.a.Flags.Lookup(f.name); fl != nil {
		return fl.Value.String()
	}
	return "false"
}

func (f optInFlag) Set(s string) error { return f.a.Flags.Set(f.name, s) }

func registerOptIns(fs *flag.FlagSet) {
	fs.Var(optInFlag{retrystatus.Analyzer, retrystatus.RetryLogFlag}, "retrylog", retryLogUsage)
	fs.Var(optInFlag{doubleretry.Analyzer, doubleretry.SideEffectsFlag}, "sideeffects", sideEffectsUsage)
}
