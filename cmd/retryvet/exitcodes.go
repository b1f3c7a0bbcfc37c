package main

import (
	"fmt"
	"strings"
)

// exitCodes is the one table of both modes' exit codes: `retryvet help`
// prints it and TestExitTableInREADME holds the README's copy to it. The
// two modes differ on 1 (the analyzers keep the x/tools drivers' codes,
// where 1 is an error; the census's 1 is its gate), so a CI step that
// runs both must read them apart. Under go vet -vettool the go command's
// own codes apply (non-zero on findings or errors).
var exitCodes = []struct{ code, analyzers, census string }{
	{"0", "no findings (-json: once the findings are printed; -fix: every finding fixed)", "the census printed; the gate, if any, passed"},
	{"1", "a package did not load, build or type-check, or an analyzer failed (the other packages' findings are printed)", "the baseline gate failed (each failing row named)"},
	{"2", "bad flags, no packages, a malformed values file (its file:line)", "bad flags, a malformed baseline or values file (its line; nothing written), a package that did not load (named; the table holds the rest)"},
	{"3", "findings (text, sarif); -fix: findings that no fix settles", "-"},
	{"128+N", "killed by signal N (go vet and its vet tools are signalled too)", "killed by signal N"},
}

// exitTable renders exitCodes for the help text, one mode after the other.
func exitTable() string {
	var b strings.Builder
	for _, mode := range []string{"retryvet [flags] packages...", "retryvet census"} {
		fmt.Fprintf(&b, "\t%s\n", mode)
		for _, e := range exitCodes {
			what := e.analyzers
			if mode == "retryvet census" {
				what = e.census
			}
			if what != "-" {
				fmt.Fprintf(&b, "\t  %-6s %s\n", e.code, what)
			}
		}
	}
	return b.String()
}
