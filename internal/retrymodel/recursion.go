package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

// A retry by recursion is a function that, having failed, calls itself
// again for the next attempt. The failure branch is an if on the
// failure (if err != nil { ... return f(ctx, n+1) }) or a case of a
// status switch whose codes are all transient (case 502, 503: ...). What
// makes the call a retry and not a walk of some structure is either a
// wait before it, or a parameter that only counts the attempts: the call
// hands it on stepped by one, and the function reads it only to compare
// it with a bound and to hand it on. A parameter that indexes a list of
// hosts or names a page is not such a count (that recursion moves on to
// something else), and neither is one the remote call reads.

// recursionBranch is a failure branch of fd that calls fd again.
type recursionBranch struct {
	region ast.Node // the if's body or the case clause
	call   *ast.CallExpr
}

// retryRecursions returns fd's failure branches that call fd again after a
// wait, or with an attempt count stepped by one.
func (p *pkgCtx) retryRecursions(fd *ast.FuncDecl, self *types.Func, s *loopShape) []recursionBranch {
	var out []recursionBranch
	consider := func(region ast.Node) {
		call := SelfCall(p.info, region, self)
		if call == nil {
			return
		}
		if len(p.waitsIn(region)) > 0 || p.countsAttempts(fd, self, call, s) {
			out = append(out, recursionBranch{region, call})
		}
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if p.condIs(n.Cond, s, false) == failurePath {
				consider(n.Body)
			}
		case *ast.SwitchStmt:
			if !p.statusSwitch(n, s) {
				return true
			}
			for _, cc := range n.Body.List {
				if clause, ok := cc.(*ast.CaseClause); ok && p.casePath(n.Tag, clause, s) == failurePath {
					consider(clause)
				}
			}
		}
		return true
	})
	return out
}

// SelfCall finds a call of self in region, outside closures: a retry by
// recursion's next attempt (its Layer.Node is self's declaration).
func SelfCall(info *types.Info, region ast.Node, self *types.Func) *ast.CallExpr {
	var call *ast.CallExpr
	ast.Inspect(region, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if call == nil && typeutil.StaticCallee(info, n) == self {
				call = n
			}
		}
		return call == nil
	})
	return call
}

// countsAttempts reports whether call hands one of fd's parameters on
// stepped by one (n+1, left-1), every other argument is the parameter in
// its place or an expression of it, and the stepped parameter is only
// compared and handed on in fd's body, and compared at least once.
func (p *pkgCtx) countsAttempts(fd *ast.FuncDecl, self *types.Func, call *ast.CallExpr, s *loopShape) bool {
	sig, ok := self.Type().(*types.Signature)
	if !ok || len(call.Args) == 0 || call.Ellipsis.IsValid() && len(call.Args) != sig.Params().Len() {
		return false
	}
	param := func(i int) *types.Var {
		if i >= sig.Params().Len() {
			return nil
		}
		return sig.Params().At(i)
	}
	var counter *types.Var
	for i, a := range call.Args {
		v := param(i)
		if v == nil {
			return false
		}
		if b, ok := a.(*ast.BinaryExpr); ok && (b.Op == token.ADD || b.Op == token.SUB) && p.varOf(b.X) == v && counter == nil {
			if k, ok := p.fold.Int(b.Y); ok && k == 1 {
				counter = v
				continue
			}
		}
		// Every other argument the attempt reads is its parameter handed
		// on: the same request, not the next host, page or directory.
		if p.varOf(a) != v && p.opsRead(fd, self, s, v) {
			return false
		}
	}
	if counter == nil || !isInteger(counter.Type()) {
		return false
	}
	// The count is read only to compare it and to hand it on.
	compared, other := false, false
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.BinaryExpr:
				switch m.Op {
				case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
					if p.varOf(m.X) == counter || p.varOf(m.Y) == counter {
						compared = true
					}
				}
			case *ast.CallExpr:
				if typeutil.StaticCallee(p.info, m) == self {
					for _, a := range m.Args {
						if p.varOf(a) == counter {
							continue // handed on as it is
						}
						if b, ok := a.(*ast.BinaryExpr); ok && p.varOf(b.X) == counter {
							continue // handed on stepped
						}
						visit(a)
					}
					visit(m.Fun)
					return false
				}
			case *ast.Ident:
				if p.identVar(m) == counter && !p.comparedIdent(fd.Body, m) {
					other = true
				}
			}
			return !other
		})
	}
	visit(fd.Body)
	return compared && !other
}

// opsRead reports whether an operation of the function (other than its
// call of itself) reads v, directly or through variables assigned from it.
func (p *pkgCtx) opsRead(fd *ast.FuncDecl, self *types.Func, s *loopShape, v *types.Var) bool {
	from := p.derivedFrom(fd.Body, v)
	derived := func(e ast.Node) bool { return p.mentions(e, func(u *types.Var) bool { return from[u] }) }
	for _, op := range s.ops {
		if typeutil.StaticCallee(p.info, op) != self && derived(op) {
			return true
		}
	}
	return false
}

// derivedFrom returns v and the variables of root assigned, directly or
// through one another, from expressions that read v.
func (p *pkgCtx) derivedFrom(root ast.Node, v *types.Var) map[*types.Var]bool {
	from := map[*types.Var]bool{v: true}
	reads := func(e ast.Node) bool { return p.mentions(e, func(u *types.Var) bool { return from[u] }) }
	for changed := true; changed; {
		changed = false
		ast.Inspect(root, func(n ast.Node) bool {
			var lhs, rhs []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs, rhs = n.Lhs, n.Rhs
			case *ast.ValueSpec:
				for _, id := range n.Names {
					lhs = append(lhs, id)
				}
				rhs = n.Values
			default:
				return true
			}
			if !slices.ContainsFunc(rhs, func(r ast.Expr) bool { return reads(r) }) {
				return true
			}
			for _, l := range lhs {
				if u := p.varOf(l); u != nil && !from[u] {
					from[u], changed = true, true
				}
			}
			return true
		})
	}
	return from
}

// comparedIdent reports whether id is an operand of a comparison in root.
func (p *pkgCtx) comparedIdent(root ast.Node, id *ast.Ident) bool {
	found := false
	ast.Inspect(root, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && !found {
			switch b.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
				found = b.X == id || b.Y == id
			}
		}
		return !found
	})
	return found
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}
