package expiredctx

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// A doneSummary marks a function of the package that returns an error
// when the context given as its parameter Param is done: it passes that
// context to a call that does (and reads that call's error), or returns
// ctx.Err(). A call of it on a cancelled context fails at once. It is kept
// within the package, not exported as a fact: nearly every function of a
// module that takes a context would carry one, and a call into another
// package's concrete function is then simply not judged (quiet).
type doneSummary struct {
	Param int
	Via   string // the call that fails: n.listener.Ping
	Posn  string
}

// failsOnDone decides whether call returns an error at once when its
// context argument is done. What the code shows decides:
//   - a method of an interface, given a context and returning an error (a
//     Listener.Ping, a Store.Save): the contract of such a method is to
//     stop when its context is done; not on logging, tracing or metrics
//     interfaces, whose methods record rather than fail;
//   - a function or method of the standard library given a context and
//     returning an error (database/sql, net, net/http.Server.Shutdown),
//     except http.NewRequestWithContext, which only stores it;
//   - a function of this package through its summary (computeDoneFacts).
//
// via names, for a function with a summary, the call inside it that fails.
func (c *checker) failsOnDone(call *ast.CallExpr) (via string, ok bool) {
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	fn = fn.Origin()
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() == 0 || !isError(sig.Results().At(sig.Results().Len()-1).Type()) {
		return "", false
	}
	ctxParam := -1
	for i := 0; i < sig.Params().Len(); i++ {
		if retrymodel.IsContext(sig.Params().At(i).Type()) {
			ctxParam = i
			break
		}
	}
	if ctxParam < 0 {
		return "", false
	}
	path := fn.Pkg().Path()
	switch {
	case path == "context" || path == "log/slog" || strings.HasPrefix(path, "go.opentelemetry.io/"):
		return "", false
	case sig.Recv() != nil && types.IsInterface(sig.Recv().Type()):
		if effects.Observability(sig.Recv().Type()) {
			return "", false
		}
		return "", true
	case stdPath(path):
		return "", !(path == "net/http" && fn.Name() == "NewRequestWithContext")
	}
	if f := c.doneFactOf(fn); f != nil && f.Param == ctxParam {
		return "returns the error of " + f.Via + " at " + f.Posn, true
	}
	return "", false
}

func stdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func (c *checker) doneFactOf(fn *types.Func) *doneSummary { return c.doneFacts[fn] }

// computeDoneFacts finds this package's functions that fail on a done
// context parameter, to a fixed point.
func (c *checker) computeDoneFacts() {
	type cand struct {
		fn    *types.Func
		decl  *ast.FuncDecl
		ps    []*types.Var
		idx   []int
		calls []*ast.CallExpr
		errs  []*ast.CallExpr // ctx.Err() calls inside return statements
	}
	var cands []*cand
	for fn, fd := range effects.FuncDecls(c.pass) {
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() == 0 || !isError(sig.Results().At(sig.Results().Len()-1).Type()) {
			continue
		}
		cd := &cand{fn: fn, decl: fd}
		for i := 0; i < sig.Params().Len(); i++ {
			p := sig.Params().At(i)
			if retrymodel.IsContext(p.Type()) && p.Name() != "" && p.Name() != "_" {
				cd.ps = append(cd.ps, p)
				cd.idx = append(cd.idx, i)
			}
		}
		if len(cd.ps) == 0 {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				cd.calls = append(cd.calls, n)
			case *ast.ReturnStmt:
				ast.Inspect(n, func(m ast.Node) bool {
					if call, ok := m.(*ast.CallExpr); ok {
						if _, meth := c.ctxMethod(call); meth == "Err" {
							cd.errs = append(cd.errs, call)
						}
					}
					return true
				})
			}
			return true
		})
		cands = append(cands, cd)
	}
	param := func(cd *cand, ctx ast.Expr, at ast.Node) int {
		for k, p := range cd.ps {
			if c.flow.Descends(ctx, effects.Ref{V: p, Text: p.Name()}, at.Pos(), cd.decl.Body.Pos(), 0) {
				return k
			}
		}
		return -1
	}
	for changed, iter := true, 0; changed && iter < 8; iter++ {
		changed = false
		for _, cd := range cands {
			if c.doneFacts[cd.fn] != nil {
				continue
			}
			for _, e := range cd.errs {
				x, _ := c.ctxMethod(e)
				if k := param(cd, x, e); k >= 0 {
					c.doneFacts[cd.fn] = &doneSummary{Param: cd.idx[k], Via: types.ExprString(x) + ".Err()", Posn: c.short(e.Pos())}
					changed = true
					break
				}
			}
			if c.doneFacts[cd.fn] != nil {
				continue
			}
			for _, call := range cd.calls {
				if _, ok := c.failsOnDone(call); !ok || c.discarded(call) {
					continue
				}
				k := -1
				for _, a := range call.Args {
					if tv, ok := c.info.Types[a]; ok && retrymodel.IsContext(tv.Type) {
						if k = param(cd, a, call); k >= 0 {
							break
						}
					}
				}
				if k >= 0 {
					c.doneFacts[cd.fn] = &doneSummary{Param: cd.idx[k], Via: effects.CalleeText(call), Posn: c.short(call.Pos())}
					changed = true
					break
				}
			}
		}
	}
}
