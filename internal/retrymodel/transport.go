package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// transportChains answers what retries beneath an *http.Client call when
// the client's Transport is of a concrete type whose RoundTrip retries
// (&http.Client{Transport: &retryTransport{next: ...}}): that RoundTrip
// runs for every request, so the retry layers it reaches run under each
// attempt of a loop around the call. The client is followed through the
// variable or field that holds it to where it was built: a literal here, a
// constructor of this package, or one of another package, which exports
// what its client's transport retries as a ClientFact of kind "transport"
// (exportTransportClients). A Transport of interface type answers nothing.
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
	if v == nil {
		return nil
	}
	if v.Pkg() != r.pass.Pkg {
		if f := r.importedTransport(v); f != nil {
			return prefixVia(v.Pkg().Name()+"."+v.Name(), f.Chains)
		}
		return nil
	}
	vals, _ := r.Writes(v)
	for _, x := range vals {
		if cs := r.clientTransport(x, local, 0); cs != nil {
			return cs
		}
	}
	return nil
}

// clientTransport returns the retry chains of the Transport of the
// *http.Client that x builds: a literal, a call of a constructor of this
// package (followed to what it returns), or of another package's with a
// "transport" ClientFact.
func (r *Result) clientTransport(x ast.Expr, local func(*types.Func) *FuncFact, depth int) []Chain {
	if lit := clientLiteral(x); lit != nil {
		return r.literalTransport(lit, local)
	}
	call, ok := astutil.Unparen(x).(*ast.CallExpr)
	if !ok || depth > 2 {
		return nil
	}
	fn := typeutil.StaticCallee(r.pass.TypesInfo, call)
	if fn == nil {
		return nil
	}
	if fn.Pkg() != r.pass.Pkg {
		if f := r.importedTransport(fn); f != nil {
			return prefixVia(funcName(fn), f.Chains)
		}
		return nil
	}
	decl := r.decls[fn.Origin()]
	if decl == nil {
		return nil
	}
	for _, ret := range returns(decl) {
		if len(ret.Results) == 0 {
			continue
		}
		if cs := r.clientTransport(ret.Results[0], local, depth+1); cs != nil {
			return prefixVia(funcName(fn), cs)
		}
	}
	return nil
}

// literalTransport returns the chains of the RoundTrip of a client
// literal's Transport, when it is of a concrete type.
func (r *Result) literalTransport(lit *ast.CompositeLit, local func(*types.Func) *FuncFact) []Chain {
	if !namedIs(r.pass.TypesInfo.TypeOf(lit), "net/http", "Client") {
		return nil
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
	return nil
}

// importedTransport is the "transport" ClientFact of another package's
// function or field.
func (r *Result) importedTransport(obj types.Object) *ClientFact {
	var f ClientFact
	if obj.Pkg() == nil || obj.Pkg() == r.pass.Pkg || !r.pass.ImportObjectFact(obj, &f) || f.Kind != "transport" {
		return nil
	}
	return &f
}

// exportTransportClients exports a "transport" ClientFact for each
// function of the package whose first result is an *http.Client it builds
// with a retrying Transport, and each struct field or package variable
// given only such a client, so that a loop in another package around that
// client's Do sees the transport's retry beneath it. It runs after the
// summaries, which give RoundTrip's chains; an object that already has a
// ClientFact (a retryablehttp StandardClient) keeps it.
func (p *pkgCtx) exportTransportClients() {
	r := p.res
	if !p.clientFactsOn() {
		return
	}
	export := func(obj types.Object, x ast.Expr, at token.Pos) {
		var had ClientFact
		if p.pass.ImportObjectFact(obj, &had) {
			return
		}
		if cs := r.clientTransport(x, r.Func, 0); len(cs) > 0 {
			p.pass.ExportObjectFact(obj, &ClientFact{Kind: "transport", Posn: p.short(at), Chains: cs})
		}
	}
	for _, fn := range r.funcsInOrder() {
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() == 0 || clientKind(sig.Results().At(0).Type()) != "standard" {
			continue
		}
		if x := p.returnedFrom(r.decls[fn], 0); x != nil {
			export(fn, x, x.Pos())
		}
	}
	var vars []*types.Var
	for v := range r.writes {
		if v.Pkg() == p.pass.Pkg && clientKind(v.Type()) == "standard" && (v.IsField() || v.Parent() == p.pass.Pkg.Scope()) {
			vars = append(vars, v)
		}
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Pos() < vars[j].Pos() })
	for _, v := range vars {
		// var hc *http.Client with no value and no write: nothing to read.
		if vals, ok := r.Writes(v); ok && len(vals) == 1 && vals[0] != nil {
			export(v, vals[0], vals[0].Pos())
		}
	}
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
