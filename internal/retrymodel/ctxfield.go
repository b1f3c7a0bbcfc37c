package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A context that travels in a struct: the function builds a holder
// (w := &wantConn{ctx: dialCtx}), hands it to a goroutine or closure
// (go func(w *wantConn) { ... }(w)), and the retry there runs on the
// holder's field, read directly (w.ctx) or through a getter method that
// returns it (w.getCtxForDial()). The field then carries the context the
// function made, and its deadline bounds that retry like a context
// passed as an argument.

// ctxFromField returns the expression a context read from a holder's
// field was set to in fnNode, or nil when e is no such read or the field
// may hold anything else.
func (r *Result) ctxFromField(e ast.Expr, fnNode ast.Node) ast.Expr {
	x, field := r.fieldRead(e)
	if field == nil || r.fieldReassigned(field) {
		return nil
	}
	lit := r.holderLit(x, fnNode)
	if lit == nil {
		return nil
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if id, ok := kv.Key.(*ast.Ident); ok && r.pass.TypesInfo.Uses[id] == field {
			return kv.Value
		}
	}
	return nil
}

// fieldRead matches x.f of a struct field and x.get() of a method of this
// package whose every return gives its receiver's field f.
func (r *Result) fieldRead(e ast.Expr) (ast.Expr, *types.Var) {
	info := r.pass.TypesInfo
	switch e := astutil.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			if f, ok := sel.Obj().(*types.Var); ok && IsContext(f.Type()) {
				return e.X, f
			}
		}
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(info, e)
		sel, ok := astutil.Unparen(e.Fun).(*ast.SelectorExpr)
		if fn == nil || !ok || len(e.Args) != 0 {
			return nil, nil
		}
		if f := r.getterField(fn); f != nil {
			return sel.X, f
		}
	}
	return nil, nil
}

// getterField is the receiver field a method of this package returns on
// every path (return w.ctx, beside locking), or nil.
func (r *Result) getterField(fn *types.Func) *types.Var {
	decl := r.decls[fn.Origin()]
	if decl == nil || decl.Body == nil || decl.Recv == nil || len(decl.Recv.List) != 1 || len(decl.Recv.List[0].Names) != 1 {
		return nil
	}
	recv := r.pass.TypesInfo.Defs[decl.Recv.List[0].Names[0]]
	var field *types.Var
	for _, ret := range returns(decl) {
		var f *types.Var
		if len(ret.Results) == 1 {
			if sel, isSel := astutil.Unparen(ret.Results[0]).(*ast.SelectorExpr); isSel {
				if id, isID := astutil.Unparen(sel.X).(*ast.Ident); isID && recv != nil && r.pass.TypesInfo.Uses[id] == recv {
					if s, has := r.pass.TypesInfo.Selections[sel]; has && s.Kind() == types.FieldVal {
						f, _ = s.Obj().(*types.Var)
					}
				}
			}
		}
		if f == nil || (field != nil && f != field) || !IsContext(f.Type()) {
			return nil
		}
		field = f
	}
	return field
}

// fieldReassigned reports an assignment of the field anywhere in the
// package other than clearing it (w.ctx = nil): another context could then
// be what a read finds.
func (r *Result) fieldReassigned(field *types.Var) bool {
	info := r.pass.TypesInfo
	return slices.ContainsFunc(r.pass.Files, func(f *ast.File) bool {
		return contains(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return false
			}
			for i, lhs := range as.Lhs {
				sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr)
				if !ok {
					continue
				}
				if s, ok := info.Selections[sel]; !ok || s.Obj() != field {
					continue
				}
				if len(as.Rhs) == len(as.Lhs) {
					if tv, ok := info.Types[as.Rhs[i]]; ok && tv.IsNil() {
						continue
					}
				}
				return true
			}
			return false
		})
	})
}

// holderLit returns the struct literal a holder expression holds: a local
// assigned once in fnNode from T{...} or &T{...}, followed through the
// parameters of a function literal called in place (go func(w *T){...}(w)).
func (r *Result) holderLit(x ast.Expr, fnNode ast.Node) *ast.CompositeLit {
	info := r.pass.TypesInfo
	for depth := 0; depth < 4; depth++ {
		x = astutil.Unparen(x)
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
			x = astutil.Unparen(u.X)
		}
		if lit, ok := x.(*ast.CompositeLit); ok {
			return lit
		}
		id, ok := x.(*ast.Ident)
		if !ok {
			return nil
		}
		v, _ := info.Uses[id].(*types.Var)
		if v == nil {
			return nil
		}
		if arg := litParamArg(info, fnNode, v); arg != nil {
			x = arg
			continue
		}
		val, ok := r.singleAssign(fnNode, v, true)
		if !ok {
			return nil
		}
		x = val
	}
	return nil
}

// litParamArg returns the argument a parameter of a function literal in
// fnNode is given, when the literal is called where it stands.
func litParamArg(info *types.Info, fnNode ast.Node, v *types.Var) ast.Expr {
	var arg ast.Expr
	ast.Inspect(fnNode, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || arg != nil {
			return arg == nil
		}
		lit, ok := astutil.Unparen(call.Fun).(*ast.FuncLit)
		if !ok || call.Ellipsis.IsValid() {
			return true
		}
		if sig, ok := info.TypeOf(lit).(*types.Signature); !ok || sig.Variadic() {
			return true
		}
		i := 0
		for _, field := range lit.Type.Params.List {
			for _, name := range field.Names {
				if info.Defs[name] == v && i < len(call.Args) {
					arg = call.Args[i]
				}
				i++
			}
			if len(field.Names) == 0 {
				i++
			}
		}
		return arg == nil
	})
	return arg
}
