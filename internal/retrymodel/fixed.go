package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Where does this value come from? FixedIn answers the narrowest case: a
// value the retried region cannot change, so that no attempt's answer is
// in it. A string compared in a retry loop reads the error's text or the
// response only when it can come from them; if contentType != "" (a
// header set from a parameter) reads nothing of what failed.

// FixedIn reports whether e has the same value on every pass through
// region: a constant, or an expression built only from constants and
// variables declared outside region that region never assigns (a
// parameter, a receiver's field, a package variable), with no call and no
// receive.
func (r *Result) FixedIn(e ast.Expr, region ast.Node) bool {
	info := r.pass.TypesInfo
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		return true
	}
	fixed := true
	ast.Inspect(e, func(n ast.Node) bool {
		if !fixed {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			// Conversions of a fixed value are fixed; calls may read
			// anything.
			if tv, ok := info.Types[n.Fun]; !ok || !tv.IsType() {
				fixed = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				fixed = false
			}
		case *ast.SelectorExpr:
			if f, ok := info.Uses[n.Sel].(*types.Var); ok && f.IsField() && r.ctx.assignsField(region, f) {
				fixed = false
			}
		case *ast.Ident:
			v, ok := info.Uses[n].(*types.Var)
			if !ok || v.IsField() {
				return true
			}
			if region.Pos() <= v.Pos() && v.Pos() < region.End() || r.ctx.assignsVar(region, v) {
				fixed = false
			}
		}
		return true
	})
	return fixed
}
