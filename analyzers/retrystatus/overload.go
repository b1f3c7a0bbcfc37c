package retrystatus

import (
	"fmt"
	"go/ast"
	"go/types"
	"regexp"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file carries a 5xx list that misses only 529 to the calls that
// send to an API answering 529. A list that has 500, 502, 503 and 504
// misses nothing where 529 is never sent, so check reports it only for a
// retry of an LLM API (ck.targets). But the retry is often a shared HTTP
// helper of another package (llm.HTTPClient.Do), and which API it sends
// to is known only where it is called: the provider package that builds
// the request for api.anthropic.com. The helper's package exports an
// OverloadGapFact on the functions that run the retry; a package whose
// call of such a function sends to an API that answers 529 is told there,
// and one that does not passes the fact on to its own callers.

// OverloadGapFact is exported for a function that runs, itself or through
// its callees, a retry whose status decision lists 5xx codes and gives up
// on 529 (overloaded).
type OverloadGapFact struct {
	Layer    string // the retry's name and dir/file.go:line
	Decision string // where the decision lists the codes
	Listed   []int  // the 5xx codes it lists
	Operand  string // what it compares ("code", "resp.StatusCode")
}

// AFact marks OverloadGapFact as an analysis fact.
func (*OverloadGapFact) AFact() {}

func (f *OverloadGapFact) String() string {
	return fmt.Sprintf("%s gives up on 529 (lists %s at %s)", f.Layer, joinCodes(f.Listed, false), f.Decision)
}

// overloadGap records a decision of layer l whose enumeration misses only
// 529, left unreported because l's own code names no API that sends it.
func (ck *checker) overloadGap(l *retrymodel.Layer, listed []int, first *atom) {
	if l.Func == nil || ck.inTest(l.Pos) {
		return
	}
	if ck.gaps == nil {
		ck.gaps = map[*types.Func]*OverloadGapFact{}
	}
	if ck.gaps[l.Func] != nil {
		return
	}
	operand := first.operand
	if operand == "" {
		operand = "code"
	}
	ck.gaps[l.Func] = &OverloadGapFact{
		Layer:    fmt.Sprintf("%s at %s", l.Name, ck.short(l.Pos)),
		Decision: ck.short(first.pos),
		Listed:   slices.Clone(listed),
		Operand:  operand,
	}
}

// overloadGaps reports the package's calls of a function with an
// OverloadGapFact (its own, found by check, or a dependency's) made by a
// function that sends to an API answering 529, and exports the fact for
// the functions that make such a call without naming one. Each function is
// reported once, at its first such call.
func (ck *checker) overloadGaps() {
	fns := make([]*types.Func, 0, len(ck.decls))
	for fn := range ck.decls {
		fns = append(fns, fn)
	}
	slices.SortFunc(fns, func(a, b *types.Func) int { return int(a.Pos() - b.Pos()) })
	factOf := func(fn *types.Func) *OverloadGapFact {
		if f := ck.gaps[fn]; f != nil {
			return f
		}
		if fn.Pkg() != nil && fn.Pkg() != ck.pass.Pkg {
			var f OverloadGapFact
			if ck.pass.ImportObjectFact(fn, &f) {
				return &f
			}
		}
		return nil
	}
	done := map[*types.Func]bool{}
	for changed := true; changed; {
		changed = false
		for _, fn := range fns {
			decl := ck.decls[fn]
			if done[fn] || decl.Body == nil || ck.inTest(decl.Pos()) {
				continue
			}
			var call *ast.CallExpr
			var gap *OverloadGapFact
			ast.Inspect(decl.Body, func(n ast.Node) bool {
				if gap != nil {
					return false
				}
				if c, ok := n.(*ast.CallExpr); ok {
					if callee := typeutil.StaticCallee(ck.info, c); callee != nil && callee != fn {
						if f := factOf(callee); f != nil && ck.gaps[fn] != f {
							call, gap = c, f
						}
					}
				}
				return true
			})
			if gap == nil {
				continue
			}
			done[fn] = true
			if ck.sends529(decl) {
				ck.reportOverloadGap(call, typeutil.StaticCallee(ck.info, call), gap)
				continue
			}
			if ck.gaps == nil {
				ck.gaps = map[*types.Func]*OverloadGapFact{}
			}
			if ck.gaps[fn] == nil {
				ck.gaps[fn], changed = gap, true
			}
		}
	}
	for _, fn := range fns {
		if f := ck.gaps[fn]; f != nil && fn.Exported() { // only those other packages can call
			ck.pass.ExportObjectFact(fn, f)
		}
	}
}

// sends529 reports whether the function sends to an API that documents
// 529: Anthropic's (overloaded_error), named by its SDK, host, Messages
// path or version header, in the function's body or through a string
// constant of the package. A helper's callers are many APIs; only this
// one is known to answer 529, so an OpenAI-compatible path or a local
// model server is not enough here.
func (ck *checker) sends529(decl *ast.FuncDecl) bool {
	return ck.mentions(decl, anthropicPkg, anthropicLit)
}

var (
	anthropicPkg = regexp.MustCompile(`anthropic`)
	anthropicLit = regexp.MustCompile(`(?i)api\.anthropic\.com|/v1/messages|overloaded_error|anthropic-version`)
)

func (ck *checker) reportOverloadGap(call *ast.CallExpr, callee *types.Func, f *OverloadGapFact) {
	ck.pass.Report(analysis.Diagnostic{
		Pos:      call.Pos(),
		End:      call.End(),
		Category: "5xx",
		Message: fmt.Sprintf("%s retries this call with the %s, whose decision lists 5xx codes %s (at %s) and gives up on 529 (overloaded), the status this API answers when it is overloaded: such an answer fails the call at once with the retries unused; use %s >= 500 there",
			retrymodel.FuncName(callee), f.Layer, joinCodes(f.Listed, false), f.Decision, f.Operand),
	})
}
