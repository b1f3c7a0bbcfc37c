package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file finds the failure paths of the call a deadline was put on for:
//
//	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
//	defer cancel()
//	inst, err := s.provider.Start(ctx, attrs)
//	if err != nil {
//		job.Requeue(ctx) // when Start ran out of time, ctx has expired
//	}
//
// Most code never tests for context.DeadlineExceeded: it records the
// failure, whatever it was, on the context it has. When the failure was the
// deadline, that record fails too. The bounded call is the first call given
// the new context that returns an error: the deadline was put there for it.
// Later calls on the same context are not taken (a reconcile-wide timeout
// bounds many calls, most of them quick writes to the store the status goes
// to, where a fresh context would not save the write); nor a bounded call
// that is itself a write, or a call on the same client as the write (both
// go to the same backend: when it is too slow for one, it is for the other).

// bounded returns, for each function, the failure branches of the call its
// deadline bounds, as expiries of that deadline's context.
func (c *checker) bounded() []*expiry {
	var out []*expiry
	c.insp.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body == nil {
			return
		}
		var sets []ctxSet
		inspectOwn(body, func(n ast.Node) {
			if as, ok := n.(*ast.AssignStmt); ok {
				if s, ok := c.ctxSetOf(as); ok && s.deadline && !s.ref.sel {
					sets = append(sets, s)
				}
			}
		})
		for _, s := range sets {
			call := c.firstFallible(body, s)
			if call == nil || c.classify(call) != nil {
				continue
			}
			branch := c.failureBranch(body, call)
			if branch == nil {
				continue
			}
			d := "deadline"
			if s.dur != "" {
				d = "deadline of " + s.dur
			}
			out = append(out, &expiry{
				ctx: s.ref, start: branch.Pos(), end: branch.End(), after: s.pos, check: call.Pos(),
				rank: 4, bounded: call,
				when: fmt.Sprintf(" after %s failed on it: when that call ran out of the %s set at %s",
					calleeText(call), d, c.short(s.pos)),
			})
		}
	})
	return out
}

// firstFallible returns the first call of body after the deadline s is set
// that is given s's context (or one derived from it) and returns an error;
// nil when the context is handed on in any other way first (stored,
// captured by a function literal, sent), since what then runs first is not
// known.
func (c *checker) firstFallible(body *ast.BlockStmt, s ctxSet) *ast.CallExpr {
	var first *ast.CallExpr
	stop := false
	ast.Inspect(body, func(n ast.Node) bool {
		if stop || n == nil {
			return false
		}
		if n.Pos() < s.pos && n.End() <= s.pos {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			if n.Pos() > s.pos && c.mentions(n, s) {
				stop = true // the literal may run first (a goroutine, a retry callback)
			}
			return false
		case *ast.CallExpr:
			if n.Pos() < s.pos {
				return true // the WithTimeout itself
			}
			if !c.givenCtx(n, s) {
				return true
			}
			if c.contextFunc(n) != "" {
				return true // a child context: its calls come later in the walk
			}
			if returnsError(c.info, n) {
				first, stop = n, true
			}
			return true
		}
		return true
	})
	return first
}

// givenCtx reports whether call has an argument that is s's context or
// derived from it.
func (c *checker) givenCtx(call *ast.CallExpr, s ctxSet) bool {
	for _, a := range call.Args {
		if tv, ok := c.info.Types[a]; ok && retrymodel.IsContext(tv.Type) && c.descends(a, s.ref, call.Pos(), s.pos, 0) {
			return true
		}
	}
	return false
}

// mentions reports whether the function literal uses s's context variable.
func (c *checker) mentions(lit *ast.FuncLit, s ctxSet) bool {
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && c.info.Uses[id] == s.ref.v {
			found = true
		}
		return !found
	})
	return found
}

// failureBranch finds the branch that runs when call's error is not nil:
// the body of `if err != nil`, where err is assigned from call in the if's
// own init or in the statement right before the if.
func (c *checker) failureBranch(body *ast.BlockStmt, call *ast.CallExpr) *ast.BlockStmt {
	path, _ := astutil.PathEnclosingInterval(c.fileOf(body), call.Pos(), call.End())
	i := 0
	for i < len(path) && path[i] != call {
		i++
	}
	for i+1 < len(path) {
		if _, ok := path[i+1].(*ast.ParenExpr); !ok {
			break
		}
		i++
	}
	if i+2 >= len(path) {
		return nil
	}
	a, ok := path[i+1].(*ast.AssignStmt)
	if !ok || len(a.Rhs) != 1 {
		return nil
	}
	if is, ok := path[i+2].(*ast.IfStmt); ok && is.Init == a {
		return c.errBranch(is, a)
	}
	list := stmtList(path[i+2])
	for j, st := range list {
		if st == a && j+1 < len(list) {
			if is, ok := list[j+1].(*ast.IfStmt); ok && is.Init == nil {
				return c.errBranch(is, a)
			}
		}
	}
	return nil
}

// errBranch returns is.Body when is tests err != nil for the error that
// assignment a takes from its call.
func (c *checker) errBranch(is *ast.IfStmt, a *ast.AssignStmt) *ast.BlockStmt {
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
	be, ok := astutil.Unparen(is.Cond).(*ast.BinaryExpr)
	if !ok || be.Op != token.NEQ {
		return nil
	}
	x, y := astutil.Unparen(be.X), astutil.Unparen(be.Y)
	if isNil(c.info, x) {
		x, y = y, x
	}
	xid, ok := x.(*ast.Ident)
	if !ok || c.info.Uses[xid] != v || !isNil(c.info, y) {
		return nil
	}
	return is.Body
}

func stmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}

// returnsError reports whether call's last result is an error.
func returnsError(info *types.Info, call *ast.CallExpr) bool {
	tv, ok := info.Types[call]
	if !ok {
		return false
	}
	switch t := tv.Type.(type) {
	case *types.Tuple:
		return t.Len() > 0 && isError(t.At(t.Len()-1).Type())
	default:
		return t != nil && isError(t)
	}
}

// sameClient reports whether the bounded call and the write are made on
// the same client (r.client.Get, then r.client.Status().Update).
func sameClient(a, b *ast.CallExpr) bool {
	ra, rb := recvRoot(a), recvRoot(b)
	return ra != "" && ra == rb
}

// recvRoot renders the receiver a method call starts from, up to its first
// call: r.client in r.client.Status().Update; "" for a plain function.
func recvRoot(call *ast.CallExpr) string {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	e := sel.X
	for {
		switch x := astutil.Unparen(e).(type) {
		case *ast.CallExpr:
			s, ok := astutil.Unparen(x.Fun).(*ast.SelectorExpr)
			if !ok {
				return ""
			}
			e = s.X
			continue
		case *ast.Ident, *ast.SelectorExpr:
			return types.ExprString(x)
		}
		return ""
	}
}
