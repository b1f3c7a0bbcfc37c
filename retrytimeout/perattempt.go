package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// attemptDeadlineEndsRetry reports a retry loop that gives each attempt its
// own deadline (context.WithTimeout inside the loop) and then, before the
// retry decision, leaves the loop when that deadline has passed: an
// `if actx.Err() != nil { return ... }` on the per-attempt context, or an
// errors.Is(err, context.DeadlineExceeded) on the attempt's error. One
// attempt that hits its own timeout then ends the whole retry, which is
// the failure the per-attempt timeout was there to retry. A test of the
// caller's context (the parent) is what belongs there; a condition that
// also requires the parent to be done is quiet.
func (c *checker) attemptDeadlineEndsRetry(l *retrymodel.Layer) {
	if l.Kind != retrymodel.Loop {
		return
	}
	if n, ok := l.Attempts(); ok && n < 2 {
		return
	}
	var body *ast.BlockStmt
	switch n := l.Node.(type) {
	case *ast.ForStmt:
		body = n.Body
	case *ast.RangeStmt:
		body = n.Body
	}
	if body == nil {
		return
	}
	info := c.pass.TypesInfo
	// The per-attempt contexts: ctx2, cancel := context.WithTimeout(ctx, d).
	type attemptCtx struct {
		parent *types.Var
		call   *ast.CallExpr
	}
	actx := map[*types.Var]attemptCtx{}
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return true
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		fn := typeutil.StaticCallee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || (fn.Name() != "WithTimeout" && fn.Name() != "WithDeadline") {
			return true
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok {
			return true
		}
		v, _ := info.ObjectOf(id).(*types.Var)
		if v == nil {
			return true
		}
		var parent *types.Var
		if pid, ok := astutil.Unparen(call.Args[0]).(*ast.Ident); ok {
			parent, _ = info.Uses[pid].(*types.Var)
		}
		actx[v] = attemptCtx{parent: parent, call: call}
		return true
	})
	if len(actx) == 0 {
		return
	}
	// The attempt's errors: err assigned from a call that is handed a
	// per-attempt context.
	attemptErr := map[*types.Var]*types.Var{} // err -> its attempt's context
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return true
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		var ctxVar *types.Var
		for _, a := range call.Args {
			if id, ok := astutil.Unparen(a).(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok {
					if _, ok := actx[v]; ok {
						ctxVar = v
					}
				}
			}
		}
		if ctxVar == nil {
			return true
		}
		for _, lhs := range as.Lhs {
			if id, ok := lhs.(*ast.Ident); ok {
				if v, ok := info.ObjectOf(id).(*types.Var); ok && types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
					attemptErr[v] = ctxVar
				}
			}
		}
		return true
	})
	isActx := make(map[*types.Var]bool, len(actx))
	for v := range actx {
		isActx[v] = true
	}
	// An if in the loop body (not in a nested function, switch or select,
	// where break means something else) that leaves the loop when the
	// attempt's own deadline has passed.
	var walk func(stmts []ast.Stmt) bool
	walk = func(stmts []ast.Stmt) bool {
		for _, st := range stmts {
			switch st := st.(type) {
			case *ast.IfStmt:
				if ctxVar, ok := c.attemptTimedOut(st.Cond, isActx, attemptErr); ok && leavesLoop(st.Body) {
					ac := actx[ctxVar]
					c.reportAttemptDeadline(l, st, ctxVar, ac.parent, ac.call)
					return true
				}
				if walk(st.Body.List) {
					return true
				}
				if eb, ok := st.Else.(*ast.BlockStmt); ok && walk(eb.List) {
					return true
				}
			case *ast.BlockStmt:
				if walk(st.List) {
					return true
				}
			}
		}
		return false
	}
	walk(body.List)
}

// attemptTimedOut evaluates a condition in the state "this attempt's own
// deadline passed, the caller's context is still live": it reports the
// per-attempt context concerned when the condition is then certainly true.
// Atoms: actx.Err() != nil (true), errors.Is(err, context.DeadlineExceeded)
// or err == context.DeadlineExceeded on the attempt's error (true),
// err != nil (true), parent.Err() != nil (false), parent.Err() == nil
// (true); anything else is unknown.
func (c *checker) attemptTimedOut(cond ast.Expr, actx map[*types.Var]bool, attemptErr map[*types.Var]*types.Var) (*types.Var, bool) {
	var which *types.Var
	var eval func(e ast.Expr) retrymodel.Tri
	info := c.pass.TypesInfo
	varOf := func(e ast.Expr) *types.Var {
		if id, ok := astutil.Unparen(e).(*ast.Ident); ok {
			v, _ := info.Uses[id].(*types.Var)
			return v
		}
		return nil
	}
	// errCall matches x.Err() and returns x's variable.
	errCall := func(e ast.Expr) *types.Var {
		call, ok := astutil.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return nil
		}
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Err" || !retrymodel.IsContext(info.TypeOf(sel.X)) {
			return nil
		}
		return varOf(sel.X)
	}
	isDeadlineExceeded := func(e ast.Expr) bool {
		sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		v, ok := info.Uses[sel.Sel].(*types.Var)
		return ok && v.Pkg() != nil && v.Pkg().Path() == "context" && v.Name() == "DeadlineExceeded"
	}
	eval = func(e ast.Expr) retrymodel.Tri {
		e = astutil.Unparen(e)
		switch e := e.(type) {
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				switch eval(e.X) {
				case retrymodel.Yes:
					return retrymodel.No
				case retrymodel.No:
					return retrymodel.Yes
				}
			}
		case *ast.BinaryExpr:
			switch e.Op {
			case token.LAND, token.LOR:
				x, y := eval(e.X), eval(e.Y)
				if e.Op == token.LAND {
					if x == retrymodel.No || y == retrymodel.No {
						return retrymodel.No
					}
					if x == retrymodel.Yes && y == retrymodel.Yes {
						return retrymodel.Yes
					}
					return retrymodel.Unknown
				}
				if x == retrymodel.Yes || y == retrymodel.Yes {
					return retrymodel.Yes
				}
				if x == retrymodel.No && y == retrymodel.No {
					return retrymodel.No
				}
				return retrymodel.Unknown
			case token.EQL, token.NEQ:
				x, y := e.X, e.Y
				if tv, ok := info.Types[astutil.Unparen(x)]; ok && tv.IsNil() {
					x, y = y, x
				}
				yNil := false
				if tv, ok := info.Types[astutil.Unparen(y)]; ok && tv.IsNil() {
					yNil = true
				}
				neq := e.Op == token.NEQ
				var t retrymodel.Tri
				switch {
				case yNil && errCall(x) != nil:
					v := errCall(x)
					if actx[v] {
						which, t = v, retrymodel.Yes // the attempt's ctx is done
					} else {
						t = retrymodel.No // another context: the caller's, still live
					}
				case yNil && attemptErr[varOf(x)] != nil:
					which, t = attemptErr[varOf(x)], retrymodel.Yes // the attempt failed
				case isDeadlineExceeded(y) && attemptErr[varOf(x)] != nil:
					which, t = attemptErr[varOf(x)], retrymodel.Yes
				case yNil && varOf(x) != nil && retrymodel.IsContext(varOf(x).Type()):
					t = retrymodel.Yes // ctx != nil: a context variable holds a context
				default:
					return retrymodel.Unknown
				}
				if !neq {
					if t == retrymodel.Yes {
						return retrymodel.No
					}
					return retrymodel.Yes
				}
				return t
			}
		case *ast.CallExpr:
			fn := typeutil.StaticCallee(info, e)
			if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "Is" && len(e.Args) == 2 &&
				isDeadlineExceeded(e.Args[1]) && attemptErr[varOf(e.Args[0])] != nil {
				which = attemptErr[varOf(e.Args[0])]
				return retrymodel.Yes
			}
		}
		return retrymodel.Unknown
	}
	// Only a condition that names the attempt's deadline counts: err != nil
	// alone is the ordinary failure test.
	if eval(cond) != retrymodel.Yes || which == nil || !c.namesDeadline(cond, actx) {
		return nil, false
	}
	return which, true
}

// namesDeadline reports whether a condition reads a per-attempt context's
// Err or context.DeadlineExceeded.
func (c *checker) namesDeadline(cond ast.Expr, actx map[*types.Var]bool) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if v, ok := c.pass.TypesInfo.Uses[n.Sel].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "context" && v.Name() == "DeadlineExceeded" {
				found = true
			}
			if n.Sel.Name == "Err" {
				if id, ok := astutil.Unparen(n.X).(*ast.Ident); ok {
					if v, ok := c.pass.TypesInfo.Uses[id].(*types.Var); ok && actx[v] {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// leavesLoop reports whether a block always leaves the loop around it: it
// ends in a return or an unlabelled break.
func leavesLoop(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK && s.Label == nil
	}
	return false
}

func (c *checker) reportAttemptDeadline(l *retrymodel.Layer, ifs *ast.IfStmt, actx, parent *types.Var, call *ast.CallExpr) {
	timeout := "its own timeout"
	if len(call.Args) == 2 {
		if d, ok := c.res.Folder.Duration(call.Args[1]); ok {
			timeout = "its own " + fmtDur(d) + " timeout"
		}
	}
	attempts := ""
	if n, ok := l.Attempts(); ok {
		attempts = fmt.Sprintf(" (%d attempts)", n)
	}
	fix := "test the caller's context there and retry when only the attempt's deadline has passed"
	if parent == actx {
		// ctx, cancel = context.WithTimeout(ctx, d): the caller's context
		// is overwritten, so there is nothing left to test it by.
		fix = fmt.Sprintf("keep the caller's context in a variable of its own (%s is overwritten by the attempt's), test that there, and retry when only the attempt's deadline has passed", actx.Name())
	} else if parent != nil {
		fix = fmt.Sprintf("test %s.Err() there (the caller's context) and retry when only %s's deadline has passed", parent.Name(), actx.Name())
	}
	msg := fmt.Sprintf("per-attempt timeout ends the retry: %s is made for each attempt at %s, but this test leaves the %s%s before the retry decision when %s is done, so one attempt that hits %s ends the whole retry instead of being retried; %s",
		actx.Name(), c.short(call.Pos()), describe(l), attempts, actx.Name(), timeout, fix)
	c.report(ifs.Cond.Pos(), "attempt-deadline", msg, nil)
}
