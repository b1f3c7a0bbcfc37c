package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// transportChains answers what retries beneath an *http.Client call when
// the client is one the package builds with a Transport of a concrete type
// (&http.Client{Transport: &retryTransport{next: ...}}): that type's
// RoundTrip runs for every request, so the retry layers it reaches run
// under each attempt of a loop around the call. A Transport of interface
// type, or a client the package does not build, answers nothing.
func (r *Result) transportChains(call *ast.CallExpr, fn *types.Func, local func(*types.Func) *FuncFact) []Chain {
	if fn.Pkg() == nil || fn.Pkg().Path() != "net/http" || RecvName(fn) != "Client" {
		return nil
	}
	switch fn.Name() {
	case "Do", "Get", "Post", "Head", "PostForm":
	default:
		return nil
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	v := varOf(r.pass.TypesInfo, sel.X)
	if v == nil || v.Pkg() != r.pass.Pkg {
		return nil
	}
	vals, _ := r.Writes(v)
	for _, x := range vals {
		lit := clientLiteral(x)
		if lit == nil || !namedIs(r.pass.TypesInfo.TypeOf(lit), "net/http", "Client") {
			continue
		}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if id, isID := kv.Key.(*ast.Ident); !ok || !isID || id.Name != "Transport" {
				continue
			}
			t := r.pass.TypesInfo.TypeOf(kv.Value)
			if t == nil || types.IsInterface(t) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(t, true, r.pass.Pkg, "RoundTrip")
			rt, ok := obj.(*types.Func)
			if !ok {
				continue
			}
			if ff := local(rt); ff != nil && len(ff.Chains) > 0 {
				return prefixVia("http.Client Transport "+funcName(rt), ff.Chains)
			}
		}
	}
	return nil
}

// clientLiteral returns the composite literal x builds, through & and
// parentheses.
func clientLiteral(x ast.Expr) *ast.CompositeLit {
	x = astutil.Unparen(x)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = astutil.Unparen(u.X)
	}
	lit, _ := x.(*ast.CompositeLit)
	return lit
}
