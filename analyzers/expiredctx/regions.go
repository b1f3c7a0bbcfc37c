package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// An expiry is a stretch of code where a context is known to be done.
type expiry struct {
	ctx          effects.Ref
	start, end   token.Pos // the region
	after        token.Pos // reassignments of ctx after this point are followed
	check        token.Pos // where the code learned it
	when         string    // for the message: " after it expired (checked at w/w.go:52)"
	rank         int       // 0 checks, 1 cancel order, 2 deadline, 3 retry
	deferred     bool
	lit          *ast.FuncLit  // deferred function literal (success guards apply)
	only         *ast.CallExpr // a direct defer: only this call
	deferPos     token.Pos
	bounded      *ast.CallExpr // the call whose failure branch this is (bounded.go)
	boundedStore string        // the store package it goes to, "" when not known
}

func (c *checker) checked(r effects.Ref, check, start, end token.Pos) *expiry {
	return &expiry{ctx: r, start: start, end: end, after: check, check: check,
		when: " after it expired (checked at " + c.short(check) + ")"}
}

// regions finds, in one file, the code that runs only once a context is done.
func (c *checker) regions(f *ast.File) []*expiry {
	var out []*expiry
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if r, p, ok := c.cond(n.Cond, true, n.Cond.Pos()); ok {
				out = append(out, c.checked(r, p, n.Body.Pos(), n.Body.End()))
			}
			if n.Else != nil {
				if r, p, ok := c.cond(n.Cond, false, n.Cond.Pos()); ok {
					out = append(out, c.checked(r, p, n.Else.Pos(), n.Else.End()))
				}
			}
		case *ast.SwitchStmt:
			out = append(out, c.switchRegions(n)...)
		case *ast.SelectStmt:
			for _, cl := range n.Body.List {
				cc := cl.(*ast.CommClause)
				if r, ok := c.doneRecv(cc.Comm); ok {
					out = append(out, c.checked(r, cc.Pos(), cc.Colon, cc.End()))
				}
			}
		case *ast.BlockStmt:
			out = append(out, c.restOfList(n.List, n.Rbrace)...)
		case *ast.CaseClause:
			out = append(out, c.restOfList(n.Body, n.End())...)
		case *ast.CommClause:
			out = append(out, c.restOfList(n.Body, n.End())...)
		}
		return true
	})
	return out
}

// restOfList finds statements after which the rest of a statement list runs
// with a done context: a bare <-ctx.Done(), an `if ctx.Err() == nil {
// return }`, a `for ctx.Err() == nil { ... }` without break.
func (c *checker) restOfList(list []ast.Stmt, end token.Pos) []*expiry {
	var out []*expiry
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt:
			if r, ok := c.doneRecv(s); ok {
				out = append(out, c.checked(r, s.Pos(), s.End(), end))
			}
		case *ast.IfStmt:
			if s.Else == nil && terminates(s.Body) {
				if r, p, ok := c.cond(s.Cond, false, s.Cond.Pos()); ok {
					out = append(out, c.checked(r, p, s.End(), end))
				}
			}
		case *ast.ForStmt:
			if s.Cond != nil && !hasBreak(s.Body) {
				if r, p, ok := c.cond(s.Cond, false, s.Cond.Pos()); ok {
					out = append(out, c.checked(r, p, s.End(), end))
				}
			}
		}
	}
	return out
}

func (c *checker) switchRegions(n *ast.SwitchStmt) []*expiry {
	var out []*expiry
	for _, cl := range n.Body.List {
		cc := cl.(*ast.CaseClause)
		if len(cc.List) == 0 {
			continue
		}
		var ref effects.Ref
		var pos token.Pos
		all := true
		for _, e := range cc.List {
			var r effects.Ref
			var p token.Pos
			var ok bool
			if n.Tag == nil {
				r, p, ok = c.cond(e, true, e.Pos())
			} else if c.isCtxError(e) {
				r, ok = c.errSource(n.Tag, n.Tag.Pos())
				p = e.Pos()
			}
			if !ok || (pos.IsValid() && r != ref) {
				all = false
				break
			}
			ref, pos = r, p
		}
		if all {
			out = append(out, c.checked(ref, pos, cc.Colon, cc.End()))
		}
	}
	return out
}

// doneRecv recognises a receive from ctx.Done() (or from a variable holding
// it) as a statement or a select case.
func (c *checker) doneRecv(s ast.Stmt) (effects.Ref, bool) {
	u, ok := astutil.Unparen(retrymodel.CommRecv(s)).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return effects.Ref{}, false
	}
	ch := astutil.Unparen(u.X)
	if id, ok := ch.(*ast.Ident); ok {
		if v, ok := c.info.Uses[id].(*types.Var); ok {
			if a, ok := c.flow.Latest(v, id.Pos(), token.NoPos); ok && a.RHS != nil {
				ch = a.RHS
			}
		}
	}
	if x, m := c.ctxMethod(ch); m == "Done" {
		return c.flow.RefOf(x)
	}
	return effects.Ref{}, false
}

// cond reports whether e evaluating to want means a context is done, which
// one, and where the code tests it.
func (c *checker) cond(e ast.Expr, want bool, at token.Pos) (effects.Ref, token.Pos, bool) {
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return c.cond(e.X, !want, at)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND, token.LOR:
			// A && B true: both true, so either side suffices; false: both
			// sides must say so. Dually for ||.
			either := (e.Op == token.LAND) == want
			rx, px, okx := c.cond(e.X, want, at)
			if either && okx {
				return rx, px, true
			}
			ry, py, oky := c.cond(e.Y, want, at)
			if either {
				return ry, py, oky
			}
			if okx && oky && rx == ry {
				return rx, px, true // both sides must name the same context
			}
		case token.EQL, token.NEQ:
			r, doneIfEqual, ok := c.equality(e, at)
			if ok && doneIfEqual == (e.Op == token.EQL) == want {
				return r, e.Pos(), true
			}
		}
	case *ast.CallExpr:
		if !want || len(e.Args) != 2 {
			break
		}
		fn, ok := typeutil.Callee(c.info, e).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Name() != "Is" || (fn.Pkg().Path() != "errors" && fn.Pkg().Path() != "github.com/pkg/errors") {
			break
		}
		if c.isCtxError(e.Args[1]) {
			if r, ok := c.errSource(e.Args[0], at); ok {
				return r, e.Pos(), true
			}
		}
		if x, m := c.ctxMethod(e.Args[1]); m == "Err" {
			if r, ok := c.flow.RefOf(x); ok {
				return r, e.Pos(), true
			}
		}
	}
	return effects.Ref{}, token.NoPos, false
}

// equality reads X == Y: which context it is about and whether equality
// means that context is done.
func (c *checker) equality(e *ast.BinaryExpr, at token.Pos) (effects.Ref, bool, bool) {
	for _, sides := range [2][2]ast.Expr{{e.X, e.Y}, {e.Y, e.X}} {
		a, b := sides[0], sides[1]
		if isNil(c.info, b) {
			// ctx.Err() == nil, or err == nil with err := ctx.Err().
			if x, m := c.ctxMethod(a); m == "Err" {
				r, ok := c.flow.RefOf(x)
				return r, false, ok
			}
			if id, ok := astutil.Unparen(a).(*ast.Ident); ok {
				if v, ok := c.info.Uses[id].(*types.Var); ok {
					if as, ok := c.flow.Latest(v, at, token.NoPos); ok && as.RHS != nil {
						if x, m := c.ctxMethod(as.RHS); m == "Err" {
							r, ok := c.flow.RefOf(x)
							return r, false, ok
						}
					}
				}
			}
			continue
		}
		if c.isCtxError(b) {
			r, ok := c.errSource(a, at)
			return r, true, ok
		}
		if x, m := c.ctxMethod(b); m == "Err" {
			if _, m2 := c.ctxMethod(a); m2 == "" {
				r, ok := c.flow.RefOf(x)
				return r, true, ok
			}
		}
	}
	return effects.Ref{}, false, false
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// terminates reports whether a block always leaves the enclosing list.
func terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

func hasBreak(b *ast.BlockStmt) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			if n.Tok == token.BREAK || n.Tok == token.GOTO {
				found = true
			}
		}
		return !found
	})
	return found
}
