package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A retried operation is often a closure held in a local and called by
// the retried code: op := func() error { return fetchWithRetry(ctx) },
// then `for ... { if err = op(); ... }` or retry.Do(func() error { return
// op() }). The call names a variable, so it has no callee; what it runs is
// the literal. ClosureCalled answers which, so that what the literal
// reaches is reached from where it is called.

// ClosureCalled returns the function literal a call of a local variable
// runs: the variable is given one value, a literal (op := func() ...; or
// var op func(); op = func() ...), as the package's value index (the one
// library layers read their operation from) records it. Nil otherwise.
func (r *Result) ClosureCalled(call *ast.CallExpr) *ast.FuncLit {
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	if !ok || r.ctx == nil {
		return nil
	}
	v, ok := r.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == r.pass.Pkg.Scope() {
		return nil
	}
	srcs := (&callCtx{pkgCtx: r.ctx}).index().vars[v]
	if len(srcs) != 1 || srcs[0].unknown || srcs[0].tuple {
		return nil
	}
	lit, _ := astutil.Unparen(srcs[0].expr).(*ast.FuncLit)
	return lit
}
