package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Detaches reports a function that returns a context.Context which the
// cancellation of the context it is given never reaches: every return is
// context.WithoutCancel of it, Background or TODO, a context derived from
// one of those (WithTimeout(WithoutCancel(ctx), d) has a deadline of its
// own, not the caller's), or a value whose Done is promoted from such a
// context (&valueOnly{Context: context.Background(), values: ctx}). A
// function of another package answers by its fact, so a project's
// xcontext.ValueOnly detaches wherever it is called.
func (r *Result) Detaches(fn *types.Func) bool {
	fn = fn.Origin()
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || !IsContext(sig.Results().At(0).Type()) {
		return false
	}
	if fn.Pkg() != r.pass.Pkg {
		var f FuncFact
		return r.pass.ImportObjectFact(fn, &f) && f.Detached
	}
	return r.returnsDetached(fn, map[types.Object]bool{})
}

func (r *Result) returnsDetached(fn *types.Func, seen map[types.Object]bool) bool {
	d := r.decls[fn]
	if d == nil || d.Body == nil || seen[fn] {
		return false
	}
	seen[fn] = true
	rets := returns(d)
	for _, ret := range rets {
		if len(ret.Results) == 0 || !r.detached(ret.Results[0], seen) {
			return false
		}
	}
	return len(rets) > 0
}

// detached reports a context expression that no caller's cancellation
// reaches (Detaches).
func (r *Result) detached(e ast.Expr, seen map[types.Object]bool) bool {
	info := r.pass.TypesInfo
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := info.Uses[e].(*types.Var)
		if v == nil || v.IsField() || v.Parent() == nil || v.Parent() == r.pass.Pkg.Scope() || r.cancelIx().params[v] || seen[v] {
			return false
		}
		seen[v] = true
		vals, ok := r.Writes(v)
		if !ok || len(vals) == 0 {
			return false
		}
		for _, val := range vals {
			if val == nil || !r.detached(val, seen) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(info, e)
		if fn == nil || fn.Pkg() == nil {
			return false
		}
		if fn.Pkg().Path() == "context" {
			switch fn.Name() {
			case "Background", "TODO", "WithoutCancel":
				return true
			}
			// WithTimeout, WithCancel, WithValue...: the parent's cancellation
			// is all that reaches the child from outside.
			return len(e.Args) > 0 && IsContext(info.TypeOf(e.Args[0])) && r.detached(e.Args[0], seen)
		}
		if fn.Pkg() == r.pass.Pkg {
			return r.returnsDetached(fn.Origin(), seen)
		}
		return r.Detaches(fn)
	case *ast.UnaryExpr:
		return e.Op == token.AND && r.embedsDetached(e.X, seen)
	case *ast.CompositeLit:
		return r.embedsDetached(e, seen)
	}
	return false
}

// embedsDetached reports a composite literal of a struct type whose Done
// method is promoted from an embedded context field that the literal sets
// to a detached context.
func (r *Result) embedsDetached(e ast.Expr, seen map[types.Object]bool) bool {
	lit, ok := astutil.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return false
	}
	t := r.pass.TypesInfo.TypeOf(lit)
	if t == nil {
		return false
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	obj, index, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, r.pass.Pkg, "Done")
	if _, isFn := obj.(*types.Func); !isFn || len(index) != 2 {
		return false // no Done, the type's own, or deeper
	}
	field := st.Field(index[0])
	if !IsContext(field.Type()) {
		return false
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
		return r.detached(val, seen)
	}
	return false
}
