package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// An ArgCtxReplace is a function that replaces the context one of its
// arguments carries (through a setter on it: msg.SetContext(ctx)) with one
// it derives and cancels before it returns, and does not put the old one
// back: once it returns, the argument holds a done context. A retry that
// runs such a function again on the same argument starts every later
// attempt on that done context.
type ArgCtxReplace struct {
	Param   int       // the argument's index
	Set     token.Pos // the setter call
	Derived token.Pos // the WithTimeout / WithCancel call it cancels
}

// CtxSetter returns the method of t that stores a context in the value: a
// method with one context.Context parameter and no results (SetContext).
// http.Request.WithContext, which returns a copy, is no setter.
func CtxSetter(t types.Type) *types.Func {
	ms := types.NewMethodSet(t)
	if _, ok := t.(*types.Pointer); !ok {
		ms = types.NewMethodSet(types.NewPointer(t))
	}
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() == 1 && sig.Results().Len() == 0 && IsContext(sig.Params().At(0).Type()) {
			return fn
		}
	}
	return nil
}

// ReplacesArgCtx reports whether fnNode (a FuncDecl or FuncLit) leaves an
// argument holding a context it cancelled.
func (r *Result) ReplacesArgCtx(fnNode ast.Node) (ArgCtxReplace, bool) {
	info := r.pass.TypesInfo
	var ftype *ast.FuncType
	var body *ast.BlockStmt
	switch n := fnNode.(type) {
	case *ast.FuncDecl:
		ftype, body = n.Type, n.Body
	case *ast.FuncLit:
		ftype, body = n.Type, n.Body
	}
	if body == nil {
		return ArgCtxReplace{}, false
	}
	params := map[*types.Var]int{}
	k := 0
	for _, f := range ftype.Params.List {
		if len(f.Names) == 0 {
			k++
		}
		for _, id := range f.Names {
			if v, ok := info.Defs[id].(*types.Var); ok {
				params[v] = k
			}
			k++
		}
	}
	// setterCall matches p.M(x) with p a parameter and M its context setter.
	setterCall := func(n ast.Node) (*types.Var, *ast.CallExpr) {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return nil, nil
		}
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil, nil
		}
		id, ok := astutil.Unparen(sel.X).(*ast.Ident)
		if !ok {
			return nil, nil
		}
		v, ok := info.Uses[id].(*types.Var)
		if _, isParam := params[v]; !ok || !isParam {
			return nil, nil
		}
		if m := CtxSetter(v.Type()); m == nil || m.Name() != sel.Sel.Name {
			return nil, nil
		}
		return v, call
	}
	// Setters in deferred calls put a context back.
	restored := map[*types.Var]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok {
			ast.Inspect(d, func(m ast.Node) bool {
				if v, _ := setterCall(m); v != nil {
					restored[v] = true
				}
				return true
			})
		}
		return true
	})
	var out ArgCtxReplace
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		v, call := setterCall(n)
		if v == nil || restored[v] {
			return true
		}
		calls, _ := r.CtxDerivation(call.Args[0], fnNode)
		for _, d := range calls {
			if cancel := cancelVar(info, body, d); cancel != nil && cancelledOnReturn(info, body, cancel) {
				out, found = ArgCtxReplace{Param: params[v], Set: call.Pos(), Derived: d.Pos()}, true
				return false
			}
		}
		return true
	})
	return out, found
}

// cancelVar returns the cancel function assigned with a derived context:
// ctx, cancel := context.WithTimeout(...).
func cancelVar(info *types.Info, body *ast.BlockStmt, call *ast.CallExpr) *types.Var {
	var out *types.Var
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != call {
			return out == nil
		}
		if id, ok := as.Lhs[1].(*ast.Ident); ok {
			if v, ok := info.Defs[id].(*types.Var); ok {
				out = v
			} else if v, ok := info.Uses[id].(*types.Var); ok {
				out = v
			}
		}
		return false
	})
	return out
}

// cancelledOnReturn reports a deferred call of cancel: defer cancel(), or
// a deferred function literal that calls it.
func cancelledOnReturn(info *types.Info, body *ast.BlockStmt, cancel *types.Var) bool {
	return contains(body, func(n ast.Node) bool {
		d, ok := n.(*ast.DeferStmt)
		return ok && contains(d.Call, func(m ast.Node) bool {
			call, ok := m.(*ast.CallExpr)
			if !ok {
				return false
			}
			id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
			return ok && info.Uses[id] == cancel
		})
	})
}
