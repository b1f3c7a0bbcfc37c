package main

import (
	"encoding/json"
	"os"

	"golang.org/x/tools/go/analysis"
)

// A unit go vet runs only for its facts (VetxOnly: a dependency of the
// packages asked for, the standard library included) has no findings to
// give, so the tool does there only what a fact needs.

// unit is the part of a unit's config (unitchecker.Config) the tool reads
// before unitchecker does.
type unit struct {
	Dir      string
	VetxOnly bool
}

func readUnit(cfgFile string) (unit, bool) {
	var u unit
	data, err := os.ReadFile(cfgFile)
	if err != nil || json.Unmarshal(data, &u) != nil {
		return u, false // unitchecker reports a config it cannot read
	}
	return u, true
}

// factAnalyzers returns the analyzers to run in a VetxOnly unit. One that
// exports no facts of its own only reports, but unitchecker runs every
// analyzer that requires another with facts (the retry model), so it is
// given as a stand-in with its name and flags (the go command passes the
// same flags to every unit) and nothing to require or run, which
// unitchecker leaves out of a VetxOnly unit.
func factAnalyzers(all []*analysis.Analyzer) []*analysis.Analyzer {
	out := make([]*analysis.Analyzer, len(all))
	for i, a := range all {
		if len(a.FactTypes) > 0 {
			out[i] = a
			continue
		}
		out[i] = &analysis.Analyzer{
			Name:  a.Name,
			Doc:   a.Doc,
			URL:   a.URL,
			Flags: a.Flags,
			Run:   func(*analysis.Pass) (any, error) { return nil, nil },
		}
	}
	return out
}
