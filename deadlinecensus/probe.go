package deadlinecensus

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// The census's first step. Most of a census's memory is the whole
// program held at once (every package's types, the own packages' syntax,
// SSA and call graph), and a program without a pipeline needs none of
// it: the answer is an empty census. Probe finds that out one package at
// a time, as go vet runs any analyzer: `retryvet census` runs it through
// `go vet -vettool=retryvet -census-probe` over the packages and the rest
// of their main modules, and loads the program only when go vet succeeds
// and Probe reports a place where a pipeline may be (or go vet fails).

// ProbeMessage is the message of Probe's diagnostics.
const ProbeMessage = "census probe: a pipeline may be here"

// Probe reports where RunWith may find a pipeline: it asks the same
// question of the retry model (candidate), package by package.
var Probe = &analysis.Analyzer{
	Name:     "censusprobe",
	Doc:      "report where the deadline census may find a pipeline (the census's first step, run by retryvet census; not for use by hand)",
	Run:      runProbe,
	Requires: []*analysis.Analyzer{retrymodel.Analyzer},
}

func runProbe(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer res.Hold()()
	if pos, ok := candidate(res, pass.TypesInfo, pass.Files); ok {
		pass.Report(analysis.Diagnostic{Pos: pos, Message: ProbeMessage})
	}
	return nil, nil
}

// candidate reports whether RunWith can find a pipeline in a package
// with this retry model result and syntax, and where: a function that
// PipelineOf accepts, or a retry layer whose operation the call graph may
// follow to a remote call (the two loops of RunWith, asked before they
// need SSA).
func candidate(res *retrymodel.Result, info *types.Info, files []*ast.File) (token.Pos, bool) {
	if res == nil {
		return token.NoPos, false
	}
	for _, l := range res.Layers {
		if l.Remote != retrymodel.Yes && l.Func != nil && (l.Kind == retrymodel.Loop || l.Kind == retrymodel.Library) {
			return l.Pos, true
		}
	}
	for _, file := range files {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fn, _ := info.Defs[fd.Name].(*types.Func); fn != nil {
				if _, ok := deadline.PipelineOf(res, info, fn); ok {
					return fd.Name.Pos(), true
				}
			}
		}
	}
	return token.NoPos, false
}
