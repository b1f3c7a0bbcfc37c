package deadlinecensus

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// needsSSA reports whether the package can need time on a context: it
// declares a pipeline, or a dependency exported a NeedFact (a function
// whose context reaches one). Without either, the propagation starts from
// nothing and no deadline can be checked, so SSA would be built for
// nothing; most packages go vet visits (the dependencies) are such.
func needsSSA(pass *analysis.Pass, res *retrymodel.Result) bool {
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if obj, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				if _, ok := deadline.PipelineOf(res, pass.TypesInfo, obj); ok {
					return true
				}
			}
		}
	}
	for _, of := range pass.AllObjectFacts() {
		if _, ok := of.Fact.(*NeedFact); ok {
			return true
		}
	}
	return false
}

// buildSSA builds the package's SSA with the buildssa analyzer's own run,
// on demand: it reads the pass's files, types and type info and the
// ctrlflow result, which deadlinecensus requires for it.
func buildSSA(pass *analysis.Pass) (*buildssa.SSA, error) {
	r, err := buildssa.Analyzer.Run(pass)
	if err != nil {
		return nil, err
	}
	return r.(*buildssa.SSA), nil
}
