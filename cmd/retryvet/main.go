// Command retryvet finds retry and deadline mistakes in Go programs.
//
// Usage:
//
//	retryvet [flags] packages...          run every analyzer (see 'retryvet help')
//	retryvet -format sarif packages...    the same, as a SARIF 2.1.0 log on stdout
//	go vet -vettool=$(command -v retryvet) packages...
//	retryvet census [-format text|markdown|json] [-baseline FILE [-update]] packages...
//
// The analyzer driver is golang.org/x/tools/go/analysis/multichecker, so the
// flags, -json output, -fix and exit codes are those of x/tools; when go vet
// runs it with a .cfg file it speaks the unitchecker protocol.
//
// -format text|json|sarif is taken out of the command line before
// multichecker sees it: text is the default, json is -json, and sarif loads
// the packages with go/packages, runs the analyzers with
// golang.org/x/tools/go/analysis/checker and writes SARIF 2.1.0 (rule ids
// are analyzer names, locations are relative to the module root). Exit
// codes are those of x/tools: 0 clean, 3 findings, 1 errors.
//
// -p99 DURATION is the p99 latency assumed for remote calls whose function
// has no //retryvet:p99 directive (the golangci-lint plugin's p99 setting);
// go vet passes it on: go vet -vettool=$(command -v retryvet) -p99=30s ./...
package main

import (
	"flag"
	"os"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/deadlinecensus"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "census" {
		os.Exit(deadlinecensus.Command(os.Args[2:], os.Stdout, os.Stderr))
	}
	format, rest, err := splitFormat(os.Args[1:])
	if err != nil {
		os.Exit(usageError(os.Stderr, err))
	}
	if format == "sarif" {
		os.Exit(runSARIF(analyzers.All(), rest, "", os.Stdout, os.Stderr))
	}
	if format != "" {
		os.Args = append(os.Args[:1], multicheckerArgs(format, rest)...)
	}
	registerP99(flag.CommandLine) // parsed by multichecker with its own flags
	registerValues(flag.CommandLine)
	multichecker.Main(analyzers.All()...)
}
