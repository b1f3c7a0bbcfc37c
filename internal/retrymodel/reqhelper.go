package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A request built by a helper of the package: every API client has one,
//
//	func newRequest(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
//		req, err := http.NewRequestWithContext(ctx, method, url, body)
//		...
//		return req, nil
//	}
//
// and its callers' requests are built where they call it, with the method
// and body they hand it. builtByHelper follows the call into the helper
// to the NewRequest its returns hand back, and reads the method and body
// through the helper's parameters from the call's arguments.

// builtByHelper reads call, a call of a function of the package whose
// *http.Request result is always one variable built by NewRequest in it.
// The BuiltRequest's Call is the helper's call (where the caller builds
// the request); its Method and Body are the NewRequest's, a helper
// parameter replaced by the call's argument.
func (r *Result) builtByHelper(call *ast.CallExpr) (BuiltRequest, bool) {
	info := r.pass.TypesInfo
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() != r.pass.Pkg || r.reqHelperDepth > 2 {
		return BuiltRequest{}, false
	}
	decl := r.decls[fn.Origin()]
	sig, _ := fn.Type().(*types.Signature)
	if decl == nil || decl.Body == nil || sig == nil || sig.Variadic() {
		return BuiltRequest{}, false
	}
	k := -1
	for i := 0; i < sig.Results().Len(); i++ {
		if isNamedType(deref(sig.Results().At(i).Type()), "net/http", "Request") {
			k = i
		}
	}
	if k < 0 {
		return BuiltRequest{}, false
	}
	// The one variable every return hands back (a nil on a failure path
	// aside).
	// Or one call whose results are the helper's: return
	// http.NewRequestWithContext(ctx, method, url, body).
	var v *types.Var
	var rc *ast.CallExpr
	mixed := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if c, ok := astutil.Unparen(singleResult(n)).(*ast.CallExpr); ok && sig.Results().Len() > 1 {
				if rc != nil && rc != c {
					mixed = true
				}
				rc = c
				return false
			}
			if len(n.Results) != sig.Results().Len() {
				mixed = true
				return false
			}
			x := astutil.Unparen(n.Results[k])
			if isNil(info, x) {
				return false
			}
			rv := varOf(info, x)
			if rv == nil || v != nil && rv != v {
				mixed = true
			}
			v = rv
		}
		return !mixed
	})
	if mixed || (v == nil) == (rc == nil) {
		return BuiltRequest{}, false
	}
	r.reqHelperDepth++
	var inner BuiltRequest
	var ok bool
	if v != nil {
		inner, ok = r.RequestBuilt(v)
	} else {
		inner, ok = r.builtFrom(rc)
	}
	r.reqHelperDepth--
	if !ok {
		return BuiltRequest{}, false
	}
	// A helper parameter stands for the call's argument.
	arg := func(e ast.Expr) (ast.Expr, bool) {
		pv := varOf(info, e)
		for i := 0; pv != nil && i < sig.Params().Len() && i < len(call.Args); i++ {
			if sig.Params().At(i) == pv {
				return call.Args[i], true
			}
		}
		return e, false
	}
	out := BuiltRequest{Call: call, Method: inner.Method, URL: inner.URL, Body: inner.Body}
	if inner.Call != nil && inner.Method == "" {
		if _, _, _, ok := newRequestArgs(info, inner.Call); ok {
			m := inner.Call.Args[0]
			if len(inner.Call.Args) == 4 {
				m = inner.Call.Args[1]
			}
			if a, ok := arg(m); ok {
				if tv, ok := info.Types[a]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
					out.Method = strings.ToUpper(constant.StringVal(tv.Value))
				}
			}
		}
	}
	if inner.Body != nil {
		if a, ok := arg(inner.Body); ok {
			out.Body = a // the caller's body: nil for a GET
			if r.noBody(a) {
				out.Body = nil
			}
		} else if i := r.bodyGuard(decl, sig, inner.Body); i >= 0 && i < len(call.Args) && isNil(info, call.Args[i]) {
			out.Body = nil // if payload != nil { body = ... }, called with a nil payload
		}
	}
	return out, true
}

// bodyGuard returns the index of the parameter p of a request helper whose
// body variable gets a value only under if p != nil (var body io.Reader;
// if payload != nil { body = bytes.NewReader(...) }), or -1: a call that
// hands nil for p builds a request with no body.
func (r *Result) bodyGuard(decl *ast.FuncDecl, sig *types.Signature, body ast.Expr) int {
	info := r.pass.TypesInfo
	bv := varOf(info, body)
	if bv == nil || bv.Pos() < decl.Body.Pos() || bv.Pos() >= decl.Body.End() {
		return -1 // not a local of the helper
	}
	// The bodies of if p != nil { ... } with p a parameter, by parameter.
	type guarded struct {
		body  *ast.BlockStmt
		param int
	}
	var guards []guarded
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		be, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
		if !ok || be.Op != token.NEQ || !isNil(info, be.Y) {
			return true
		}
		pv := varOf(info, be.X)
		for i := 0; pv != nil && i < sig.Params().Len(); i++ {
			if sig.Params().At(i) == pv {
				guards = append(guards, guarded{ifs.Body, i})
			}
		}
		return true
	})
	// Every value the package writes to it (the write index): nil ones and
	// a bare declaration aside, each under one guard of the same parameter.
	vals, ok := r.Writes(bv)
	if !ok {
		return -1
	}
	guard := -1
	for _, v := range vals {
		if v == nil && r.declaredBare(bv) || v != nil && isNil(info, v) {
			continue
		}
		g := -1
		for _, gd := range guards {
			if v != nil && within(v, gd.body) {
				g = gd.param
			}
		}
		if g < 0 || guard >= 0 && g != guard {
			return -1
		}
		guard = g
	}
	return guard
}

// singleResult is a return's one result, or nil.
func singleResult(ret *ast.ReturnStmt) ast.Expr {
	if len(ret.Results) != 1 {
		return nil
	}
	return ret.Results[0]
}
