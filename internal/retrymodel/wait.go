package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// waitInfo describes a package function that waits for a duration it is
// given: func sleepCtx(ctx context.Context, d time.Duration) error.
type waitInfo struct {
	arg         int // the parameter waited for; -1 when the helper computes the duration
	cancellable bool
	// dur is the duration the helper waits, in terms of its parameters and
	// receiver (time.Second << attempt, p.base * n), when it computes it;
	// decl is the helper. Only package functions have it.
	dur  ast.Expr
	decl *ast.FuncDecl
	// table and tableArg are an imported helper's waits by argument
	// (FuncFact.WaitTable).
	table    []time.Duration
	tableArg int
}

// A waitSite is one place a retry region waits.
type waitSite struct {
	node        ast.Node // the call, receive or select
	dur         ast.Expr // the duration waited, when visible
	cancellable Tri      // No for time.Sleep, Yes for a select with ctx.Done
	ticker      bool     // a ticker or time.Tick: the loop polls, it does not retry
	// backoff is the BackOff a cenkalti backoff.NewTicker(b) was built
	// from, and backoffPkg its import path: the ticker fires on its schedule.
	backoff    ast.Expr
	backoffPkg string
	// call and helper are set when the wait is a helper that computes its
	// duration: dur is then in the helper's terms, evaluated with its
	// parameters bound to call's arguments.
	call   *ast.CallExpr
	helper *ast.FuncDecl
	// table is an imported helper's waits by argument tableArg.
	table    []time.Duration
	tableArg int
	// funcValue: the wait is a call of a func value (funcwait.go), via
	// names the functions it waits through.
	funcValue bool
	via       []string
}

// waitsIn returns the waits of a region, without descending into nested
// loops (their waits are theirs) or closures that are not called in place.
func (p *pkgCtx) waitsIn(root ast.Node) []waitSite {
	var out []waitSite
	inSelect := make(map[ast.Node]bool)
	p.inspectRegion(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectStmt:
			w, ok := p.selectWait(n)
			if ok {
				out = append(out, w)
			}
			// The default clause is not the select's: a select that polls
			// ctx and goes on (default: ... time.Sleep(d)) leaves its waits
			// to that clause. The other clauses are the select's own (a
			// timer drained after Stop on the ctx.Done() side is no wait).
			for _, cl := range n.Body.List {
				if cc, ok := cl.(*ast.CommClause); ok && cc.Comm != nil {
					ast.Inspect(cc, func(m ast.Node) bool {
						if m != nil {
							inSelect[m] = true
						}
						return true
					})
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && !inSelect[n] {
				if w, ok := p.recvWait(n.X); ok {
					w.node = n
					out = append(out, w)
				}
			}
		case *ast.CallExpr:
			if inSelect[n] {
				return true
			}
			// A method of an interface whose one implementation in the
			// package is a sleep helper (c.handler.Delay(...) with the
			// package's DefaultHandler) waits as that method does.
			fn := p.res.Callee(n)
			if fn == nil {
				if w, ok := p.funcValueWait(n); ok { // funcwait.go
					out = append(out, w)
				}
				return true
			}
			if isFunc(fn, "time", "Sleep") && len(n.Args) == 1 {
				out = append(out, waitSite{node: n, dur: n.Args[0], cancellable: No})
				return true
			}
			if w, ok := p.waiterOf(fn); ok && w.arg < len(n.Args) {
				c := No
				if w.cancellable {
					c = Yes
				}
				if w.arg < 0 && w.table != nil {
					out = append(out, waitSite{node: n, dur: n, cancellable: c, call: n, table: w.table, tableArg: w.tableArg})
				} else if w.arg < 0 {
					out = append(out, waitSite{node: n, dur: w.dur, cancellable: c, call: n, helper: w.decl})
				} else {
					out = append(out, waitSite{node: n, dur: n.Args[w.arg], cancellable: c})
				}
			}
		}
		return true
	})
	return out
}

// contains reports whether pred holds for a node under root (or root).
func contains(root ast.Node, pred func(ast.Node) bool) bool {
	found := false
	ast.Inspect(root, func(n ast.Node) bool {
		found = found || n != nil && pred(n)
		return !found
	})
	return found
}

// mentions reports whether e names a variable for which pred holds.
func (p *pkgCtx) mentions(e ast.Node, pred func(*types.Var) bool) bool {
	return contains(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return false
		}
		v := p.identVar(id)
		return v != nil && pred(v)
	})
}

// inspectRegion walks root, skipping nested loops and closures that are not
// invoked where they are written.
func (p *pkgCtx) inspectRegion(root ast.Node, f func(ast.Node) bool) {
	walkRegion(root, false, f)
}

// inspectCalls walks root like inspectRegion but enters nested loops.
func (p *pkgCtx) inspectCalls(root ast.Node, f func(ast.Node) bool) {
	walkRegion(root, true, f)
}

func walkRegion(root ast.Node, loops bool, f func(ast.Node) bool) {
	var called map[*ast.FuncLit]bool
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if n != root {
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				if !loops {
					return false
				}
			case *ast.CallExpr:
				if lit, ok := astutil.Unparen(n.Fun).(*ast.FuncLit); ok {
					if called == nil {
						called = make(map[*ast.FuncLit]bool)
					}
					called[lit] = true
				}
			case *ast.FuncLit:
				if !called[n] {
					return false
				}
			}
		}
		return f(n)
	})
}

// selectWait recognises a select that waits: a timer case, optionally
// with a ctx.Done case that makes it cancellable.
func (p *pkgCtx) selectWait(s *ast.SelectStmt) (waitSite, bool) {
	var w waitSite
	found, done := false, false
	for _, c := range s.Body.List {
		cc, ok := c.(*ast.CommClause)
		if !ok {
			continue
		}
		if cc.Comm == nil {
			return waitSite{}, false // a default: the select never blocks
		}
		u, ok := astutil.Unparen(CommRecv(cc.Comm)).(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW {
			continue
		}
		if p.isDoneChan(u.X) {
			done = true
			continue
		}
		if rw, ok := p.recvWait(u.X); ok {
			w, found = rw, true
			continue
		}
		// Any other channel (a shutdown or quit channel) also ends the wait early.
		done = true
	}
	if !found {
		return waitSite{}, false
	}
	w.node = s
	if done {
		w.cancellable = Yes
	} else {
		w.cancellable = No
	}
	return w, true
}

// recvWait recognises a channel that fires after a duration:
// time.After(d), t.C of a time.NewTimer(d), a ticker's C or time.Tick.
func (p *pkgCtx) recvWait(ch ast.Expr) (waitSite, bool) {
	ch = astutil.Unparen(ch)
	if call, ok := ch.(*ast.CallExpr); ok {
		fn := typeutil.StaticCallee(p.info, call)
		switch {
		case isFunc(fn, "time", "After") && len(call.Args) == 1:
			return waitSite{dur: call.Args[0], cancellable: No}, true
		case isFunc(fn, "time", "Tick"):
			return waitSite{ticker: true}, true
		}
		return waitSite{}, false
	}
	sel, ok := ch.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "C" {
		return waitSite{}, false
	}
	named, ok := deref(p.info.TypeOf(sel.X)).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return waitSite{}, false
	}
	if path := named.Obj().Pkg().Path(); strings.HasPrefix(path, "github.com/cenkalti/backoff") && named.Obj().Name() == "Ticker" {
		// backoff.NewTicker(b).C fires on the backoff's schedule.
		w := waitSite{cancellable: No, backoffPkg: path}
		if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok {
			w.backoff = p.constructorArg(id, path, "NewTicker")
		}
		return w, true
	}
	if named.Obj().Pkg().Path() != "time" {
		return waitSite{}, false
	}
	switch named.Obj().Name() {
	case "Ticker":
		if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok {
			if d := p.tickerOnce(id, ch); d != nil {
				// t := time.NewTicker(d) made where it is read: the
				// first tick, d from now, is all it waits for.
				return waitSite{dur: d, cancellable: No}, true
			}
		}
		return waitSite{ticker: true}, true
	case "Timer":
		w := waitSite{cancellable: No}
		if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok {
			w.dur = p.timerDuration(id)
		}
		return w, true
	}
	return waitSite{}, false
}

// constructorArg finds b in t := pkg.ctor(b, ...) for the variable id.
func (p *pkgCtx) constructorArg(id *ast.Ident, pkg, ctor string) ast.Expr {
	v, _ := p.info.Uses[id].(*types.Var)
	if v == nil {
		return nil
	}
	var arg ast.Expr
	for _, f := range p.pass.Files {
		if f.Pos() > v.Pos() || v.Pos() > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			lid, ok := as.Lhs[0].(*ast.Ident)
			if !ok || (p.info.Defs[lid] != v && p.info.Uses[lid] != v) {
				return true
			}
			if call, ok := as.Rhs[0].(*ast.CallExpr); ok && isFunc(typeutil.StaticCallee(p.info, call), pkg, ctor) && len(call.Args) >= 1 {
				arg = call.Args[0]
			}
			return true
		})
	}
	return arg
}

// tickerOnce finds d in t := time.NewTicker(d) when the ticker is read
// (recv) in the same turn it is made: no loop holds the read that does
// not hold the NewTicker too, so each ticker fires once for the reader, a
// timer in all but name. A ticker made before the loop that reads it
// ticks for every turn: a poll.
func (p *pkgCtx) tickerOnce(id *ast.Ident, recv ast.Node) ast.Expr {
	d := p.constructorArg(id, "time", "NewTicker")
	if d == nil {
		return nil
	}
	for _, f := range p.pass.Files {
		if f.Pos() > recv.Pos() || recv.End() > f.End() {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(f, recv.Pos(), recv.End())
		for _, n := range path {
			switch n := n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				return d // the function's own body: made and read once
			case *ast.ForStmt, *ast.RangeStmt:
				if d.Pos() < n.Pos() || d.End() > n.End() {
					return nil // made outside the loop that reads it
				}
				return d
			}
		}
	}
	return nil
}

// timerDuration finds d in t := time.NewTimer(d).
func (p *pkgCtx) timerDuration(id *ast.Ident) ast.Expr {
	return p.constructorArg(id, "time", "NewTimer")
}

// isDoneChan reports whether e is ctx.Done() for a context.
func (p *pkgCtx) isDoneChan(e ast.Expr) bool {
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Done" && IsContext(p.info.TypeOf(sel.X))
}

func (p *pkgCtx) waiterOf(fn *types.Func) (waitInfo, bool) {
	fn = fn.Origin()
	if w, ok := p.waiter[fn]; ok {
		return w, true
	}
	if fn.Pkg() != p.pass.Pkg {
		var f FuncFact
		if p.pass.ImportObjectFact(fn, &f) && f.Waiter {
			return waitInfo{arg: f.WaitArg, cancellable: f.Cancellable}, true
		}
		if len(f.WaitTable) > 0 {
			return waitInfo{arg: -1, cancellable: f.Cancellable, table: f.WaitTable, tableArg: f.WaitTableArg}, true
		}
	}
	return waitInfo{}, false
}

// indexHelpers finds the package's sleep helpers and Retry-After readers.
func (p *pkgCtx) indexHelpers() {
	p.waiter = make(map[*types.Func]waitInfo)
	p.raFunc = make(map[*types.Func]bool)
	// A helper that calls a sleep helper is one too, so the helpers are
	// found to a fixed point, in source order: found in map order, which
	// of them counted depended on which was seen first. Passes after the
	// first read only the functions that call one found in the pass before.
	pending := p.res.funcsInOrder()
	var found map[*types.Func]bool
	for pass := 0; len(pending) > 0 && pass < 4; pass++ {
		newly := map[*types.Func]bool{}
		var next []*types.Func
		for _, fn := range pending {
			if p.indexHelper(fn, pass == 0, found) {
				newly[fn] = true
			} else {
				next = append(next, fn)
			}
		}
		if len(newly) == 0 {
			break
		}
		pending, found = next, newly
	}
	// Retry-After readers through calls of the package's own functions
	// (and interfaces they implement): the walk above saw the imported
	// facts already, so only the calls whose answer can change since are
	// read again, until nothing changes.
	local := make(map[*types.Func][]*ast.CallExpr)
	for fn, decl := range p.res.decls {
		if p.raFunc[fn] || decl.Body == nil {
			continue
		}
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if callee := typeutil.StaticCallee(p.info, call); callee == nil || callee.Pkg() == p.pass.Pkg {
					local[fn] = append(local[fn], call)
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for fn, calls := range local {
			if p.raFunc[fn] {
				continue
			}
			for _, call := range calls {
				if p.callReadsRetryAfter(call) {
					p.raFunc[fn], changed = true, true
					break
				}
			}
		}
	}
}

// indexHelper records fn as a sleep helper when it waits, outside any
// loop, for a duration parameter or one it computes (waitHelper); first,
// on the first pass, also whether it reads Retry-After. On later passes
// only a function that calls one of after is read. It reports whether fn
// became a helper.
func (p *pkgCtx) indexHelper(fn *types.Func, first bool, after map[*types.Func]bool) bool {
	decl := p.res.decls[fn]
	if decl.Body == nil {
		return false
	}
	if first && p.mentionsRetryAfter(decl.Body) {
		p.raFunc[fn] = true
	}
	if !first && !contains(decl.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		f := typeutil.StaticCallee(p.info, c)
		return f != nil && after[f.Origin()]
	}) {
		return false
	}
	sig := fn.Type().(*types.Signature)
	// A sleep helper waits, outside any loop, for a duration parameter
	// or for one it computes from its parameters (waitHelper).
	for _, w := range p.waitsIn(decl.Body) {
		if w.ticker || w.dur == nil || w.cancellable == Unknown {
			continue // a func value nobody here sets is no helper to summarise
		}
		id, ok := astutil.Unparen(w.dur).(*ast.Ident)
		if !ok {
			if wi, ok := p.waitHelper(decl, sig, w); ok {
				p.waiter[fn] = wi
			}
			continue
		}
		param := false
		for i := 0; i < sig.Params().Len(); i++ {
			if p.info.Uses[id] == sig.Params().At(i) {
				p.waiter[fn] = waitInfo{arg: i, cancellable: w.cancellable == Yes}
				param = true
			}
		}
		if !param {
			// A local the helper computes (d := g.next; g.next *= 2).
			if wi, ok := p.waitHelper(decl, sig, w); ok {
				p.waiter[fn] = wi
			}
		}
	}
	_, ok := p.waiter[fn]
	return ok
}

// callReadsRetryAfter reports a call to a function that reads Retry-After
// for its caller. A retry library or SDK that honours the header does so
// for its own retries (the layer's policy says so), not for a loop around
// it, and neither does a function that retries by itself.
func (p *pkgCtx) callReadsRetryAfter(call *ast.CallExpr) bool {
	fn := typeutil.StaticCallee(p.info, call)
	if fn == nil {
		return p.ifaceReadsRetryAfter(call) // iface.go
	}
	fn = fn.Origin()
	if fn.Pkg() == p.pass.Pkg {
		return p.raFunc[fn]
	}
	if knownPath(fn.Pkg().Path()) {
		return false
	}
	if v, ok := p.raImported[fn]; ok {
		return v
	}
	var f FuncFact
	v := p.pass.ImportObjectFact(fn, &f) && f.RetryAfter && len(f.Chains) == 0
	if p.raImported == nil {
		p.raImported = make(map[*types.Func]bool)
	}
	p.raImported[fn] = v
	return v
}

// mentionsRetryAfter reports a "Retry-After" or "retry-after-ms" string in n.
func (p *pkgCtx) mentionsRetryAfter(n ast.Node) bool {
	return p.retryAfterPos(n).IsValid()
}

func (p *pkgCtx) retryAfterPos(n ast.Node) token.Pos {
	var pos token.Pos
	ast.Inspect(n, func(m ast.Node) bool {
		if pos.IsValid() {
			return false
		}
		e, ok := m.(ast.Expr)
		if !ok {
			return true
		}
		if cand, descend := p.raCandidate(e); !cand {
			if !descend {
				return false
			}
		} else if tv, ok := p.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			if isHintHeader(constant.StringVal(tv.Value)) {
				pos = e.Pos()
			}
			return false
		}
		if call, ok := m.(*ast.CallExpr); ok && p.callReadsRetryAfter(call) {
			pos = call.Pos()
			return false
		}
		return true
	})
	return pos
}

func isFunc(fn *types.Func, pkg, name string) bool {
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkg && fn.Name() == name
}

func deref(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return types.Unalias(p.Elem())
	}
	return types.Unalias(t)
}

// CommRecv returns the expression a select case's statement receives
// with: <-ch in case <-ch: or case v, ok := <-ch:; nil for a send.
func CommRecv(comm ast.Stmt) ast.Expr {
	switch st := comm.(type) {
	case *ast.ExprStmt:
		return st.X
	case *ast.AssignStmt:
		if len(st.Rhs) == 1 {
			return st.Rhs[0]
		}
	}
	return nil
}

// isHintHeader reports the name of a header that carries a server's wait.
func isHintHeader(s string) bool {
	s = strings.ToLower(s)
	return s == "retry-after" || s == "retry-after-ms" || s == "x-ratelimit-reset" || s == "x-ratelimit-reset-requests"
}

// raCandidate is constCandidate for the hint headers: a named constant is
// a candidate only when it is one of the package's uses of a constant
// that names such a header, found once per package, so that the walk of
// every function body does not look up every identifier.
func (p *pkgCtx) raCandidate(e ast.Expr) (cand, descend bool) {
	if p.raConsts == nil {
		p.raConsts = map[types.Object]bool{}
		for _, obj := range p.info.Uses {
			if c, ok := obj.(*types.Const); ok && c.Val().Kind() == constant.String && isHintHeader(constant.StringVal(c.Val())) {
				p.raConsts[c] = true
			}
		}
	}
	switch e := e.(type) {
	case *ast.Ident:
		return len(p.raConsts) > 0 && p.raConsts[p.info.Uses[e]], false
	case *ast.SelectorExpr:
		if len(p.raConsts) > 0 && p.raConsts[p.info.Uses[e.Sel]] {
			return true, false
		}
		return false, true
	}
	return constCandidate(p.info, e)
}

// constCandidate says whether e can be a string constant (a string
// literal, a named constant, a concatenation), so that its type is worth
// looking up: the type of every expression is a map lookup a walk over
// every function cannot afford; descend, whether what is inside e may
// still hold one (the operand of x.f, a call's arguments).
func constCandidate(info *types.Info, e ast.Expr) (cand, descend bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING, false
	case *ast.Ident:
		_, isConst := info.Uses[e].(*types.Const)
		return isConst, false
	case *ast.SelectorExpr:
		if _, isConst := info.Uses[e.Sel].(*types.Const); isConst {
			return true, false
		}
		return false, !isPkgName(info, e.X)
	case *ast.BinaryExpr:
		return e.Op == token.ADD, true
	}
	return false, true
}

// isPkgName reports an identifier that names an imported package.
func isPkgName(info *types.Info, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	_, isPkg := info.Uses[id].(*types.PkgName)
	return isPkg
}
