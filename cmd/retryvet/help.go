package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/deadlinecensus"
)

const helpText = `retryvet finds the retry and deadline mistakes that turn a slow dependency
into an outage: a deadline shorter than the retry policy it reaches, one retry
layer around another, retries without jitter or backoff that ignore
cancellation and Retry-After, classifiers that retry the wrong status codes,
and cleanup that runs on a context that has already expired.

Usage:

	retryvet [flags] packages...         run the analyzers on the packages
	go vet -vettool=$(command -v retryvet) [flags] packages...
	retryvet census [flags] packages...  the deadline census and its baseline gate
	retryvet inputs [-root DIR]          the values file and manifests as a nogo
	                                     configuration (docs/nogo.md)
	retryvet help                        this text
	retryvet help census                 the census's flags and exit codes
	retryvet help NAME                   one analyzer's documentation

The standalone command runs the go command's vet driver with retryvet as its
vet tool: one package at a time, facts of dependencies read from vet's files,
results cached by the go command (a second run on unchanged code answers from
the cache). Findings are reported once per package, for its test variant
where it has one, exactly as go vet reports them. A package that cannot be
loaded or type-checked is reported with its error and the others are analysed.

Analyzers (all run by default; -NAME runs only the named ones, -NAME=false
all but those):

%s
Flags:

	-format text|json|sarif
		text (the default): file:line:col: message on stderr, with the related
		positions of a finding below it; json (or -json): the x/tools tree
		{"pkg": {"analyzer": [{"posn": ..., "message": ...}]}} on stdout;
		sarif: one SARIF 2.1.0 log on stdout (locations relative to the module
		root), for code-scanning dashboards
	-fix
		apply each finding's suggested fix (go vet -fix); -fix -diff prints the
		fixes as a unified diff instead
	-p99 DURATION
		the p99 latency assumed for remote calls whose function has no
		//retryvet:p99 directive (a directive wins), e.g. -p99=30s
	-retrylog
		also report retry loops and retry-go/backoff calls that go round again
		without a log line, metric or trace event (off by default; the same as
		-retrystatus.retrylog)
	-sideeffects
		also report writes a retry makes again on every attempt (an INSERT, a
		publish) and POSTs it sends again with no idempotency key (off by
		default; the same as -doubleretry.sideeffects)
	-test=false
		leave _test.go files out
	-c N
		print N lines of context around each finding
	-NAME, -NAME=false
		select analyzers (see above)
	go build flags such as -tags, -mod and -C are passed to the go command.

Directives (written like //go: directives, no space after //):

	//retryvet:p99 40s          in a function's doc comment: the slow end of the
	                            remote call it makes (time.ParseDuration syntax)
	//retryvet:pipeline         in a function's doc comment: treat it as a
	                            pipeline even where no retry is visible
	//retryvet:ignore NAME why  on the line above a finding or at its end:
	                            silence it; the reason is required, and an
	                            ignore that silences nothing is reported

A malformed directive is itself a finding.

Exit codes (the README has the same table; under go vet -vettool, the go
command's own: non-zero on findings or errors):

%s
The census ('retryvet census', package deadlinecensus) lists every pipeline
(a function whose remote call is retried), every entry path that reaches it
and the deadline on that path, and gates CI against a reviewed baseline.
`

// help implements `retryvet help [census|NAME...]` and returns the exit
// code.
func help(all []*analysis.Analyzer, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		var list strings.Builder
		for _, a := range all {
			title, _, _ := strings.Cut(a.Doc, "\n\n")
			fmt.Fprintf(&list, "\t%-15s %s\n", a.Name, strings.ReplaceAll(title, "\n", " "))
		}
		fmt.Fprintf(stdout, helpText, list.String(), exitTable())
		return 0
	}
	code := 0
outer:
	for _, name := range args {
		if name == "census" {
			// The census's own usage (its flags), from the command itself.
			deadlinecensus.Command([]string{"-h"}, stdout, stdout)
			continue
		}
		for _, a := range all {
			if a.Name == name {
				analyzerHelp(stdout, a)
				continue outer
			}
		}
		fmt.Fprintf(stderr, "retryvet: no analyzer or subcommand %q (run 'retryvet help' for the list)\n", name)
		code = 2
	}
	return code
}

// analyzerHelp prints an analyzer's documentation and flags as x/tools'
// `help NAME` does.
func analyzerHelp(w io.Writer, a *analysis.Analyzer) {
	paras := strings.Split(a.Doc, "\n\n")
	fmt.Fprintf(w, "%s: %s\n", a.Name, paras[0])
	fs := flag.NewFlagSet(a.Name, flag.ContinueOnError)
	a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, a.Name+"."+f.Name, f.Usage) })
	if fs.NFlag() > 0 || hasFlags(&a.Flags) {
		fmt.Fprintf(w, "\nAnalyzer flags:\n\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if len(paras) > 1 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(paras[1:], "\n\n"))
	}
	if a.URL != "" {
		fmt.Fprintf(w, "\nMore: %s\n", a.URL)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}
