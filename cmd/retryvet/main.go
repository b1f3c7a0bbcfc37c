// Command retryvet finds retry and deadline mistakes in Go programs.
//
// Usage:
//
//	retryvet [flags] packages...          run every analyzer (see 'retryvet help')
//	go vet -vettool=$(command -v retryvet) packages...
//	retryvet census [-format text|markdown|json] [-baseline FILE [-update]] packages...
//
// The analyzer driver is golang.org/x/tools/go/analysis/multichecker, so the
// flags, -json output, -fix and exit codes are those of x/tools; when go vet
// runs it with a .cfg file it speaks the unitchecker protocol.
package main

import (
	"os"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/deadlinecensus"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "census" {
		os.Exit(deadlinecensus.Command(os.Args[2:], os.Stdout, os.Stderr))
	}
	multichecker.Main(analyzers.All()...)
}
