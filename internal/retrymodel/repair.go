package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A repair retry goes round only for one class of failure, and only after
// fixing what made the attempt fail: certmagic deletes an ACME account the
// CA no longer knows, creates a new one and orders again; every other
// failure leaves the loop. Like a conflict retry (conflict.go) it does not
// re-send a failed request to a struggling server, so it multiplies no
// inner layer's attempts: the inner layers give up on other failures, which
// this loop hands back.
//
//	for range 2 {
//		certs, err = client.acme.ObtainCertificate(ctx, params)
//		if err != nil {
//			var prob acme.Problem
//			if errors.As(err, &prob) && prob.Type == acme.ProblemTypeAccountDoesNotExist {
//				client, err = am.newClient(ctx) // the repair
//				continue
//			}
//			return err
//		}
//		break
//	}

// loopRepairsOnly returns the class test of a loop whose every way round is
// a continue inside `if <class test> { ... }` that first assigns a value
// the repeated operation reads (its receiver or an argument), and whose
// body ends by leaving (a break or a return) so that no other failure
// falls through to the next turn. NoPos otherwise.
func (p *pkgCtx) loopRepairsOnly(l *Layer, body *ast.BlockStmt) token.Pos {
	if len(body.List) == 0 || !leavesTurn(body.List[len(body.List)-1]) {
		return token.NoPos
	}
	reads := p.opReads(l.Ops)
	if len(reads) == 0 {
		return token.NoPos
	}
	var test token.Pos
	ok, turns := true, 0
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SelectStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt:
			// a break or continue in there may be that statement's
			ok = !containsBranch(n)
			return false
		case *ast.BranchStmt:
			switch {
			case n.Tok == token.GOTO || n.Label != nil:
				ok = false
			case n.Tok == token.CONTINUE:
				turns++
				pos, repaired := p.repairGuard(stack, n, reads)
				if !repaired {
					ok = false
				} else if !test.IsValid() {
					test = pos
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	if !ok || turns == 0 {
		return token.NoPos
	}
	return test
}

// repairGuard finds the if around a continue whose condition tests one
// class of error and whose then-branch assigns, before the continue, a
// variable in reads.
func (p *pkgCtx) repairGuard(stack []ast.Node, cont *ast.BranchStmt, reads map[*types.Var]bool) (token.Pos, bool) {
	for i := len(stack) - 1; i >= 0; i-- {
		ifs, ok := stack[i].(*ast.IfStmt)
		if !ok || !within(cont, ifs.Body) {
			continue
		}
		if !p.classTest(ifs.Cond) {
			return token.NoPos, false
		}
		repaired := false
		ast.Inspect(ifs.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && as.End() <= cont.Pos() {
				for _, lhs := range as.Lhs {
					if id, ok := astutil.Unparen(lhs).(*ast.Ident); ok && reads[p.identVar(id)] {
						repaired = true
					}
				}
			}
			_, lit := n.(*ast.FuncLit)
			return !repaired && !lit
		})
		return ifs.Cond.Pos(), repaired
	}
	return token.NoPos, false
}

// classTest reports a condition that holds for one class of error: a
// conjunction with errors.Is(err, sentinel), errors.As(err, &target), an
// error compared equal to a package-level variable, or a conflict test.
// err != nil alone is no class.
func (p *pkgCtx) classTest(cond ast.Expr) bool {
	switch c := astutil.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			return p.classTest(c.X) || p.classTest(c.Y)
		case token.EQL:
			return p.sentinel(c.X) || p.sentinel(c.Y) || p.conflictTest(c, 0)
		}
	case *ast.CallExpr:
		if fn, _ := typeutil.Callee(p.info, c).(*types.Func); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && (fn.Name() == "Is" || fn.Name() == "As") {
			return fn.Name() == "As" || len(c.Args) == 2 && p.sentinel(c.Args[1])
		}
		return p.conflictTest(c, 0)
	}
	return false
}

// sentinel reports a package-level variable of error type (io.EOF,
// ErrNotFound).
func (p *pkgCtx) sentinel(e ast.Expr) bool {
	v := varOf(p.info, e)
	return v != nil && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() && isErrorType(v.Type())
}

// opReads are the variables the calls read as the root of their receiver
// or of an argument (client of client.acme.Obtain(ctx, params)).
func (p *pkgCtx) opReads(ops []*ast.CallExpr) map[*types.Var]bool {
	out := make(map[*types.Var]bool)
	add := func(e ast.Expr) {
		for {
			switch x := astutil.Unparen(e).(type) {
			case *ast.SelectorExpr:
				e = x.X
				continue
			case *ast.UnaryExpr:
				e = x.X
				continue
			case *ast.Ident:
				if v := p.identVar(x); v != nil && !IsContext(v.Type()) {
					out[v] = true
				}
			}
			return
		}
	}
	for _, call := range ops {
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			if _, isPkg := p.info.Uses[identOf(sel.X)].(*types.PkgName); !isPkg {
				add(sel.X)
			}
		}
		for _, a := range call.Args {
			add(a)
		}
	}
	return out
}

// leavesTurn reports a statement that ends the loop's turn by leaving it.
func leavesTurn(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK && s.Label == nil
	}
	return false
}

// containsBranch reports a break, continue or goto in n.
func containsBranch(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if _, ok := m.(*ast.BranchStmt); ok {
			found = true
		}
		_, lit := m.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}
