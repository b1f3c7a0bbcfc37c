package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// pendingBranch finds the failure branch of a call whose error is tested
// later, not at once:
//
//	stats, err := o.waitForClosing(ctx, file)   // ctx's deadline may run out here
//	dbCtx, dbCancel := context.WithTimeout(context.WithoutCancel(ctx), d)
//	if err == nil {
//		err = o.switchState(dbCtx) // only on the success path
//	}
//	if err != nil {
//		o.incrementRetry(ctx) // reached when waitForClosing failed
//	}
//
// It is the first `if err != nil` after list[j] (the assignment a) in the
// same statement list, when err is assigned in between only inside the
// success branch of an `if err == nil` (so the error of the call is still
// pending when the failure is tested).
func (c *checker) pendingBranch(list []ast.Stmt, j int, a *ast.AssignStmt) *ast.BlockStmt {
	v := c.errVarOf(a)
	if v == nil {
		return nil
	}
	for _, st := range list[j+1:] {
		if is, ok := st.(*ast.IfStmt); ok && is.Init == nil {
			if b := c.errBranch(is, a); b != nil {
				return b
			}
			if is.Else == nil && c.testsNil(is.Cond, v, token.EQL) {
				continue
			}
		}
		if c.changes(st, v) {
			return nil
		}
	}
	return nil
}

// errVarOf returns the error variable a assigns from its call, or nil.
func (c *checker) errVarOf(a *ast.AssignStmt) *types.Var {
	if len(a.Lhs) == 0 {
		return nil
	}
	id, ok := astutil.Unparen(a.Lhs[len(a.Lhs)-1]).(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	v, _ := c.info.Defs[id].(*types.Var)
	if v == nil {
		v, _ = c.info.Uses[id].(*types.Var)
	}
	if v == nil || !isError(v.Type()) {
		return nil
	}
	return v
}

// testsNil reports whether cond is `v op nil`.
func (c *checker) testsNil(cond ast.Expr, v *types.Var, op token.Token) bool {
	be, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok || be.Op != op {
		return false
	}
	x, y := astutil.Unparen(be.X), astutil.Unparen(be.Y)
	if isNil(c.info, x) {
		x, y = y, x
	}
	id, ok := x.(*ast.Ident)
	return ok && c.info.Uses[id] == v && isNil(c.info, y)
}

// changes reports whether n assigns v or takes its address.
func (c *checker) changes(n ast.Node, v *types.Var) bool {
	found := false
	is := func(e ast.Expr) bool {
		id, ok := astutil.Unparen(e).(*ast.Ident)
		return ok && (c.info.Uses[id] == v || c.info.Defs[id] == v)
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if is(l) {
					found = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && is(n.X) {
				found = true
			}
		}
		return !found
	})
	return found
}

// uncheckedSpans returns the code that runs after call while its error is
// still unchecked:
//
//	stats, err := o.waitForClosing(ctx, file)     // ctx's deadline may run out here
//	lock, unlock, lockErr := locks.Lock(ctx, key) // runs on that path too
//	if err == nil { ... }
//
// It is the statements after the assignment a in the same list, up to the
// first that mentions the error variable (a test, a return, a new value:
// from there on the code knows, or forgets, the failure). Function literals
// among them are left out: they run when called, not here. Empty when the
// error is tested at once.
func (c *checker) uncheckedSpans(body *ast.BlockStmt, call *ast.CallExpr) [][2]token.Pos {
	a, is, list, j := c.assignOf(body, call)
	if a == nil || is != nil || list == nil {
		return nil
	}
	v := c.errVarOf(a)
	if v == nil {
		return nil
	}
	var out [][2]token.Pos
	for _, st := range list[j+1:] {
		if c.mentions(st, v) {
			break
		}
		start := st.Pos()
		ast.Inspect(st, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				out = append(out, [2]token.Pos{start, lit.Pos()})
				start = lit.End()
				return false
			}
			return true
		})
		out = append(out, [2]token.Pos{start, st.End()})
	}
	return out
}

// mentions reports whether n uses or assigns v.
func (c *checker) mentions(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && (c.info.Uses[id] == v || c.info.Defs[id] == v) {
			found = true
		}
		return !found
	})
	return found
}
