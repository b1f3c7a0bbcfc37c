package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A deadline test is a guard only when its answer decides whether the
// retry goes on: a comparison (or a guard helper's call) whose result is
// logged, or stored and never tested, leaves every wait in place.
// guardDecides reports whether e, an expression of the loop body, is
// tested by a branch that leaves the loop on one side:
//   - the condition of an if (or a case of a tagless switch), one of whose
//     arms leaves (return, break, goto, panic), or whose then-arm goes
//     round with continue while the statement after the if leaves;
//   - a local assigned e (ok := roomFor(...)) that such a condition tests.
func (p *pkgCtx) guardDecides(body *ast.BlockStmt, e ast.Node) bool {
	if body == nil || e == nil {
		return false
	}
	tested := func(cond ast.Node) bool { return within(e, cond) }
	var v *types.Var
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, r := range as.Rhs {
				if within(e, r) {
					if id, ok := as.Lhs[i].(*ast.Ident); ok {
						v = p.identVar(id)
					}
				}
			}
		}
		return v == nil
	})
	if v != nil {
		tested = func(cond ast.Node) bool {
			if within(e, cond) {
				return true
			}
			x, ok := cond.(ast.Expr)
			return ok && mentionsVar(p.info, x, v)
		}
	}
	found := false
	var visit func(stmts []ast.Stmt)
	visit = func(stmts []ast.Stmt) {
		for i, st := range stmts {
			if found {
				return
			}
			switch st := st.(type) {
			case *ast.IfStmt:
				if tested(st.Cond) || (st.Init != nil && tested(st.Init)) {
					after := i+1 < len(stmts) && terminates(stmts[i+1])
					if armLeaves(st.Body) || armLeaves(st.Else) || (endsIn(st.Body, token.CONTINUE) && after) {
						found = true
						return
					}
				}
			case *ast.SwitchStmt:
				if st.Tag == nil {
					for _, c := range st.Body.List {
						cc := c.(*ast.CaseClause)
						for _, x := range cc.List {
							if tested(x) && stmtsLeave(cc.Body, true) {
								found = true
								return
							}
						}
					}
				}
			}
			ast.Inspect(st, func(n ast.Node) bool {
				if found {
					return false
				}
				switch n := n.(type) {
				case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
					return false
				case *ast.BlockStmt:
					visit(n.List)
					return false
				case *ast.IfStmt:
					if ast.Node(n) != ast.Node(st) {
						visit([]ast.Stmt{n})
						return false
					}
				case *ast.CaseClause:
					visit(n.Body)
					return false
				case *ast.CommClause:
					visit(n.Body)
					return false
				}
				return true
			})
		}
	}
	visit(body.List)
	return found
}

// armLeaves reports whether an if's arm (a block, an else-if, nil) leaves
// the loop on its own.
func armLeaves(arm ast.Stmt) bool {
	switch arm := arm.(type) {
	case *ast.BlockStmt:
		return stmtsLeave(arm.List, false)
	case *ast.IfStmt:
		return armLeaves(arm.Body) && armLeaves(arm.Else)
	}
	return false
}

// stmtsLeave reports whether a list of statements ends by leaving the
// loop: a return, a goto, a panic, or a break that targets the loop (not
// one in a case clause, which ends the switch, unless it is labelled).
func stmtsLeave(stmts []ast.Stmt, inCase bool) bool {
	if len(stmts) == 0 {
		return false
	}
	last := stmts[len(stmts)-1]
	if br, ok := last.(*ast.BranchStmt); ok {
		switch br.Tok {
		case token.CONTINUE, token.FALLTHROUGH:
			return false
		case token.BREAK:
			return !inCase || br.Label != nil
		}
	}
	return terminates(last)
}
