package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file finds the failure paths of the calls a deadline bounds:
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
// deadline, that record fails too. Not taken: a failing call and a write
// that go to the same backend (the same client, or the same store package,
// read through the implementations' WritesFacts): when it is too slow for
// one, it is for the other, and a fresh context would not save the write.

// bounded returns, for each function that puts a deadline on a context,
// the failure branches of the calls given that context, as expiries of it.
func (c *checker) bounded() []*expiry {
	var out []*expiry
	c.eachBody(func(fn ast.Node, body *ast.BlockStmt) {
		sets := slices.Clone(c.callerSets()[fn])
		var calls []*ast.CallExpr
		inspectOwn(body, func(n ast.Node) {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if s, ok := c.ctxSetOf(n); ok && s.deadline && !s.ref.Sel {
					sets = append(sets, s)
				}
			case *ast.CallExpr:
				calls = append(calls, n)
			}
		})
		for _, s := range sets {
			d := "deadline"
			if s.dur != "" {
				d = "deadline of " + s.dur
			}
			for _, call := range calls {
				if call.Pos() <= s.pos || effects.ContextFunc(c.info, call) != "" || !returnsError(c.info, call) {
					continue
				}
				given := c.givenCall(call, s) // call, or the call of its chain given ctx: Do(ctx) in op.Do(ctx).Err()
				if given == nil || c.noIO(given) {
					continue // not given ctx, or a call that does nothing with ctx (noio.go)
				}
				store := c.storeOf(given)
				ran := fmt.Sprintf("when that call ran out of the %s %s", d, c.where(s))
				if branch := c.failureBranch(body, call); branch != nil {
					out = append(out, &expiry{
						ctx: s.ref, start: branch.Pos(), end: branch.End(), after: s.pos, check: call.Pos(),
						rank: 4, bounded: given, boundedStore: store,
						when: fmt.Sprintf(" after %s failed on it: %s", effects.CalleeText(given), ran),
					})
				}
				for _, span := range c.uncheckedSpans(body, call) { // pending.go
					out = append(out, &expiry{
						ctx: s.ref, start: span[0], end: span[1], after: s.pos, check: call.Pos(),
						rank: 4, bounded: given, boundedStore: store,
						when: fmt.Sprintf(" before the error of %s is checked: %s", effects.CalleeText(given), ran),
					})
				}
			}
		}
	})
	return out
}

// storeOf names the store package a call goes to: a write's (classify),
// a read of a well-known store, or the store an interface method's
// implementation writes to; "" when not known.
func (c *checker) storeOf(call *ast.CallExpr) string {
	if w := c.writes.Classify(call); w != nil {
		return w.Store
	}
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	fn = fn.Origin()
	if _, table := effects.Known(fn.Pkg().Path(), retrymodel.RecvName(fn), fn.Name(), call, c.info); table {
		return fn.Pkg().Path()
	}
	if _, f := c.writes.ImplFact(fn); f != nil {
		return f.Store
	}
	return ""
}

// givenCall returns call when it has an argument that is s's context or
// derived from it; else, for a method called on the result of another
// call (op.Do(ctx).Err(), whose error is the operation's), that call when
// it is given the context; else nil.
func (c *checker) givenCall(call *ast.CallExpr, s ctxSet) *ast.CallExpr {
	for depth := 0; depth < 4; depth++ {
		for _, a := range call.Args {
			if tv, ok := c.info.Types[a]; ok && retrymodel.IsContext(tv.Type) && c.flow.Descends(a, s.ref, call.Pos(), s.pos, 0) {
				return call
			}
			if x := c.requestCtx(a); x != nil && c.flow.Descends(x, s.ref, x.Pos(), s.pos, 0) {
				return call // hc.Do(req): the request carries the context
			}
		}
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		inner, ok := astutil.Unparen(sel.X).(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return nil
		}
		call = inner
	}
	return nil
}

// requestCtx returns the context a request argument carries: the ctx of
// req, err := http.NewRequestWithContext(ctx, ...) when that call is the
// variable's only value; nil for anything else.
func (c *checker) requestCtx(a ast.Expr) ast.Expr {
	id, ok := astutil.Unparen(a).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := c.info.Uses[id].(*types.Var)
	if !ok || !retrymodel.IsHTTPRequest(v.Type()) {
		return nil
	}
	vals, ok := c.model.Writes(v)
	if !ok || len(vals) != 1 || vals[0] == nil {
		return nil
	}
	call, ok := astutil.Unparen(vals[0]).(*ast.CallExpr)
	if !ok || len(call.Args) != 4 {
		return nil
	}
	if fn, ok := typeutil.Callee(c.info, call).(*types.Func); !ok || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" || fn.Name() != "NewRequestWithContext" {
		return nil
	}
	return call.Args[0]
}

// failureBranch finds the branch that runs when call's error is not nil:
// the body of `if err != nil`, where err is assigned from call in the if's
// own init or in the statement right before the if.
func (c *checker) failureBranch(body *ast.BlockStmt, call *ast.CallExpr) *ast.BlockStmt {
	a, is, list, j := c.assignOf(body, call)
	switch {
	case is != nil:
		return c.errBranch(is, a)
	case list != nil && j+1 < len(list):
		return c.pendingBranch(list, j, a) // the next if, or a later one while err is pending (pending.go)
	case list != nil:
		// The assignment ends an arm of an if (if pdf { keys, err =
		// a(ctx) } else { keys, err = b(ctx) }): its error is pending after
		// the whole if.
		if outer, k := c.armOf(body, list); outer != nil {
			return c.pendingBranch(outer, k, a)
		}
	}
	return nil
}

// armOf returns, for a statement list that is the body of an if or of
// its else (through else-if chains), the statement list holding that if
// statement and its index there.
func (c *checker) armOf(body *ast.BlockStmt, list []ast.Stmt) ([]ast.Stmt, int) {
	if len(list) == 0 {
		return nil, 0
	}
	path, _ := astutil.PathEnclosingInterval(c.fileOf(body), list[0].Pos(), list[len(list)-1].End())
	for i, n := range path {
		blk, ok := n.(*ast.BlockStmt)
		if !ok || len(blk.List) != len(list) || blk.List[0] != list[0] {
			continue
		}
		// Climb the if (and the else-if chain above it) the block is an arm of.
		k := i + 1
		for k < len(path) {
			is, ok := path[k].(*ast.IfStmt)
			if !ok || is.Body != path[k-1] && is.Else != path[k-1] {
				break
			}
			k++
		}
		if k == i+1 || k >= len(path) {
			return nil, 0
		}
		top := path[k-1]
		outer := stmtList(path[k])
		for idx, st := range outer {
			if st == top {
				return outer, idx
			}
		}
		return nil, 0
	}
	return nil, 0
}

// assignOf finds the single-value-source assignment a that takes call's
// results: with the if whose init it is, or with the statement list that
// holds it and its index there.
func (c *checker) assignOf(body *ast.BlockStmt, call *ast.CallExpr) (a *ast.AssignStmt, is *ast.IfStmt, list []ast.Stmt, j int) {
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
		return nil, nil, nil, 0
	}
	a, ok := path[i+1].(*ast.AssignStmt)
	if !ok || len(a.Rhs) != 1 {
		return nil, nil, nil, 0
	}
	if is, ok := path[i+2].(*ast.IfStmt); ok && is.Init == a {
		return a, is, nil, 0
	}
	l := stmtList(path[i+2])
	for j, st := range l {
		if st == a {
			return a, nil, l, j
		}
	}
	return nil, nil, nil, 0
}

// errBranch returns is.Body when is tests err != nil for the error that
// assignment a takes from its call.
func (c *checker) errBranch(is *ast.IfStmt, a *ast.AssignStmt) *ast.BlockStmt {
	if v := c.errVarOf(a); v != nil && c.testsNil(is.Cond, v, token.NEQ) {
		return is.Body
	}
	return nil
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

// sameBackend reports whether the bounded call of e and the write w go
// to the same backend: the same client (r.client.Get, then
// r.client.Status().Update), or the same store package.
func (c *checker) sameBackend(e *expiry, w *effects.Write) bool {
	ra, rb := recvRoot(e.bounded), recvRoot(w.Call)
	if ra != "" && ra == rb {
		if !c.ownValue(e.bounded) {
			return true
		}
		// Two steps of the package's own type: one backend when they use
		// one client field of the value (w.dbPool in both).
		if shareClient(c.clientFields(e.bounded), c.clientFields(w.Call)) {
			return true
		}
	}
	return e.boundedStore != "" && e.boundedStore == w.Store
}

// clientFields lists the fields of pointer or interface type (clients,
// pools) that the method a call runs reads from its receiver, also
// through the receiver's other methods it calls (handleError calling
// updateStatus, which uses w.dbPool).
func (c *checker) clientFields(call *ast.CallExpr) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	if fn, ok := typeutil.Callee(c.info, call).(*types.Func); ok {
		c.addClientFields(fn, out, map[*types.Func]bool{})
	}
	return out
}

func (c *checker) addClientFields(fn *types.Func, out map[*types.Var]bool, seen map[*types.Func]bool) {
	fn = fn.Origin()
	d := c.model.Decl(fn)
	if seen[fn] || len(seen) > 8 || d == nil || d.Body == nil || d.Recv == nil || len(d.Recv.List) == 0 || len(d.Recv.List[0].Names) == 0 {
		return
	}
	seen[fn] = true
	recv := c.info.Defs[d.Recv.List[0].Names[0]]
	if recv == nil {
		return
	}
	ast.Inspect(d.Body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := astutil.Unparen(sel.X).(*ast.Ident)
		if !ok || c.info.Uses[id] != recv {
			return true
		}
		switch obj := c.info.Uses[sel.Sel].(type) {
		case *types.Var:
			if obj.IsField() {
				switch obj.Type().Underlying().(type) {
				case *types.Pointer, *types.Interface:
					out[obj] = true
				}
			}
		case *types.Func:
			c.addClientFields(obj, out, seen) // another method of the receiver
		}
		return true
	})
}

func shareClient(a, b map[*types.Var]bool) bool {
	for f := range a {
		if b[f] {
			return true
		}
	}
	return false
}

// ownValue reports a method call on a bare variable of a type this
// package declares (w.generateThumbnails(ctx), w.updateStatus(ctx) on a
// worker): two such calls are the project's own steps, not one client,
// so the receiver says nothing of a shared backend (their stores do).
func (c *checker) ownValue(call *ast.CallExpr) bool {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := astutil.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return false
	}
	t := c.info.TypeOf(id)
	if t == nil {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() == c.pass.Pkg
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
