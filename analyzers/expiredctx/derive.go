package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// ownDeadline reports whether fn, declared in this package, puts a
// deadline of its own on the context it is given: a DeadlineExceeded from
// it says nothing about the caller's context.
func (c *checker) ownDeadline(fn *types.Func) bool {
	if fn.Pkg() != c.pass.Pkg {
		return false
	}
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			switch effects.ContextFunc(c.info, call) {
			case "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause":
				found = true
			}
		}
		return !found
	})
	return found
}

// ctxMethod returns X and the method name when call is X.Err() or X.Done()
// on a context.
func (c *checker) ctxMethod(e ast.Expr) (ast.Expr, string) {
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil, ""
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	tv, ok := c.info.Types[sel.X]
	if !ok || !retrymodel.IsContext(tv.Type) {
		return nil, ""
	}
	return sel.X, sel.Sel.Name
}

// isCtxError reports whether e is context.DeadlineExceeded or context.Canceled.
func (c *checker) isCtxError(e ast.Expr) bool {
	sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := c.info.Uses[sel.Sel].(*types.Var)
	return ok && v.Pkg() != nil && v.Pkg().Path() == "context" && (v.Name() == "DeadlineExceeded" || v.Name() == "Canceled")
}

// errSource finds the context whose expiry an error reports: X for X.Err(),
// and for an error variable the context given to the call that produced it
// (the last assignment before at), when it is a direct argument of that
// call (possibly through context.WithValue) and the callee, when it is
// declared here, sets no deadline of its own.
func (c *checker) errSource(e ast.Expr, at token.Pos) (effects.Ref, bool) {
	e = astutil.Unparen(e)
	if x, m := c.ctxMethod(e); m == "Err" {
		return c.flow.RefOf(x)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return effects.Ref{}, false
	}
	v, _ := c.info.Uses[id].(*types.Var)
	if v == nil {
		return effects.Ref{}, false
	}
	a, ok := c.flow.Latest(v, at, token.NoPos)
	if !ok || a.RHS == nil {
		return effects.Ref{}, false
	}
	call, ok := astutil.Unparen(a.RHS).(*ast.CallExpr)
	if !ok {
		return effects.Ref{}, false
	}
	if x, m := c.ctxMethod(call); m == "Err" {
		return c.flow.RefOf(x)
	}
	// The context must be a direct argument (or inside context.WithValue):
	// nested deeper (client.Do(req.WithContext(ctx))) the error may be a
	// timeout of the callee's own, with ctx still alive.
	if fn, ok := typeutil.Callee(c.info, call).(*types.Func); ok && c.ownDeadline(fn) {
		return effects.Ref{}, false
	}
	var refs []effects.Ref
	seen := make(map[effects.Ref]bool)
	var arg func(e ast.Expr)
	arg = func(e ast.Expr) {
		e = astutil.Unparen(e)
		if in, ok := e.(*ast.CallExpr); ok {
			if effects.ContextFunc(c.info, in) == "WithValue" && len(in.Args) > 0 {
				arg(in.Args[0])
			}
			return
		}
		if tv, ok := c.info.Types[e]; ok && tv.IsValue() && retrymodel.IsContext(tv.Type) {
			if r, ok := c.flow.RefOf(e); ok && !seen[r] {
				seen[r] = true
				refs = append(refs, r)
			}
		}
	}
	for _, a := range call.Args {
		arg(a)
	}
	if len(refs) == 1 {
		return refs[0], true
	}
	return effects.Ref{}, false
}
