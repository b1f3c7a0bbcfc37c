package retrymodel

import (
	"go/ast"
	"go/token"
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
// runs: the variable is given one value in the whole package, a literal
// (op := func() ...; or var op func(); op = func() ...). Nil otherwise.
func (r *Result) ClosureCalled(call *ast.CallExpr) *ast.FuncLit {
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := r.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == r.pass.Pkg.Scope() {
		return nil
	}
	if r.closureVars == nil {
		r.closureVars = r.indexClosureVars()
	}
	return r.closureVars[v]
}

// indexClosureVars maps each local variable of func type assigned exactly
// once in the package, to a function literal, to that literal.
func (r *Result) indexClosureVars() map[*types.Var]*ast.FuncLit {
	info := r.pass.TypesInfo
	count := map[*types.Var]int{}
	lit := map[*types.Var]*ast.FuncLit{}
	see := func(lhs ast.Expr, rhs ast.Expr) {
		id, ok := astutil.Unparen(lhs).(*ast.Ident)
		if !ok {
			return
		}
		v, _ := info.ObjectOf(id).(*types.Var)
		if v == nil {
			return
		}
		if _, ok := v.Type().Underlying().(*types.Signature); !ok {
			return
		}
		count[v]++
		if fl, ok := astutil.Unparen(rhs).(*ast.FuncLit); ok {
			lit[v] = fl
		}
	}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE && n.Tok != token.ASSIGN {
					for _, lhs := range n.Lhs {
						see(lhs, nil)
					}
					return true
				}
				for i, lhs := range n.Lhs {
					var rhs ast.Expr
					if len(n.Rhs) == len(n.Lhs) {
						rhs = n.Rhs[i]
					}
					see(lhs, rhs)
				}
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						see(name, n.Values[i])
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND { // &op: may be set through the pointer
					if id, ok := astutil.Unparen(n.X).(*ast.Ident); ok {
						if v, ok := info.Uses[id].(*types.Var); ok {
							count[v] += 2
						}
					}
				}
			}
			return true
		})
	}
	out := map[*types.Var]*ast.FuncLit{}
	for v, fl := range lit {
		if count[v] == 1 {
			out[v] = fl
		}
	}
	return out
}
