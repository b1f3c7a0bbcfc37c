package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Where a returned context comes from: a context no caller's
// cancellation reaches (context.WithoutCancel of it, Background, TODO, one
// derived from those), the context parameter i the function was given
// (possibly with values or a deadline added), or something else.
type ctxOrigin struct {
	detached bool
	param    int  // index of the context parameter, -1 if none
	cycle    bool // the variable being read, read again (ctx = WithValue(ctx, ...)): no constraint
}

var unknownOrigin = ctxOrigin{param: -1}

// join combines the origins of two returns: both detached, or both the
// same parameter (a detached return beside it changes nothing: the
// parameter's own cancellation is what may reach the caller).
func (o ctxOrigin) join(p ctxOrigin) ctxOrigin {
	switch {
	case o.cycle:
		return p
	case p.cycle:
		return o
	case o.detached && p.detached:
		return o
	case o.param >= 0 && (p.param == o.param || p.detached):
		return o
	case p.param >= 0 && o.detached:
		return p
	}
	return unknownOrigin
}

// Detaches reports a function that returns a context.Context which the
// cancellation of the context it is given never reaches: every return is
// context.WithoutCancel of it, Background or TODO, a context derived from
// one of those (WithTimeout(WithoutCancel(ctx), d) has a deadline of its
// own, not the caller's), a value whose Done is promoted from such a
// context (&valueOnly{Context: context.Background(), values: ctx}), or a
// helper's result that is detached when its context argument is (newCtx
// := withConnID(context.Background(), id); return withQueryID(newCtx, q)).
// A function of another package answers by its fact, so a project's
// xcontext.ValueOnly detaches wherever it is called.
func (r *Result) Detaches(fn *types.Func) bool { return r.ctxResult(fn).detached }

// ctxResult summarises where fn's returned context comes from.
func (r *Result) ctxResult(fn *types.Func) ctxOrigin {
	fn = fn.Origin()
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || !IsContext(sig.Results().At(0).Type()) {
		return unknownOrigin
	}
	if fn.Pkg() != r.pass.Pkg {
		var f FuncFact
		if !r.pass.ImportObjectFact(fn, &f) {
			return unknownOrigin
		}
		return ctxOrigin{detached: f.Detached, param: f.CtxParam - 1}
	}
	// Memoised: expiredctx asks it at every call a context flows through.
	if o, ok := r.ctxOrigins[fn]; ok {
		return o
	}
	o := r.returnedOrigin(fn, map[types.Object]bool{})
	if r.ctxOrigins == nil {
		r.ctxOrigins = make(map[*types.Func]ctxOrigin)
	}
	r.ctxOrigins[fn] = o
	return o
}

func (r *Result) returnedOrigin(fn *types.Func, seen map[types.Object]bool) ctxOrigin {
	d := r.decls[fn]
	if d == nil || d.Body == nil || seen[fn] {
		return unknownOrigin
	}
	seen[fn] = true
	defer delete(seen, fn)
	var out ctxOrigin
	rets := returns(d)
	for i, ret := range rets {
		if len(ret.Results) == 0 {
			return unknownOrigin
		}
		o := r.origin(ret.Results[0], fn, seen)
		if i == 0 {
			out = o
		} else {
			out = out.join(o)
		}
		if !out.detached && out.param < 0 {
			return unknownOrigin
		}
	}
	if len(rets) == 0 {
		return unknownOrigin
	}
	return out
}

// origin says where the context e, in the body of fn, comes from.
func (r *Result) origin(e ast.Expr, fn *types.Func, seen map[types.Object]bool) ctxOrigin {
	info := r.pass.TypesInfo
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := info.Uses[e].(*types.Var)
		if v == nil || v.IsField() || v.Parent() == nil || v.Parent() == r.pass.Pkg.Scope() {
			return unknownOrigin
		}
		if fn != nil {
			params := fn.Type().(*types.Signature).Params()
			for i := range params.Len() {
				if params.At(i) == v {
					return ctxOrigin{param: i}
				}
			}
		}
		if seen[v] {
			return ctxOrigin{param: -1, cycle: true}
		}
		if r.cancelIx().params[v] {
			return unknownOrigin
		}
		seen[v] = true
		defer delete(seen, v)
		vals, ok := r.Writes(v)
		if !ok || len(vals) == 0 {
			return unknownOrigin
		}
		var out ctxOrigin
		for i, val := range vals {
			if val == nil {
				return unknownOrigin
			}
			o := r.origin(val, fn, seen)
			if i == 0 {
				out = o
			} else {
				out = out.join(o)
			}
		}
		if out.cycle {
			return unknownOrigin
		}
		return out
	case *ast.CallExpr:
		callee := typeutil.StaticCallee(info, e)
		if callee == nil || callee.Pkg() == nil {
			return unknownOrigin
		}
		if callee.Pkg().Path() == "context" {
			switch callee.Name() {
			case "Background", "TODO", "WithoutCancel":
				return ctxOrigin{detached: true, param: -1}
			}
			// WithTimeout, WithCancel, WithValue...: the parent's
			// cancellation is all that reaches the child from outside.
			if len(e.Args) > 0 && IsContext(info.TypeOf(e.Args[0])) {
				return r.origin(e.Args[0], fn, seen)
			}
			return unknownOrigin
		}
		var res ctxOrigin
		if callee.Pkg() == r.pass.Pkg {
			res = r.returnedOrigin(callee.Origin(), seen)
		} else {
			res = r.ctxResult(callee)
		}
		if res.detached {
			return res
		}
		if res.param >= 0 && res.param < len(e.Args) {
			return r.origin(e.Args[res.param], fn, seen) // withQueryID(newCtx, q)
		}
		return unknownOrigin
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return r.embedsOrigin(e.X, fn, seen)
		}
	case *ast.CompositeLit:
		return r.embedsOrigin(e, fn, seen)
	}
	return unknownOrigin
}

// embedsOrigin reads a composite literal of a struct type whose Done
// method is promoted from an embedded context field: the literal's value
// for that field decides.
func (r *Result) embedsOrigin(e ast.Expr, fn *types.Func, seen map[types.Object]bool) ctxOrigin {
	lit, ok := astutil.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return unknownOrigin
	}
	t := r.pass.TypesInfo.TypeOf(lit)
	if t == nil {
		return unknownOrigin
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return unknownOrigin
	}
	obj, index, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, r.pass.Pkg, "Done")
	if _, isFn := obj.(*types.Func); !isFn || len(index) != 2 {
		return unknownOrigin // no Done, the type's own, or deeper
	}
	field := st.Field(index[0])
	if !IsContext(field.Type()) {
		return unknownOrigin
	}
	for i, el := range lit.Elts {
		val := el
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); !ok || id.Name != field.Name() {
				continue
			}
			val = kv.Value
		} else if i != index[0] {
			continue
		}
		return r.origin(val, fn, seen)
	}
	return unknownOrigin
}
