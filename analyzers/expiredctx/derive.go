package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file answers "is this context the expired one, or derived from it?"
// Contexts only ever become done, never undone, and a child is done when its
// parent is; so a call is on an expired context when its context argument is
// the expired variable or was derived from it, except through
// context.WithoutCancel (and context.Background/TODO, which are fresh).
// Assignments are followed by position: the latest assignment to a variable
// before the use, within bounds, is the value used. That is a syntactic
// approximation of flow, good enough for the straight-line code of cleanups.

// An assign is one value given to a variable.
type assign struct {
	stmt token.Pos // the assigning statement
	rhs  ast.Expr  // the value (a multi-value call for tuple assignments); nil when unknown
}

// ctxRef names a context: a local variable or parameter, or a field read
// through a chain of selectors (w.ctx).
type ctxRef struct {
	v    *types.Var
	text string
	sel  bool
}

func (c *checker) indexAssigns() {
	add := func(id *ast.Ident, rhs ast.Expr, stmt token.Pos) {
		if id == nil || id.Name == "_" {
			return
		}
		obj := c.info.Defs[id]
		if obj == nil {
			obj = c.info.Uses[id]
		}
		if v, ok := obj.(*types.Var); ok {
			c.assigns[v] = append(c.assigns[v], assign{stmt: stmt, rhs: rhs})
		}
	}
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE && n.Tok != token.ASSIGN {
					return true
				}
				for i, l := range n.Lhs {
					id, _ := astutil.Unparen(l).(*ast.Ident)
					var rhs ast.Expr
					if len(n.Rhs) == len(n.Lhs) {
						rhs = n.Rhs[i]
					} else if len(n.Rhs) == 1 {
						if _, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
							rhs = n.Rhs[0]
						}
					}
					add(id, rhs, n.Pos())
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					var rhs ast.Expr
					if len(n.Values) == len(n.Names) {
						rhs = n.Values[i]
					} else if len(n.Values) == 1 {
						rhs = n.Values[0]
					} else {
						continue // zero value
					}
					add(id, rhs, n.Pos())
				}
			case *ast.RangeStmt:
				if k, ok := n.Key.(*ast.Ident); ok {
					add(k, nil, n.Pos())
				}
				if v, ok := n.Value.(*ast.Ident); ok {
					add(v, nil, n.Pos())
				}
			}
			return true
		})
	}
}

// latest returns the last assignment to v positioned in (after, before).
func (c *checker) latest(v *types.Var, before, after token.Pos) (assign, bool) {
	var best assign
	found := false
	for _, a := range c.assigns[v] {
		if a.stmt < before && a.stmt > after && (!found || a.stmt > best.stmt) {
			best, found = a, true
		}
	}
	return best, found
}

// refOf names the context expression e, when it is a variable or a field.
func (c *checker) refOf(e ast.Expr) (ctxRef, bool) {
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.Ident:
		obj := c.info.Uses[e]
		if obj == nil {
			obj = c.info.Defs[e]
		}
		if v, ok := obj.(*types.Var); ok {
			return ctxRef{v: v, text: e.Name}, true
		}
	case *ast.SelectorExpr:
		sel := c.info.Selections[e]
		if sel == nil || sel.Kind() != types.FieldVal || !selectorChain(e.X) {
			return ctxRef{}, false
		}
		return ctxRef{v: sel.Obj().(*types.Var), text: types.ExprString(e), sel: true}, true
	}
	return ctxRef{}, false
}

func selectorChain(e ast.Expr) bool {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return selectorChain(e.X)
	case *ast.StarExpr:
		return selectorChain(e.X)
	}
	return false
}

// descends reports whether the context expression e, evaluated at position
// at, is t or derived from t without WithoutCancel. Reassignments of t
// itself are followed only after position after (the point where t was
// learned to be done).
func (c *checker) descends(e ast.Expr, t ctxRef, at, after token.Pos, depth int) bool {
	if depth > 12 {
		return false
	}
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		if v == nil {
			return false
		}
		if !t.sel && v == t.v {
			if a, ok := c.latest(v, at, after); ok {
				return a.rhs != nil && c.descends(a.rhs, t, a.stmt, after, depth+1)
			}
			return true
		}
		if !retrymodel.IsContext(v.Type()) {
			return false
		}
		if a, ok := c.latest(v, at, token.NoPos); ok && a.rhs != nil {
			return c.descends(a.rhs, t, a.stmt, after, depth+1)
		}
		return false
	case *ast.SelectorExpr:
		if t.sel {
			if r, ok := c.refOf(e); ok && r.v == t.v && r.text == t.text {
				return true
			}
		}
		return false
	case *ast.CallExpr:
		if fn, ok := typeutil.Callee(c.info, e).(*types.Func); ok && fn.Pkg() != nil {
			if fn.Pkg().Path() == "context" {
				switch fn.Name() {
				case "WithoutCancel", "Background", "TODO":
					return false
				}
			} else if c.detaches(fn) {
				return false
			}
		}
		for _, a := range e.Args {
			if tv, ok := c.info.Types[a]; ok && retrymodel.IsContext(tv.Type) && c.descends(a, t, at, after, depth+1) {
				return true
			}
		}
	}
	return false
}

// detaches reports whether fn, a function outside package context that
// makes a context from one it is given, gives a fresh one: its name says so
// (mongodb.NewBackgroundContext, xcontext.Detach, WithoutCancel wrappers
// from before Go 1.21), or, declared in this package, it calls
// context.WithoutCancel or context.Background.
func (c *checker) detaches(fn *types.Func) bool {
	name := strings.ToLower(fn.Name())
	for _, w := range []string{"background", "detach", "withoutcancel", "nocancel", "uncancel", "fresh"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	if fn.Pkg() != c.pass.Pkg {
		return false
	}
	decl := c.model.Decl(fn)
	if decl == nil || decl.Body == nil {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			switch c.contextFunc(call) {
			case "WithoutCancel", "Background", "TODO":
				found = true
			}
		}
		return !found
	})
	return found
}

// ownDeadline reports whether fn, declared in this package, puts a
// deadline of its own on the context it is given: a DeadlineExceeded from
// it says nothing about the caller's context.
func (c *checker) ownDeadline(fn *types.Func) bool {
	if fn.Pkg() != c.pass.Pkg {
		return false
	}
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			switch c.contextFunc(call) {
			case "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause":
				found = true
			}
		}
		return !found
	})
	return found
}

// contextFunc returns the name of the package context function called, or "".
func (c *checker) contextFunc(call *ast.CallExpr) string {
	if fn, ok := typeutil.Callee(c.info, call).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "context" {
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() == nil {
			return fn.Name()
		}
	}
	return ""
}

// ctxMethod returns X and the method name when call is X.Err() or X.Done()
// on a context.
func (c *checker) ctxMethod(e ast.Expr) (ast.Expr, string) {
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil, ""
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	tv, ok := c.info.Types[sel.X]
	if !ok || !retrymodel.IsContext(tv.Type) {
		return nil, ""
	}
	return sel.X, sel.Sel.Name
}

// isCtxError reports whether e is context.DeadlineExceeded or context.Canceled.
func (c *checker) isCtxError(e ast.Expr) bool {
	sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := c.info.Uses[sel.Sel].(*types.Var)
	return ok && v.Pkg() != nil && v.Pkg().Path() == "context" && (v.Name() == "DeadlineExceeded" || v.Name() == "Canceled")
}

// errSource finds the context whose expiry an error reports: X for X.Err(),
// and for an error variable the context given to the call that produced it
// (the last assignment before at), when it is a direct argument of that
// call (possibly through context.WithValue) and the callee, when it is
// declared here, sets no deadline of its own.
func (c *checker) errSource(e ast.Expr, at token.Pos) (ctxRef, bool) {
	e = astutil.Unparen(e)
	if x, m := c.ctxMethod(e); m == "Err" {
		return c.refOf(x)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return ctxRef{}, false
	}
	v, _ := c.info.Uses[id].(*types.Var)
	if v == nil {
		return ctxRef{}, false
	}
	a, ok := c.latest(v, at, token.NoPos)
	if !ok || a.rhs == nil {
		return ctxRef{}, false
	}
	call, ok := astutil.Unparen(a.rhs).(*ast.CallExpr)
	if !ok {
		return ctxRef{}, false
	}
	if x, m := c.ctxMethod(call); m == "Err" {
		return c.refOf(x)
	}
	// The context must be a direct argument (or inside context.WithValue):
	// nested deeper (client.Do(req.WithContext(ctx))) the error may be a
	// timeout of the callee's own, with ctx still alive.
	if fn, ok := typeutil.Callee(c.info, call).(*types.Func); ok && c.ownDeadline(fn) {
		return ctxRef{}, false
	}
	var refs []ctxRef
	seen := make(map[ctxRef]bool)
	var arg func(e ast.Expr)
	arg = func(e ast.Expr) {
		e = astutil.Unparen(e)
		if in, ok := e.(*ast.CallExpr); ok {
			if c.contextFunc(in) == "WithValue" && len(in.Args) > 0 {
				arg(in.Args[0])
			}
			return
		}
		if tv, ok := c.info.Types[e]; ok && tv.IsValue() && retrymodel.IsContext(tv.Type) {
			if r, ok := c.refOf(e); ok && !seen[r] {
				seen[r] = true
				refs = append(refs, r)
			}
		}
	}
	for _, a := range call.Args {
		arg(a)
	}
	if len(refs) == 1 {
		return refs[0], true
	}
	return ctxRef{}, false
}
