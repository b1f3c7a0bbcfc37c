package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// uncancellableWait reports the first wait of the layer that cannot be
// interrupted (time.Sleep, a bare <-time.After, a select on timers only, a
// sleep helper that ignores its context) when a context is in scope at the
// wait. attemptOnly is the attempt-only clause of the same layer, if any:
// it is carried by this message, since waiting in a select on ctx.Done()
// also gives the retry its wall-clock bound. The suggested fix rewrites
// every time.Sleep(d) and <-time.After(d) statement of the layer into
//
//	select {
//	case <-ctx.Done():
//		return ..., ctx.Err()
//	case <-time.After(d):
//	}
//
// when the enclosing function's results allow a type-correct return.
// It reports whether it reported.
func (c *checker) uncancellableWait(l *retrymodel.Layer, attemptOnly string) bool {
	if l.Policy.ConflictOnly.IsValid() && attemptOnly == "" {
		return false // a conflict retry's wait is a short pause before re-reading
	}
	// Known waits that add up to less than a second keep a cancelled caller
	// waiting less than that: not worth a finding (as for attempt-only).
	if ds, ok := c.waitChoices(l); ok && c.manyWaits(l) && attemptOnly == "" {
		if n, counted := l.Attempts(); counted && mostWaiting(n, ds) <= minWorthBounding {
			return false
		}
	} else if pol := &l.Policy; pol.WaitsKnown && len(pol.Waits) > 0 && attemptOnly == "" {
		var total time.Duration
		for _, w := range pol.Waits {
			total += w
		}
		if total <= minWorthBounding {
			return false
		}
	} else if ds, ok := c.waitChoices(l); ok && len(pol.Waits) == 0 && attemptOnly == "" {
		// One wait of a few constants (a switch on the attempt): the same
		// bound the attempt-only clause reads.
		if n, counted := l.Attempts(); counted && mostWaiting(n, ds) <= minWorthBounding {
			return false
		}
	}
	if ws, _, ok := c.prodWaits(l); ok && attemptOnly == "" && sum(ws) <= minWorthBounding {
		return false
	}
	// The same for the waits of the package's own defaults (a
	// constructor's schedule a caller may replace): by default they cost
	// a cancelled caller less than a second. With no bound on the count
	// by default, what a cancel costs is one wait, and only when the
	// loop sees the cancellation each turn (a ctx.Done or ctx.Err check):
	// else it waits on for as long as the attempts keep failing.
	if ws := l.Policy.DefaultWaits; len(ws) > 0 && attemptOnly == "" {
		cost := sum(ws)
		if l.Policy.DefaultMore {
			cost = minWorthBounding
			if l.Policy.DeadlineAware == retrymodel.Yes && !l.Policy.DefaultSpread {
				cost = slices.Max(ws)
			}
		}
		if cost < minWorthBounding {
			return false
		}
	}
	var first *waitSite
	var edits []analysis.TextEdit
	for _, n := range l.Waits {
		w, ok := c.uncancellable(n)
		if !ok {
			continue
		}
		// What can cancel the code at the wait, by where it comes from
		// (retrymodel/cancel.go): a context in scope, a request, a field
		// or accessor of the receiver or a parameter.
		src, ok := c.res.CancelSource(l, n.Pos())
		if !ok || src.Var != nil && (c.doneNilOnly(n, src.Var) || c.errSetOnly(n)) {
			continue
		}
		w.src = src
		if first == nil {
			first = &w
		}
		if w.stmt != nil {
			if e, ok := c.selectEdit(w); ok {
				edits = append(edits, e)
			}
		}
	}
	if first == nil {
		return c.unboundLibrary(l, attemptOnly) // libcancel.go: the waits are the library's
	}
	done := "done"
	if first.src.Chan {
		done = "closed"
	}
	msg := fmt.Sprintf("wait ignores cancellation: %s in %s keeps waiting after %s is %s", first.what, describe(l), first.src.Name, done)
	msg += cancelLag(l)
	if attemptOnly != "" {
		msg += "; the retry is also attempt-only: " + attemptOnly
		msg += fmt.Sprintf("; wait in a select on %s and a timer, which bounds both", first.src.Done)
	} else {
		msg += fmt.Sprintf("; wait in a select on %s and a timer", first.src.Done)
	}
	var fixes []analysis.SuggestedFix
	if len(edits) > 0 {
		fixes = []analysis.SuggestedFix{{
			Message:   fmt.Sprintf("Wait in a select on %s", first.src.Done),
			TextEdits: edits,
		}}
	}
	c.report(first.node.Pos(), "uncancellable-wait", msg, fixes)
	return true
}

// cancelLag is the clause that says how late a cancel is seen: when the
// wait ends, so the longest wait is how late. With jitter the waits known
// are the schedule before it, and the longest is a lower bound on the
// worst case.
func cancelLag(l *retrymodel.Layer) string {
	lag := func(prefix string, ws []time.Duration) string {
		if l.Policy.Jitter == retrymodel.Yes {
			return fmt.Sprintf(" (%s%s before jitter: a cancel is seen only when the wait ends, %s or more later at worst)", prefix, waitList(ws), fmtDur(slices.Max(ws)))
		}
		return fmt.Sprintf(" (%s%s: a cancel is seen only when the wait ends, up to %s later)", prefix, waitList(ws), fmtDur(slices.Max(ws)))
	}
	if ws, ok := knownWaits(l); ok && len(ws) > 0 {
		if last := l.Policy.LastWait; last > 0 {
			// The wait after the last failure is waited through too.
			return lag("waits ", append(slices.Clip(ws), last))
		}
		return lag("waits ", ws)
	}
	if len(l.Policy.Waits) > 0 {
		text, _ := shownWaits(l)
		return fmt.Sprintf(" (waits %s)", text)
	}
	if text, longest, more := shownDefaultWaits(l); text != "" {
		if more || l.Policy.DefaultSpread {
			return fmt.Sprintf(" (by default waits %s: a cancel is seen only when the wait ends, %s or more later at worst)", text, fmtDur(longest))
		}
		return fmt.Sprintf(" (by default waits %s: a cancel is seen only when the wait ends, up to %s later)", text, fmtDur(longest))
	}
	return ""
}

// A waitSite is a wait that ignores cancellation.
type waitSite struct {
	node ast.Node
	what string // "time.Sleep", "<-time.After", "sleep helper x.F"
	// For the rewrite: the statement and the duration, when the wait is a
	// statement of its own (time.Sleep(d) or <-time.After(d)).
	stmt    *ast.ExprStmt
	dur     ast.Expr
	timePkg string                  // how the file names package time
	src     retrymodel.CancelSource // what the wait ignores, as the code spells it
}

// uncancellable classifies one of the layer's wait nodes.
func (c *checker) uncancellable(n ast.Node) (waitSite, bool) {
	info := c.pass.TypesInfo
	switch n := n.(type) {
	case *ast.CallExpr:
		fn := c.res.Callee(n) // also a method of the package's one implementation of an interface
		if fn == nil {
			// r.sleep(d): a func value the package gives only sleepers
			// that ignore cancellation (retrymodel/funcwait.go).
			if via, cancellable, ok := c.res.FuncValueWait(n); ok && cancellable == retrymodel.No {
				return waitSite{node: n, what: types.ExprString(n.Fun) + " (" + strings.Join(via, ", ") + ")"}, true
			}
			return waitSite{}, false
		}
		if isTimeFunc(fn, "Sleep") && len(n.Args) == 1 {
			w := waitSite{node: n, what: "time.Sleep", dur: n.Args[0]}
			w.stmt, w.timePkg = c.ownStatement(n), timeQualifier(n)
			return w, true
		}
		// A helper that sleeps for a duration it is given, or that it
		// works out from the attempt it is given (a schedule: WaitTable).
		if ff := c.res.Func(fn); ff != nil && (ff.Waiter || len(ff.WaitTable) > 0) && !ff.Cancellable {
			return waitSite{node: n, what: "sleep helper " + retrymodel.FuncName(fn)}, true
		}
	case *ast.UnaryExpr:
		// <-time.After(d) or <-t.C on its own.
		if call, ok := astutil.Unparen(n.X).(*ast.CallExpr); ok {
			if fn := typeutil.StaticCallee(info, call); isTimeFunc(fn, "After") && len(call.Args) == 1 {
				w := waitSite{node: n, what: "<-time.After", dur: call.Args[0]}
				w.stmt, w.timePkg = c.ownStatement(n), timeQualifier(call)
				return w, true
			}
		}
		return waitSite{node: n, what: "a timer receive"}, true
	case *ast.SelectStmt:
		// A select is cancellable when any case receives from something
		// other than a timer: ctx.Done(), a quit channel.
		for _, cl := range n.Body.List {
			cc, ok := cl.(*ast.CommClause)
			if !ok {
				continue
			}
			if cc.Comm == nil {
				return waitSite{}, false // default: does not block
			}
			if !c.isTimerRecv(cc.Comm) {
				return waitSite{}, false
			}
		}
		return waitSite{node: n, what: "a select on timers only"}, true
	}
	return waitSite{}, false
}

// isTimerRecv reports whether a comm clause receives from a timer.
func (c *checker) isTimerRecv(comm ast.Stmt) bool {
	u, ok := astutil.Unparen(retrymodel.CommRecv(comm)).(*ast.UnaryExpr)
	if !ok {
		return false
	}
	switch ch := astutil.Unparen(u.X).(type) {
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(c.pass.TypesInfo, ch)
		return isTimeFunc(fn, "After") || isTimeFunc(fn, "Tick")
	case *ast.SelectorExpr:
		if ch.Sel.Name != "C" {
			return false
		}
		t := c.pass.TypesInfo.TypeOf(ch.X)
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
	}
	return false
}

// ownStatement returns the expression statement that consists of n alone.
func (c *checker) ownStatement(n ast.Node) *ast.ExprStmt {
	path := c.enclosingPath(n)
	for i, p := range path {
		if p == n && i+1 < len(path) {
			if st, ok := path[i+1].(*ast.ExprStmt); ok && st.X == n {
				return st
			}
			return nil
		}
	}
	return nil
}

// doneNilOnly reports whether the wait n is reached only when ctx.Done()
// is nil (the context can never be cancelled): inside the then-branch of
// `if ctx.Done() == nil`, the else-branch of `if ctx.Done() != nil`, or
// after an `if ctx.Done() != nil { ...; continue }` that always leaves.
func (c *checker) doneNilOnly(n ast.Node, ctx *types.Var) bool {
	test := func(ifs *ast.IfStmt) (body, els bool) {
		isNil, ok := c.doneNilTest(ifs, ctx)
		return ok && isNil, ok && !isNil
	}
	return c.onlyWhere(n, test, true)
}

// onlyWhere reports whether n runs, in its function, only inside a branch
// test says holds: the body of an if whose body it names, the else of
// one whose else it names; with after, also below an if without an else
// whose body always leaves and whose else test names (the code after it
// is that else).
func (c *checker) onlyWhere(n ast.Node, test func(*ast.IfStmt) (body, els bool), after bool) bool {
	path := c.enclosingPath(n)
	for i := 1; i < len(path); i++ {
		child := path[i-1]
		switch p := path[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.IfStmt:
			body, els := test(p)
			if child == p.Body && body || child == p.Else && els {
				return true
			}
		case *ast.BlockStmt:
			if !after {
				continue
			}
			for _, st := range p.List {
				if st == child {
					break
				}
				if ifs, ok := st.(*ast.IfStmt); ok && ifs.Else == nil && leaves(ifs.Body) {
					if _, els := test(ifs); els {
						return true
					}
				}
			}
		}
	}
	return false
}

// doneNilTest matches the condition of an if against ctx.Done() == nil or
// != nil (also through `if done := ctx.Done(); done != nil`); isNil is
// true for ==.
func (c *checker) doneNilTest(ifs *ast.IfStmt, ctx *types.Var) (isNil, ok bool) {
	b, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL && b.Op != token.NEQ {
		return false, false
	}
	x, y := astutil.Unparen(b.X), astutil.Unparen(b.Y)
	if c.isNil(x) {
		x, y = y, x
	}
	if !c.isNil(y) {
		return false, false
	}
	if id, ok := x.(*ast.Ident); ok && ifs.Init != nil {
		// done := ctx.Done(); done != nil
		if as, ok := ifs.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if lid, ok := as.Lhs[0].(*ast.Ident); ok && c.pass.TypesInfo.ObjectOf(lid) == c.pass.TypesInfo.ObjectOf(id) {
				x = astutil.Unparen(as.Rhs[0])
			}
		}
	}
	call, ok := x.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false, false
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Done" {
		return false, false
	}
	recv, ok := astutil.Unparen(sel.X).(*ast.Ident)
	if !ok || c.pass.TypesInfo.Uses[recv] != ctx {
		return false, false
	}
	return b.Op == token.EQL, true
}

func (c *checker) isNil(e ast.Expr) bool {
	tv, ok := c.pass.TypesInfo.Types[e]
	return ok && tv.IsNil()
}

// leaves reports whether a block always leaves the statement that holds
// it: it ends in return, continue, break, goto or panic.
func leaves(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.SelectStmt:
		// select { case <-done: return err; case <-timer.C: continue }
		if len(s.Body.List) == 0 {
			return false
		}
		for _, cc := range s.Body.List {
			cc := cc.(*ast.CommClause)
			if !leaves(&ast.BlockStmt{List: cc.Body}) {
				return false
			}
		}
		return true
	case *ast.IfStmt:
		els, ok := s.Else.(*ast.BlockStmt)
		return ok && leaves(s.Body) && leaves(els)
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// valuesOf returns every expression assigned to a local variable (nil when
// it is a parameter or assigned from a multi-value call).
func (c *checker) valuesOf(v *types.Var) []ast.Expr {
	var out []ast.Expr
	for _, f := range c.pass.Files {
		if f.Pos() > v.Pos() || v.Pos() > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					id, ok := lhs.(*ast.Ident)
					if !ok {
						continue
					}
					obj := c.pass.TypesInfo.Defs[id]
					if obj == nil {
						obj = c.pass.TypesInfo.Uses[id]
					}
					if obj != v {
						continue
					}
					if len(n.Rhs) == len(n.Lhs) {
						out = append(out, n.Rhs[i])
					} else {
						out = append(out, nil)
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if c.pass.TypesInfo.Defs[id] == v && i < len(n.Values) {
						out = append(out, n.Values[i])
					}
				}
			}
			return true
		})
	}
	for _, e := range out {
		if e == nil {
			return nil
		}
	}
	return out
}

func isTimeFunc(fn *types.Func, name string) bool {
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == name
}

// timeQualifier returns how the call names package time ("time" unless
// imported under another name); "" when it cannot tell.
func timeQualifier(call *ast.CallExpr) string {
	if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// enclosingPath returns the nodes enclosing n, innermost first (nil when n
// is in no file of the package).
func (c *checker) enclosingPath(n ast.Node) []ast.Node {
	for _, f := range c.pass.Files {
		if f.Pos() <= n.Pos() && n.End() <= f.End() {
			path, _ := astutil.PathEnclosingInterval(f, n.Pos(), n.End())
			return path
		}
	}
	return nil
}

// errSetOnly reports whether n runs only where a context is already done:
// in the body of an if whose condition the model finds false while every
// context is live (ctx.Err() != nil, == context.Canceled, errors.Is(ctx.Err(),
// context.DeadlineExceeded)), or the else of one it finds true (ctx.Err()
// == nil), in the same function. A wait there cannot be cut short by a
// cancel that has happened: the question is the done context the code
// runs on (a cleanup or rollback on it, expiredctx's), and binding the wait
// to it would end that cleanup at once.
func (c *checker) errSetOnly(n ast.Node) bool {
	test := func(ifs *ast.IfStmt) (body, els bool) {
		live := c.res.WhileLive(ifs.Cond)
		return live == retrymodel.No, live == retrymodel.Yes
	}
	return c.onlyWhere(n, test, false)
}
