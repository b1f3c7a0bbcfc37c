package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file holds hand-rolled circuit breakers: a failure counter (an
// integer field incremented, or a slice field of failure times appended
// to) that, once it reaches a bound, makes later calls return before they
// are made. The shape, whatever the names:
//
//	func (b *breaker) fail() { b.failures++; if b.failures >= 5 { b.openUntil = time.Now().Add(30 * time.Second) } }
//	func (b *breaker) allow() bool { return time.Now().After(b.openUntil) }
//	...
//	if !c.b.allow() { return errOpen }
//	resp, err := c.hc.Do(req) // on the caller's ctx
//	if err != nil { c.b.fail(); return err }
//
// A counter is a breaker's when three things hold in the package: it is
// reset to zero (a count of failures in a row) or trimmed (a window); it
// is compared with a bound (>=, >) in a condition whose branch opens a
// state (assigns another field) or returns; and a gate reads that state
// or the count and returns (an error, false) before a remote call: in
// another function than the one that counts, or before the call in the
// same one. A retry's own attempt counter, compared after the failure it
// counts, is no gate.

// A HandCount is a remote call's failure counted by a hand-rolled
// breaker.
type HandCount struct {
	Call  *ast.CallExpr // the remote call whose error is counted
	Count ast.Node      // the increment, or the call of the method that makes it
	Field *types.Var    // the counter
	Ctx   string        // the caller's context the call runs on
	Gate  token.Pos     // where later calls are turned away
	// Handed is where the remote value comes from when the call is of
	// a func parameter (f(ctx)): a caller's argument (handed.go).
	Handed token.Pos
	Trip   ast.Expr // the bound, as written
	// TripAfter is the bound as a number of failures, when constant.
	TripAfter int64
	// Past: the count opens one failure past Trip (failures > limit).
	Past bool
}

// HandCounts returns the remote calls on a caller's context whose every
// error a hand-rolled breaker of the package counts, with no test for a
// context's own error on the way (in the function or the counting
// method).
func (r *Result) HandCounts() []HandCount {
	info := r.pass.TypesInfo
	// 1. Counting sites, resets, trips and gates, by field.
	type fieldUse struct {
		counts []*ast.FuncDecl // functions that increment or append
		reset  bool
		trip   ast.Expr // the bound
		strict bool     // compared with >: it opens one failure past the bound
		gates  []token.Pos
	}
	uses := map[*types.Var]*fieldUse{}
	use := func(v *types.Var) *fieldUse {
		u := uses[v]
		if u == nil {
			u = &fieldUse{}
			uses[v] = u
		}
		return u
	}
	var decls []*ast.FuncDecl
	for _, f := range r.pass.Files {
		if InTestFile(r.pass.Fset, f.Pos()) {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls = append(decls, fd)
			}
		}
	}
	for _, fd := range decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.IncDecStmt:
				if v := r.counterField(n.X); v != nil && n.Tok == token.INC {
					use(v).counts = append(use(v).counts, fd)
				}
			case *ast.AssignStmt:
				if len(n.Lhs) != 1 || len(n.Rhs) != 1 {
					break
				}
				v := r.counterField(n.Lhs[0])
				if v == nil {
					break
				}
				switch rhs := astutil.Unparen(n.Rhs[0]).(type) {
				case *ast.CallExpr:
					if isAppend(info, rhs) {
						use(v).counts = append(use(v).counts, fd)
					} else if _, isSlice := v.Type().Underlying().(*types.Slice); isSlice && n.Tok == token.ASSIGN {
						use(v).reset = true // w = w[i:] through a helper, or a fresh slice
					}
				case *ast.SliceExpr:
					use(v).reset = true // w = w[i:]: the window moves
				case *ast.CompositeLit:
					use(v).reset = true
				default:
					if n.Tok == token.ADD_ASSIGN {
						if k, ok := constInt(info, rhs); ok && k == 1 {
							use(v).counts = append(use(v).counts, fd)
						}
					} else if n.Tok == token.ASSIGN && (isZero(info, rhs) || isNil(info, rhs)) {
						use(v).reset = true
					}
				}
			case *ast.IfStmt:
				v, bound, strict := r.counterBound(n.Cond)
				if v != nil && r.opensOrLeaves(n.Body) {
					u := use(v)
					if u.trip == nil {
						u.trip, u.strict = bound, strict
					}
					if endsInReturn(n.Body) {
						u.gates = append(u.gates, n.Pos())
					}
				}
			}
			return true
		})
	}
	// 2. State fields a trip opens: read by a gate that returns.
	for v, u := range uses {
		if len(u.counts) == 0 || !u.reset || u.trip == nil {
			delete(uses, v)
		}
	}
	if len(uses) == 0 {
		return nil
	}
	opened := map[*types.Var]*types.Var{} // state field -> counter
	for _, fd := range decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			ifs, ok := n.(*ast.IfStmt)
			if !ok {
				return true
			}
			v, _, _ := r.counterBound(ifs.Cond)
			if uses[v] == nil {
				return true
			}
			for _, s := range r.fieldsSet(ifs.Body, 1) {
				if s != v {
					opened[s] = v
				}
			}
			return true
		})
	}
	for _, fd := range decls {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			ifs, ok := n.(*ast.IfStmt)
			if !ok || !endsInReturn(ifs.Body) {
				return true
			}
			ast.Inspect(ifs.Cond, func(m ast.Node) bool {
				if sel, ok := m.(*ast.SelectorExpr); ok {
					if s, ok := info.Uses[sel.Sel].(*types.Var); ok && opened[s] != nil {
						u := uses[opened[s]]
						u.gates = append(u.gates, ifs.Pos())
					}
				}
				return true
			})
			return true
		})
	}
	// 3. Remote calls whose error branch counts.
	countsIn := map[*types.Func]*types.Var{} // methods that count
	for v, u := range uses {
		for _, fd := range u.counts {
			if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
				countsIn[fn] = v
			}
		}
	}
	var out []HandCount
	for _, fd := range decls {
		r.countedCalls(fd, func(call *ast.CallExpr, branch *ast.BlockStmt) {
			count, v := r.countIn(branch, countsIn)
			if v == nil {
				return
			}
			u := uses[v]
			gate := token.NoPos
			for _, g := range u.gates {
				if g < call.Pos() || g < fd.Pos() || g > fd.End() {
					gate = g // before the call, or in another function
					break
				}
			}
			if gate == token.NoPos {
				return
			}
			ctx, ok := r.callContext(call, fd)
			if !ok || r.namesCtxErr(fd.Body, 0) {
				return
			}
			if cm, ok := count.(*ast.CallExpr); ok {
				if d := r.Decl(r.Callee(cm)); d != nil && r.namesCtxErr(d.Body, 0) {
					return
				}
			}
			hc := HandCount{Call: call, Count: count, Field: v, Ctx: ctx, Gate: gate, Trip: u.trip, Past: u.strict, Handed: r.HandedAt(call)}
			if k, ok := constInt(info, u.trip); ok {
				hc.TripAfter = k
				if u.strict {
					hc.TripAfter++ // failures > 5 opens at the 6th
				}
			}
			out = append(out, hc)
		})
	}
	return out
}

// counterField is the struct field x names (b.failures, b.failures.Add
// is handled by the caller), when it is an integer or a slice.
func (r *Result) counterField(x ast.Expr) *types.Var {
	sel, ok := astutil.Unparen(x).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	v, ok := r.pass.TypesInfo.Uses[sel.Sel].(*types.Var)
	if !ok || !v.IsField() || v.Pkg() != r.pass.Pkg {
		return nil
	}
	switch t := v.Type().Underlying().(type) {
	case *types.Basic:
		if t.Info()&types.IsInteger != 0 {
			return v
		}
	case *types.Slice:
		return v
	}
	return nil
}

// counterBound reads a condition that compares a counter with a bound:
// f >= k, f > k (strict), len(w) >= k (either side), in a conjunction or
// not.
func (r *Result) counterBound(cond ast.Expr) (v *types.Var, bound ast.Expr, strict bool) {
	ast.Inspect(cond, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || v != nil {
			return v == nil
		}
		x, y := b.X, b.Y
		switch b.Op {
		case token.GEQ, token.GTR:
		case token.LEQ, token.LSS:
			x, y = y, x // 5 < f is f > 5
		default:
			return true
		}
		if c := r.levelOf(x); c != nil {
			v, bound, strict = c, y, b.Op == token.GTR || b.Op == token.LSS
		}
		return v == nil
	})
	return v, bound, strict
}

// levelOf is the counter x reads: f, or len(w).
func (r *Result) levelOf(x ast.Expr) *types.Var {
	if call, ok := astutil.Unparen(x).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "len" {
			return r.counterField(call.Args[0])
		}
		return nil
	}
	return r.counterField(x)
}

// opensOrLeaves reports a branch that returns or opens a state: assigns
// a field, itself or in a method of the package it calls (b.trip()).
func (r *Result) opensOrLeaves(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	return found || len(r.fieldsSet(body, 1)) > 0
}

// fieldsSet returns the struct fields a block assigns, itself or, depth
// levels down, in the package functions it calls: the state a breaker's
// trip opens, whether written inline or in an open() method.
func (r *Result) fieldsSet(body ast.Node, depth int) []*types.Var {
	info := r.pass.TypesInfo
	var out []*types.Var
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok {
					if s, ok := info.Uses[sel.Sel].(*types.Var); ok && s.IsField() {
						out = append(out, s)
					}
				}
			}
		case *ast.CallExpr:
			if depth > 0 {
				if d := r.Decl(r.Callee(n)); d != nil && d.Body != nil && d.Body != body {
					out = append(out, r.fieldsSet(d.Body, depth-1)...)
				}
			}
		}
		return true
	})
	return out
}

// endsInReturn reports a branch whose last statement returns.
func endsInReturn(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	_, ok := body.List[len(body.List)-1].(*ast.ReturnStmt)
	return ok
}

// isZero reports the integer constant 0.
func isZero(info *types.Info, e ast.Expr) bool {
	k, ok := constInt(info, e)
	return ok && k == 0
}

// countedCalls calls f with each remote call of fd whose error is tested
// (if err != nil, on the error assigned from the call) and the branch
// taken on the error.
func (r *Result) countedCalls(fd *ast.FuncDecl, f func(*ast.CallExpr, *ast.BlockStmt)) {
	info := r.pass.TypesInfo
	calls := map[*types.Var]*ast.CallExpr{} // err variable -> the remote call that set it last
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Rhs) != 1 {
				return true
			}
			call, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return true
			}
			lhs := n.Lhs[len(n.Lhs)-1]
			id, ok := astutil.Unparen(lhs).(*ast.Ident)
			if !ok {
				return true
			}
			v, _ := info.Defs[id].(*types.Var)
			if v == nil {
				v, _ = info.Uses[id].(*types.Var)
			}
			if v == nil || !isErrorType(v.Type()) {
				return true
			}
			if r.Remote(call) {
				calls[v] = call
			} else {
				delete(calls, v)
			}
		case *ast.IfStmt:
			b := errTestOf(info, n.Cond)
			if b == nil {
				return true
			}
			id, ok := astutil.Unparen(b.X).(*ast.Ident)
			if !ok {
				return true
			}
			v, _ := info.Uses[id].(*types.Var)
			call := calls[v]
			if call == nil {
				return true
			}
			if b.Op == token.NEQ {
				f(call, n.Body)
			} else if els, ok := n.Else.(*ast.BlockStmt); ok {
				f(call, els)
			}
		}
		return true
	})
}

// errTestOf returns the nil test of an error that cond is, or that
// decides it as an operand of ||: `err != nil || resp.StatusCode >= 500`
// takes its branch on every error. An == test stands alone: its else
// branch is the error's only when nothing else is tested.
func errTestOf(info *types.Info, cond ast.Expr) *ast.BinaryExpr {
	b, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return nil
	}
	if b.Op == token.LOR {
		if t := errTestOf(info, b.X); t != nil && t.Op == token.NEQ {
			return t
		}
		if t := errTestOf(info, b.Y); t != nil && t.Op == token.NEQ {
			return t
		}
		return nil
	}
	if (b.Op != token.NEQ && b.Op != token.EQL) || !isNil(info, b.Y) {
		return nil
	}
	return b
}

// countIn finds the counting in branch: an increment or append of a
// breaker's counter, or a call of a method that makes one.
func (r *Result) countIn(branch *ast.BlockStmt, countsIn map[*types.Func]*types.Var) (ast.Node, *types.Var) {
	var node ast.Node
	var v *types.Var
	counters := map[*types.Var]bool{}
	for _, c := range countsIn {
		counters[c] = true
	}
	ast.Inspect(branch, func(n ast.Node) bool {
		if v != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IncDecStmt:
			if f := r.counterField(n.X); f != nil && n.Tok == token.INC && counters[f] {
				node, v = n, f
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && (n.Tok == token.ADD_ASSIGN || isAppend(r.pass.TypesInfo, n.Rhs[0])) {
				if f := r.counterField(n.Lhs[0]); f != nil && counters[f] {
					node, v = n, f
				}
			}
		case *ast.CallExpr:
			if fn := r.Callee(n); fn != nil {
				if c := countsIn[fn.Origin()]; c != nil {
					node, v = n, c
				}
			}
		}
		return v == nil
	})
	return node, v
}

// namesCtxErr reports a body that names context.Canceled or
// DeadlineExceeded or asks a context's Err, itself or in a function of the
// package it calls (two levels).
func (r *Result) namesCtxErr(n ast.Node, depth int) bool {
	info := r.pass.TypesInfo
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		switch e := x.(type) {
		case *ast.SelectorExpr:
			if _, ok := ctxSentinel(info, e); ok {
				found = true
			}
		case *ast.CallExpr:
			if m, ok := typeutil.Callee(info, e).(*types.Func); ok && m.Name() == "Err" && RecvName(m) == "Context" {
				found = true // ctx.Err(): an interface call, no static callee
				break
			}
			fn := r.Callee(e)
			if fn == nil {
				break
			}
			if d := r.Decl(fn); depth < 2 && d != nil && d.Body != nil && r.namesCtxErr(d.Body, depth+1) {
				found = true
			}
		}
		return !found
	})
	return found
}

// callContext is the caller's context call runs on: one it is handed, or
// the one its argument was built with in fd (req built by
// http.NewRequestWithContext(ctx, ...)).
func (r *Result) callContext(call *ast.CallExpr, fd *ast.FuncDecl) (string, bool) {
	if ctx, ok := r.CallerContext(call, fd); ok {
		return ctx, true
	}
	for _, a := range call.Args {
		id, ok := astutil.Unparen(a).(*ast.Ident)
		if !ok {
			continue
		}
		v, ok := r.pass.TypesInfo.Uses[id].(*types.Var)
		if !ok {
			continue
		}
		if val, ok := r.singleAssign(fd, v, true); ok {
			if ctx, ok := r.CallerContext(val, fd); ok {
				return ctx, true
			}
		}
	}
	return "", false
}

// isAppend reports a call of the append builtin.
func isAppend(info *types.Info, e ast.Expr) bool {
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	return ok && info.Uses[id] == types.Universe.Lookup("append")
}
