package main

import (
	"flag"
	"testing"

	"github.com/retryvet/retryvet/analyzers"
)

// TestFactAnalyzers checks what a VetxOnly unit runs: every analyzer that
// exports facts as it is, and each other one as a stand-in that keeps its
// name and flags (go vet passes -doubleretry=false or -retrystatus.retrylog
// to every unit) but requires and exports nothing, so unitchecker leaves it
// out there.
func TestFactAnalyzers(t *testing.T) {
	all := analyzers.All()
	got := factAnalyzers(all)
	if len(got) != len(all) {
		t.Fatalf("factAnalyzers returned %d analyzers, want %d", len(got), len(all))
	}
	stubs := 0
	for i, a := range all {
		g := got[i]
		if g.Name != a.Name {
			t.Errorf("%s: stand-in is named %s", a.Name, g.Name)
		}
		a.Flags.VisitAll(func(f *flag.Flag) {
			if g.Flags.Lookup(f.Name) != f {
				t.Errorf("%s: stand-in lost flag -%s", a.Name, f.Name)
			}
		})
		if len(a.FactTypes) > 0 {
			if g != a {
				t.Errorf("%s exports facts and was replaced", a.Name)
			}
			continue
		}
		stubs++
		if g == a || len(g.Requires) > 0 || len(g.FactTypes) > 0 {
			t.Errorf("%s exports no facts but would still run in a VetxOnly unit", a.Name)
		}
	}
	if stubs == 0 {
		t.Errorf("no analyzer without facts: doubleretry and retrytimeout export none")
	}
}
