package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// An AttemptDeadline is a test in a retry's body that leaves the retry,
// before the retry decision, when an attempt's own deadline has passed:
// actx, cancel := context.WithTimeout(ctx, d); ...; if actx.Err() != nil {
// return err } (or errors.Is(err, context.DeadlineExceeded) on the error of
// a call made on actx). One attempt that hits its own timeout then ends the
// whole retry, which is the failure the per-attempt timeout was there to
// retry.
type AttemptDeadline struct {
	Cond   token.Pos     // the condition of the test
	Ctx    *types.Var    // the per-attempt context
	Parent *types.Var    // the context it is derived from, nil if no variable
	Call   *ast.CallExpr // the WithTimeout / WithDeadline that makes it
}

// attemptDeadline finds the first such test in body: an if (not in a
// nested function, switch or select, where break means something else)
// whose body leaves the loop and whose condition certainly holds in the
// state "this attempt's context is done, the caller's is live" (the
// context-error evaluation of ctxerr.go, with the attempt's context done
// and every other context live) and names the attempt's deadline: a test
// of err != nil alone is the ordinary failure test, and one that also
// requires the caller's context to be done is right.
func (p *pkgCtx) attemptDeadline(body *ast.BlockStmt) *AttemptDeadline {
	// The per-attempt contexts: actx, cancel := context.WithTimeout(ctx, d).
	var actxs []*AttemptDeadline
	errs := make(map[*types.Var]*types.Var) // an attempt's error -> its context
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
		fn := typeutil.StaticCallee(p.info, call)
		if len(as.Lhs) == 2 && len(call.Args) == 2 && (isFunc(fn, "context", "WithTimeout") || isFunc(fn, "context", "WithDeadline")) {
			if id, ok := as.Lhs[0].(*ast.Ident); ok {
				if v, ok := p.info.ObjectOf(id).(*types.Var); ok {
					var parent *types.Var
					if pid, ok := astutil.Unparen(call.Args[0]).(*ast.Ident); ok {
						parent, _ = p.info.Uses[pid].(*types.Var)
					}
					actxs = append(actxs, &AttemptDeadline{Ctx: v, Parent: parent, Call: call})
				}
			}
			return true
		}
		// The attempt's errors: err assigned from a call handed an attempt's context.
		var ctx *types.Var
		for _, a := range call.Args {
			if id, ok := astutil.Unparen(a).(*ast.Ident); ok {
				for _, ad := range actxs {
					if p.info.Uses[id] == ad.Ctx {
						ctx = ad.Ctx
					}
				}
			}
		}
		for _, lhs := range as.Lhs {
			if id, ok := lhs.(*ast.Ident); ok && ctx != nil {
				if v, ok := p.info.ObjectOf(id).(*types.Var); ok && isErrorType(v.Type()) {
					errs[v] = ctx
				}
			}
		}
		return true
	})
	if len(actxs) == 0 {
		return nil
	}
	ends := func(cond ast.Expr) *AttemptDeadline {
		for _, ad := range actxs {
			e := &ctxErrEval{p: p, which: "DeadlineExceeded", bound: map[*types.Var]ctxVal{ad.Ctx: {done: true}}, liveCtxs: true}
			for v, c := range errs {
				if c == ad.Ctx {
					e.bound[v] = ctxVal{isErr: true}
				}
			}
			if e.cond(cond) == Yes && p.namesDeadline(cond, ad.Ctx) {
				out := *ad
				out.Cond = cond.Pos()
				return &out
			}
		}
		return nil
	}
	var walk func(stmts []ast.Stmt) *AttemptDeadline
	walk = func(stmts []ast.Stmt) *AttemptDeadline {
		for _, st := range stmts {
			switch st := st.(type) {
			case *ast.IfStmt:
				if p.blockLeavesAny(st.Body) {
					if ad := ends(st.Cond); ad != nil {
						return ad
					}
				}
				if ad := walk(st.Body.List); ad != nil {
					return ad
				}
				if eb, ok := st.Else.(*ast.BlockStmt); ok {
					if ad := walk(eb.List); ad != nil {
						return ad
					}
				}
			case *ast.BlockStmt:
				if ad := walk(st.List); ad != nil {
					return ad
				}
			}
		}
		return nil
	}
	return walk(body.List)
}

// namesDeadline reports whether a condition reads actx.Err() or
// context.DeadlineExceeded.
func (p *pkgCtx) namesDeadline(cond ast.Expr, actx *types.Var) bool {
	return contains(cond, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if v, ok := p.info.Uses[sel.Sel].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "context" && v.Name() == "DeadlineExceeded" {
			return true
		}
		id, ok := astutil.Unparen(sel.X).(*ast.Ident)
		return ok && sel.Sel.Name == "Err" && p.info.Uses[id] == actx
	})
}

// ctxAtom evaluates x == y for a context's Err() and a context itself:
// a bound done context's Err is set; with liveCtxs every other context's
// Err is nil (so neither context.Canceled nor DeadlineExceeded), and a
// context variable holds a context.
func (e *ctxErrEval) ctxAtom(x, y ast.Expr) Tri {
	if _, isSentinel := e.ctxSentinel(y); isSentinel {
		if e.liveErr(x) {
			return No // ctx.Err() == context.Canceled on a live context
		}
		return Unknown
	}
	if !isNil(e.p.info, y) {
		return Unknown
	}
	x = astutil.Unparen(x)
	if sel := ctxErrCall(e.p.info, x); sel != nil {
		if _, b, ok := e.varOf(sel.X); ok && b.done {
			return No
		}
		if e.liveCtxs {
			return Yes
		}
		return Unknown
	}
	if id, ok := x.(*ast.Ident); ok && e.liveCtxs {
		if v := e.p.identVar(id); v != nil && IsContext(v.Type()) {
			return No
		}
	}
	return Unknown
}

// liveErr reports x as the Err() of a context the state takes for live
// (liveCtxs, and not bound done): its value is nil.
func (e *ctxErrEval) liveErr(x ast.Expr) bool {
	sel := ctxErrCall(e.p.info, x)
	if sel == nil || !e.liveCtxs {
		return false
	}
	_, b, ok := e.varOf(sel.X)
	return !ok || !b.done
}

// ctxErrCall returns the selector of x when x is ctx.Err() on a context.
func ctxErrCall(info *types.Info, x ast.Expr) *ast.SelectorExpr {
	call, ok := astutil.Unparen(x).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Err" || !IsContext(info.TypeOf(sel.X)) {
		return nil
	}
	return sel
}

// WhileLive evaluates cond as it stands while every context is live: each
// ctx.Err() is nil, so ctx.Err() != nil, ctx.Err() == context.Canceled and
// errors.Is(ctx.Err(), context.DeadlineExceeded) are false. No says the
// condition holds only once a context is done (code under it runs on a
// done context); Yes that it fails then; Unknown when the rest of the
// condition decides.
func (r *Result) WhileLive(cond ast.Expr) Tri {
	p := &pkgCtx{pass: r.pass, info: r.pass.TypesInfo, res: r}
	e := &ctxErrEval{p: p, bound: make(map[*types.Var]ctxVal), liveCtxs: true}
	return e.cond(cond)
}
