package retrymodel

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
)

// withReusedErrOps adds back the operations that keepRetried dropped only
// because a later call reuses their error variable, and makes such an
// operation the variable's call when the later call's own failure leaves:
//
//	stream, err := provider.Open(ctx)
//	if err != nil { lastErr = err; continue } // retried
//	res, err := handle(ctx, stream)           // the same err
//
// The loop's error variables keep the last call that sets them, so the
// first call would not be an operation although its failure starts another
// turn. Each such call is judged alone, on the statements that follow it
// up to the next assignment of its error variable.
func (p *pkgCtx) withReusedErrOps(loop ast.Node, body *ast.BlockStmt, all, kept []*ast.CallExpr, s *loopShape) []*ast.CallExpr {
	out := kept
	for _, op := range all {
		if slices.Contains(out, op) {
			continue
		}
		v, after := p.errAssignedBy(body, op)
		if v == nil {
			continue
		}
		last, has := s.errs[v]
		if last == op || !p.retriedAlone(loop, v, op, after, s) {
			continue
		}
		out = append(out, op)
		if has {
			if _, rest := p.errAssignedBy(body, last); p.retriedAlone(loop, v, last, rest, s) {
				continue
			}
			// The later call's failure leaves (err = c.refresh(); if err
			// != nil { return err }): where the loop decides to go round,
			// the variable holds this call's error.
			out = slices.DeleteFunc(out, func(c *ast.CallExpr) bool { return c == last })
		}
		s.errs[v] = op
	}
	slices.SortFunc(out, func(a, b *ast.CallExpr) int { return int(a.Pos() - b.Pos()) })
	return out
}

// retriedAlone judges call alone, on the statements after it up to the
// next assignment of its error variable v: does its failure go round?
func (p *pkgCtx) retriedAlone(loop ast.Node, v *types.Var, call *ast.CallExpr, after []ast.Stmt, s *loopShape) bool {
	// a status test of another call's response says nothing of v's
	t := &loopShape{errs: map[*types.Var]*ast.CallExpr{v: call}, results: s.resultsBeside(v), self: s.self, ops: []*ast.CallExpr{call}}
	p.keepRetried(loop, &ast.BlockStmt{List: after}, nil, t)
	return len(t.ops) == 1
}

// errAssignedBy finds the assignment `..., err := call` (or =) in body and
// returns its error variable and the statements after it in the same list,
// up to the next statement that assigns that variable again.
func (p *pkgCtx) errAssignedBy(body *ast.BlockStmt, call *ast.CallExpr) (*types.Var, []ast.Stmt) {
	var v *types.Var
	var rest []ast.Stmt
	assigns := func(st ast.Stmt, v *types.Var) bool {
		as, ok := initAssign(st).(*ast.AssignStmt)
		if !ok {
			return false
		}
		for _, lhs := range as.Lhs {
			if id, ok := astutil.Unparen(lhs).(*ast.Ident); ok && p.identVar(id) == v {
				return true
			}
		}
		return false
	}
	scan := func(list []ast.Stmt) {
		for i, st := range list {
			as, ok := initAssign(st).(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != call {
				continue
			}
			for _, lhs := range as.Lhs {
				if id, ok := astutil.Unparen(lhs).(*ast.Ident); ok {
					if w := p.identVar(id); w != nil && isErrorType(w.Type()) {
						v = w
					}
				}
			}
			if v == nil {
				return
			}
			// if err = op(); err == nil {...}: the test is the first
			// statement after the assignment
			switch st := st.(type) {
			case *ast.IfStmt:
				rest = append(rest, &ast.IfStmt{If: st.If, Cond: st.Cond, Body: st.Body, Else: st.Else})
			case *ast.SwitchStmt:
				rest = append(rest, &ast.SwitchStmt{Switch: st.Switch, Tag: st.Tag, Body: st.Body})
			}
			for _, next := range list[i+1:] {
				if assigns(next, v) {
					break
				}
				rest = append(rest, next)
			}
			return
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if v != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.BlockStmt:
			scan(n.List)
		case *ast.CaseClause:
			scan(n.Body)
		case *ast.CommClause:
			scan(n.Body)
		}
		return v == nil
	})
	return v, rest
}

// initAssign is the statement itself, or the init statement of an if or a
// switch (if err = op(); err == nil {...}).
func initAssign(st ast.Stmt) ast.Stmt {
	switch st := st.(type) {
	case *ast.IfStmt:
		return st.Init
	case *ast.SwitchStmt:
		return st.Init
	}
	return st
}
