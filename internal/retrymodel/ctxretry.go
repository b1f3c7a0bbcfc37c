package retrymodel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// CtxRetry says that a function runs a retry on the context one of its
// parameters gives (FuncFact.CtxRetry carries it to other packages): every attempt of that retry is made on that
// context or one derived from it, so the context's deadline bounds the whole
// retry, not one attempt. A caller that sets a deadline on the context it
// passes (dialCtx := context.WithTimeout(ctx, DialTimeout)) sets the
// budget of all the attempts together.
type CtxRetry struct {
	// Param is the index of the context parameter.
	Param int
	// Layer is the retry, Via the functions called on the way to it (empty
	// when the function holds it itself).
	Layer LayerInfo
	Via   []string
}

func (f *CtxRetry) String() string {
	s := fmt.Sprintf("retries on ctx param %d: %s at %s", f.Param, f.Layer.Name, f.Layer.Posn)
	if len(f.Via) > 0 {
		s += " via " + strings.Join(f.Via, ", ")
	}
	return s
}

// A CtxBound is a retry whose attempts all run on one context expression of
// a function: a layer of the function bound to it, or a call that hands it
// to a function that retries on it (CtxRetry).
type CtxBound struct {
	// Ctx is the context expression the retry runs on: the layer's
	// Context, or the argument of the call.
	Ctx ast.Expr
	// Layer is the retry when it is in this function; else nil and Call is
	// the call, Fact what the callee retries.
	Layer *Layer
	Call  *ast.CallExpr
	Fact  *CtxRetry
}

// Info is the bound retry as a LayerInfo, and the functions on the way.
func (b CtxBound) Info(r *Result) (LayerInfo, []string) {
	if b.Layer != nil {
		return r.layerInfoOf(b.Layer), nil
	}
	return b.Fact.Layer, append([]string{funcName(r.Callee(b.Call))}, b.Fact.Via...)
}

// CtxRetryOf returns what fn retries on one of its context parameters:
// the package's own summary for a function declared here, else what its
// package's FuncFact says. Nil if none.
func (r *Result) CtxRetryOf(fn *types.Func) *CtxRetry {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if fn.Pkg() == r.pass.Pkg {
		return r.ctxRetry[fn]
	}
	if ff := r.Func(fn); ff != nil {
		return ff.CtxRetry
	}
	return nil
}

// CtxBounds returns the retries in fnNode (a FuncDecl or FuncLit; closures
// inside it and goroutines it starts count: a context made here bounds a
// retry wherever it runs) whose attempts all run on a context expression,
// in source order.
func (r *Result) CtxBounds(fnNode ast.Node) []CtxBound {
	var out []CtxBound
	ast.Inspect(fnNode, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if l := r.byNode[n]; l != nil && (l.Kind == Loop || l.Kind == Library) {
			if ctx := r.layerCtx(l); ctx != nil {
				out = append(out, CtxBound{Ctx: ctx, Layer: l})
			}
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		f := r.CtxRetryOf(r.Callee(call))
		if f == nil || f.Param >= len(call.Args) {
			return true
		}
		if typeutil.StaticCallee(r.pass.TypesInfo, call) == nil {
			return true // an interface's one implementation here: not certain enough for a bound
		}
		out = append(out, CtxBound{Ctx: call.Args[f.Param], Call: call, Fact: f})
		return true
	})
	return out
}

// layerCtx is the context a layer's attempts run on: the one it is bound
// to, else the one context variable from outside its retried region that
// the region uses (the request's context, the one its wait selects on).
func (r *Result) layerCtx(l *Layer) ast.Expr {
	if l.Context != nil {
		return l.Context
	}
	if l.Body == nil {
		return nil
	}
	info := r.pass.TypesInfo
	var use *ast.Ident
	var v *types.Var
	ast.Inspect(l.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		u, ok := info.Uses[id].(*types.Var)
		if !ok || !IsContext(u.Type()) || within(&ast.Ident{NamePos: u.Pos()}, l.Body) {
			return true
		}
		if v != nil && u != v {
			use = nil
			return false
		}
		if v == nil {
			v, use = u, id
		}
		return true
	})
	if use == nil {
		return nil
	}
	return use
}

// CtxDerivation follows a context expression back through the contexts it
// is derived from in fnNode: an identifier assigned once from
// context.WithTimeout / WithDeadline / WithCancel / WithValue (or their
// Cause forms) of a parent. It returns those calls, innermost first, and the
// variable the chain ends at (a parameter, or a variable it cannot follow;
// nil for an expression such as context.Background()).
func (r *Result) CtxDerivation(e ast.Expr, fnNode ast.Node) ([]*ast.CallExpr, *types.Var) {
	info := r.pass.TypesInfo
	var calls []*ast.CallExpr
	var prev *types.Var
	for depth := 0; depth < 8; depth++ {
		e = astutil.Unparen(e)
		if x := r.ctxFromField(e, fnNode); x != nil {
			e = x // w.ctx, w.getCtx(): what the holder was built with
			continue
		}
		if call, ok := e.(*ast.CallExpr); ok {
			if !derivesCtx(info, call) {
				return calls, nil
			}
			calls = append(calls, call)
			e = call.Args[0]
			continue
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return calls, nil
		}
		v, _ := info.Uses[id].(*types.Var)
		if v == nil {
			return calls, nil
		}
		if v == prev {
			return calls, v // ctx = context.WithTimeout(ctx, d): the parameter's own value
		}
		prev = v
		val, ok := r.singleAssign(fnNode, v, true)
		if !ok {
			return calls, v
		}
		call, ok := astutil.Unparen(val).(*ast.CallExpr)
		if !ok || !derivesCtx(info, call) {
			if x := r.ctxFromField(val, fnNode); x != nil {
				e = x
				continue
			}
			return calls, v
		}
		calls = append(calls, call)
		e = call.Args[0]
	}
	return calls, nil
}

// derivesCtx reports a context package call that derives a context from
// its first argument.
func derivesCtx(info *types.Info, call *ast.CallExpr) bool {
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || len(call.Args) == 0 {
		return false
	}
	switch fn.Name() {
	case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause", "WithCancel", "WithCancelCause", "WithValue":
		return true
	}
	return false
}

// singleAssign returns the one value root gives v (with first, the call
// when v is its first result, as ctx, cancel := ...), when v is assigned
// exactly once there (= or :=) and nowhere is its address taken.
func (r *Result) singleAssign(root ast.Node, v *types.Var, first bool) (ast.Expr, bool) {
	a := r.assignIndex(root)[v]
	if a.count(true) != 1 {
		return nil, false
	}
	val := assignedValue(a.last[1], a.idx[1], first)
	return val, val != nil
}

// assignedValue is the value statement n (an assignment by = or :=, or a
// var declaration) gives its i-th variable; with first, the call of a
// tuple assignment when i is 0.
func assignedValue(n ast.Node, i int, first bool) ast.Expr {
	switch n := n.(type) {
	case *ast.AssignStmt:
		switch {
		case n.Tok != token.DEFINE && n.Tok != token.ASSIGN:
		case len(n.Rhs) == len(n.Lhs):
			return n.Rhs[i]
		case first && len(n.Rhs) == 1 && i == 0:
			return n.Rhs[0]
		}
	case *ast.ValueSpec:
		if i < len(n.Values) {
			return n.Values[i]
		}
	}
	return nil
}

// ctxRetries summarises, for every function of the package, the retry it
// runs on one of its context parameters, and exports it in the function's
// FuncFact (which it has: the function reaches the retry).
func (p *pkgCtx) ctxRetries() {
	p.res.ctxRetry = make(map[*types.Func]*CtxRetry)
	state := make(map[*types.Func]int8)
	var visit func(fn *types.Func) *CtxRetry
	visit = func(fn *types.Func) *CtxRetry {
		switch state[fn] {
		case 1:
			return nil
		case 2:
			return p.res.ctxRetry[fn]
		}
		state[fn] = 1
		defer func() { state[fn] = 2 }()
		decl := p.res.decls[fn]
		if decl == nil || decl.Body == nil {
			return nil
		}
		sig := fn.Type().(*types.Signature)
		param := func(v *types.Var) int {
			for i := 0; i < sig.Params().Len(); i++ {
				if sig.Params().At(i) == v && IsContext(v.Type()) {
					return i
				}
			}
			return -1
		}
		// Settle the package's callees first: source order may differ.
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if callee := p.res.Callee(call); callee != nil && callee.Origin().Pkg() == p.pass.Pkg {
					visit(callee.Origin())
				}
			}
			return true
		})
		for _, b := range p.res.CtxBounds(decl) {
			_, root := p.res.CtxDerivation(b.Ctx, decl)
			i := param(root)
			if i < 0 {
				continue
			}
			li, via := b.Info(p.res)
			f := &CtxRetry{Param: i, Layer: li, Via: via}
			p.res.ctxRetry[fn] = f
			return f
		}
		return nil
	}
	fns := p.res.funcsInOrder()
	for _, fn := range fns {
		visit(fn)
	}
	for _, fn := range fns {
		if f, ff := p.res.ctxRetry[fn], p.res.funcs[fn]; f != nil && ff != nil {
			ff.CtxRetry = f
			p.pass.ExportObjectFact(fn, ff)
		}
	}
}
