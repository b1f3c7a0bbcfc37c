package doubleretry

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// repeatedFix moves a repeated write into the branch that leaves the loop
// once the retried call has succeeded:
//
//	for ... {                                  for ... {
//		if _, err = db.Exec(ins); err != nil {      if err = charge(); err == nil {
//			return err                                  if _, err = db.Exec(ins); err != nil {
//		}                                  =>               return err
//		if err = charge(); err == nil {                 }
//			return nil                                  return nil
//		}                                           }
//		wait                                        wait
//	}                                          }
//
// It is offered only where that is the whole edit: a loop whose body holds
// the write's statement and, after it, the call whose error an if tests
// against nil (in the if's init or the statement before it) and whose
// branch leaves the loop (return or break) with no else; the write's
// statement has no branch statement of its own, and what it defines or
// assigns is read nowhere else in the function, but the call's error,
// which the call's statement assigns again before anything reads it. Where
// the write feeds the call, or the loop leaves on success another way, the
// message says what to do and no edit is offered.
func (c *checker) repeatedFix(l *retrymodel.Layer, body *ast.BlockStmt, wst ast.Stmt, op *ast.CallExpr) (analysis.SuggestedFix, bool) {
	var none analysis.SuggestedFix
	if l.Kind != retrymodel.Loop || hasBranch(wst) {
		return none, false
	}
	i := slices.Index(body.List, wst)
	if i < 0 {
		return none, false
	}
	// The call's statement (body.List[j]) and the if that tests its error.
	j := i + 1
	for j < len(body.List) && !contains(body.List[j], op) {
		j++
	}
	if j == len(body.List) {
		return none, false
	}
	var opStmt *ast.AssignStmt
	var ifs *ast.IfStmt
	switch st := body.List[j].(type) {
	case *ast.IfStmt:
		opStmt, _ = st.Init.(*ast.AssignStmt)
		ifs = st
	case *ast.AssignStmt:
		if j+1 < len(body.List) {
			opStmt = st
			if ifs, _ = body.List[j+1].(*ast.IfStmt); ifs != nil && ifs.Init != nil {
				ifs = nil
			}
		}
	}
	if opStmt == nil || ifs == nil || ifs.Else != nil || len(opStmt.Rhs) != 1 || ast.Unparen(opStmt.Rhs[0]) != op || len(ifs.Body.List) == 0 {
		return none, false
	}
	errVar := varOf(c.pass.TypesInfo, opStmt.Lhs[len(opStmt.Lhs)-1])
	if errVar == nil || !c.isNilTest(ifs.Cond, errVar) || !leavesLoop(ifs.Body.List[len(ifs.Body.List)-1]) || c.reads(op, errVar) {
		return none, false
	}
	// What the write's statement defines or assigns is read nowhere else
	// (its error variable only after the call has set it again).
	if !c.keptInside(l.FuncNode, wst, errVar, body.List[i+1:j+1]) {
		return none, false
	}
	tf := c.pass.Fset.File(wst.Pos())
	src, err := c.pass.ReadFile(tf.Name())
	if err != nil {
		return none, false
	}
	start, end := tf.Offset(wst.Pos()), tf.Offset(wst.End())
	text := append([]byte("\n"), src[start:end]...)
	// Take the write's whole line when nothing else is on it.
	from, to := start, end
	for from > 0 && (src[from-1] == ' ' || src[from-1] == '\t') {
		from--
	}
	k := to
	for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r') {
		k++
	}
	if (from == 0 || src[from-1] == '\n') && k < len(src) && src[k] == '\n' {
		to = k + 1
	} else {
		from = start
	}
	return analysis.SuggestedFix{
		Message: "make the write once the retried call has succeeded",
		TextEdits: []analysis.TextEdit{
			{Pos: tf.Pos(from), End: tf.Pos(to)},
			{Pos: ifs.Body.Lbrace + 1, End: ifs.Body.Lbrace + 1, NewText: text},
		},
	}, true
}

// hasBranch reports a break, continue, goto or fallthrough under st (not in
// a closure): moved into another block it could mean something else.
func hasBranch(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			found = true
		}
		return !found
	})
	return found
}

// leavesLoop reports a return, or a break of the loop itself.
func leavesLoop(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return st.Tok == token.BREAK && st.Label == nil
	}
	return false
}

// isNilTest reports cond == (v == nil).
func (c *checker) isNilTest(cond ast.Expr, v *types.Var) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL {
		return false
	}
	isNil := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		_, isNil := c.pass.TypesInfo.ObjectOf(id).(*types.Nil)
		return ok && isNil
	}
	return varOf(c.pass.TypesInfo, b.X) == v && isNil(b.Y) || varOf(c.pass.TypesInfo, b.Y) == v && isNil(b.X)
}

// reads reports whether v is mentioned under n.
func (c *checker) reads(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && c.pass.TypesInfo.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// keptInside reports whether the variables wst defines or assigns are
// mentioned nowhere in fn outside wst, but errVar, which may be mentioned
// after the statements between (the ones up to the call's statement, which
// must not read it) have been run.
func (c *checker) keptInside(fn ast.Node, wst ast.Stmt, errVar *types.Var, between []ast.Stmt) bool {
	vars := map[*types.Var]bool{}
	ast.Inspect(wst, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if v := varOf(c.pass.TypesInfo, lhs); v != nil {
					vars[v] = true
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				if v, ok := c.pass.TypesInfo.Defs[id].(*types.Var); ok {
					vars[v] = true
				}
			}
		case *ast.IncDecStmt:
			if v := varOf(c.pass.TypesInfo, n.X); v != nil {
				vars[v] = true
			}
		}
		return true
	})
	ok := true
	ast.Inspect(fn, func(n ast.Node) bool {
		if !ok || n == wst {
			return false
		}
		id, isID := n.(*ast.Ident)
		if !isID {
			return true
		}
		v, _ := c.pass.TypesInfo.Uses[id].(*types.Var)
		if v == nil || !vars[v] {
			return true
		}
		if v != errVar {
			ok = false
			return false
		}
		for _, st := range between[:len(between)-1] {
			if contains(st, id) {
				ok = false
			}
		}
		return ok
	})
	return ok
}
