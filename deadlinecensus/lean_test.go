package deadlinecensus

import (
	"testing"

	"golang.org/x/tools/go/packages"
)

// The census builds SSA bodies for the user's module only: a dependency
// (the SDKs the testdata module imports, the standard library) has types
// and facts, no bodies and, once its facts are computed, no syntax.
func TestOwnModuleBodiesOnly(t *testing.T) {
	c := theCensus(t)
	if len(c.Pipelines) == 0 {
		t.Fatal("no pipelines: the dependencies' facts did not reach the model")
	}
	p := program
	deps := 0
	packages.Visit(p.Pkgs, nil, func(pkg *packages.Package) {
		if pkg.Module != nil && pkg.Module.Main || isTestMain(pkg) {
			return
		}
		deps++
		if pkg.Syntax != nil || pkg.TypesInfo != nil {
			t.Errorf("dependency %s still holds its syntax", pkg.ID)
		}
	})
	if deps == 0 {
		t.Fatal("no dependencies loaded: the test proves nothing")
	}
	bodies := 0
	for fn := range p.funcs {
		if len(fn.Blocks) == 0 {
			continue
		}
		bodies++
		for f := fn; f != nil; f = f.Parent() {
			if f.Parent() != nil {
				continue
			}
			pkg := f.Pkg
			if pkg == nil && f.Origin() != nil {
				pkg = f.Origin().Pkg
			}
			if pkg == nil {
				break // a wrapper or an instance of a dependency's generic: built from types
			}
			lp := p.all[pkg.Pkg]
			if lp == nil || !(p.analyzed[pkg.Pkg] != nil || (lp.Module != nil && lp.Module.Main) || isTestMain(lp)) {
				t.Errorf("%s has an SSA body but is in dependency %s", fn, pkg.Pkg.Path())
			}
		}
	}
	if bodies == 0 {
		t.Fatal("no SSA bodies at all")
	}
}
