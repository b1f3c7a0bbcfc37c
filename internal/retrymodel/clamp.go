package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// clampedDef reads a local given a value once and then capped (or
// floored) by the statement right after:
//
//	d := base << attempt
//	if d > maxWait {
//		d = maxWait
//	}
//
// It returns the first value, the cap and whether the cap is an upper
// bound (min) or a lower one (max). The two assignments must be the only
// ones the variable has in its declaration.
func (p *pkgCtx) clampedDef(v *types.Var) (val, bound ast.Expr, upper, ok bool) {
	if v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil, nil, false, false
	}
	root := p.topDeclAt(v.Pos())
	if root == nil || p.res.assignIndex(root)[v].count(true) != 2 {
		return nil, nil, false, false
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if ok {
			return false
		}
		b, isBlock := n.(*ast.BlockStmt)
		if !isBlock {
			return true
		}
		for i := 0; i+1 < len(b.List); i++ {
			as, isAs := b.List[i].(*ast.AssignStmt)
			if !isAs || as.Tok != token.DEFINE && as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 || p.varOf(as.Lhs[0]) != v {
				continue
			}
			if c, up, good := p.clampIf(b.List[i+1], v); good {
				val, bound, upper, ok = as.Rhs[0], c, up, true
				return false
			}
		}
		return true
	})
	return val, bound, upper, ok
}

// clampIf reads `if v > c { v = c }` (>=, or c < v; with < or <=, a floor)
// with no init and no else; c is the cap.
func (p *pkgCtx) clampIf(st ast.Stmt, v *types.Var) (ast.Expr, bool, bool) {
	ifs, ok := st.(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
		return nil, false, false
	}
	cond, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok {
		return nil, false, false
	}
	op, other := cond.Op, cond.Y
	if p.varOf(cond.X) != v {
		if p.varOf(cond.Y) != v {
			return nil, false, false
		}
		op, other = Flip(cond.Op), cond.X
	}
	var upper bool
	switch op {
	case token.GTR, token.GEQ:
		upper = true
	case token.LSS, token.LEQ:
	default:
		return nil, false, false
	}
	as, ok := ifs.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 || p.varOf(as.Lhs[0]) != v {
		return nil, false, false
	}
	// The value assigned is the one compared with: the same expression,
	// or the same constant.
	x, ok1 := p.eval(other, nil, 0)
	y, ok2 := p.eval(as.Rhs[0], nil, 0)
	if !ok1 || !ok2 || constant.Compare(x, token.NEQ, y) {
		return nil, false, false
	}
	return as.Rhs[0], upper, true
}
