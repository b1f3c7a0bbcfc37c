package retrymodel

import (
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
)

// A standard-library package that depends on none of time, context and
// net, directly or through its imports (runtime, sync, strings, unicode,
// reflect, ...), cannot wait for a duration, be cancelled or leave the
// process: nothing in it is a retry, a wait, a remote call or a
// classifier of their outcome, so the model skips it and the analyzers
// that read the model do too. These are most of the packages go vet runs
// the tool on only for their facts. A package of any other module is
// always read: a retry helper or a status classifier needs none of the
// three imports.

// stdDepsFact marks a standard-library package that depends on time,
// context or net; a package without it, whose imports have none either,
// is inert.
type stdDepsFact struct{}

func (*stdDepsFact) AFact()         {}
func (*stdDepsFact) String() string { return "depends on time, context or net" }

// markStdDeps exports stdDepsFact for a standard-library package that
// depends on time, context or net, and reports whether it does not (the
// package is inert).
func (p *pkgCtx) markStdDeps() (inert bool) {
	if !p.inStd() {
		return false
	}
	path := p.pass.Pkg.Path()
	deps := path == "time" || path == "context" || path == "net" ||
		slices.ContainsFunc(p.pass.Pkg.Imports(), func(imp *types.Package) bool {
			return p.pass.ImportPackageFact(imp, new(stdDepsFact))
		})
	if deps {
		p.pass.ExportPackageFact(new(stdDepsFact))
	}
	return !deps
}

// Inert reports whether the package is a standard-library one that
// depends on none of time, context and net (inert.go): the model found
// nothing in it, and there is nothing to look for.
func (r *Result) Inert() bool { return r.inert }

var _ analysis.Fact = (*stdDepsFact)(nil)
