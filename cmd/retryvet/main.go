// Command retryvet finds retry and deadline mistakes in Go programs.
//
// Usage:
//
//	retryvet [flags] packages...          run every analyzer (see 'retryvet help')
//	retryvet -format sarif packages...    the same, as a SARIF 2.1.0 log on stdout
//	go vet -vettool=$(command -v retryvet) packages...
//	retryvet census [-format text|markdown|json] [-baseline FILE [-update]] packages...
//	retryvet inputs [-values FILE] [-root DIR]   the nogo configuration of the module's inputs (docs/nogo.md)
//	retryvet help [census|NAME]
//
// The standalone command is a front end to the go command's vet driver: it
// runs `go vet -vettool=<this binary> -json` on the packages, so that
// findings and facts are computed one package at a time, dependencies are
// read from export data and fact files, and results are cached by the go
// command across runs. It then prints vet's JSON the way the
// golang.org/x/tools drivers do (text, -json, -format sarif; exit codes 0
// clean, 3 findings, 1 errors). When the go command runs this binary as
// its vet tool (-V=full, -flags or a .cfg file), it speaks the
// unitchecker protocol.
//
// -p99 DURATION is the p99 latency assumed for remote calls whose function
// has no //retryvet:p99 directive (the golangci-lint plugin's p99 setting);
// go vet passes it on: go vet -vettool=$(command -v retryvet) -p99=30s ./...
package main

import (
	"flag"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/deadlinecensus"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "census" {
		os.Exit(deadlinecensus.CommandProbe(args[1:], os.Stdout, os.Stderr, censusProbe))
	}
	if len(args) > 0 && args[0] == "inputs" {
		os.Exit(inputsCommand(args[1:], os.Stdout, os.Stderr))
	}
	if len(args) > 0 && args[0] == "help" {
		os.Exit(help(analyzers.All(), args[1:], os.Stdout, os.Stderr))
	}
	registerToolFlags(flag.CommandLine)
	if isVetProtocol(args) {
		flag.Bool(probeFlag, false, "run only the census's first step (retryvet census runs it; not for use by hand)")
		if probing(args) {
			vetTool([]*analysis.Analyzer{deadlinecensus.Probe}) // does not return
		}
		vetTool(analyzers.All()) // does not return
	}
	self, err := os.Executable()
	if err != nil {
		os.Exit(usageError(os.Stderr, err))
	}
	d := &driver{tool: self, analyzers: analyzers.All(), flags: flag.CommandLine, stdout: os.Stdout, stderr: os.Stderr}
	os.Exit(d.main(args))
}

// isVetProtocol reports whether the go command runs this binary as its vet
// tool: the -V=full and -flags handshakes, or a unit to analyse (a .cfg
// file, always the last argument). Package patterns never end in .cfg.
func isVetProtocol(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if strings.HasSuffix(args[len(args)-1], ".cfg") {
		return true
	}
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "V", "V=full", "flags":
			if strings.HasPrefix(a, "-") {
				return true
			}
		}
	}
	return false
}
