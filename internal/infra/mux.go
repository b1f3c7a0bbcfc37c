package infra

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// A Registration is a handler registered on a router for a path pattern:
// http.HandleFunc("/v1/complete", h), mux.Handle("POST /v1/items", h),
// r.Post("/v1/items", h) (chi and routers of the same shape).
type Registration struct {
	Call    *ast.CallExpr
	Pattern string
	// Method is the pattern's method, or the router method's ("POST" for
	// r.Post); "" when any method is served.
	Method string
	// The handler: a function or method (Func), or a function literal (Lit).
	Func *types.Func
	Lit  *ast.FuncLit
}

// registerNames are the router methods that take (pattern, handler); the
// HTTP verbs among them fix the method.
var registerNames = map[string]string{
	"Handle": "", "HandleFunc": "", "Any": "",
	"Get": "GET", "Post": "POST", "Put": "PUT", "Patch": "PATCH", "Delete": "DELETE",
	"Head": "HEAD", "Options": "OPTIONS",
}

// Registrations finds the handler registrations in files: a call of a
// function or method named Handle, HandleFunc or an HTTP verb whose first
// argument is a constant path pattern and whose last is a net/http handler
// (a func(http.ResponseWriter, *http.Request) or an http.Handler) the code
// names: a function, a method value, a function literal, a conversion to
// http.HandlerFunc, or a value of a type with a ServeHTTP method.
// Middleware around the handler (mw(h)) hides it: such a registration is
// not returned.
func Registrations(info *types.Info, files []*ast.File) []Registration {
	var out []Registration
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			name := calleeName(call.Fun)
			verb, ok := registerNames[name]
			if !ok {
				return true
			}
			tv, ok := info.Types[call.Args[0]]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				return true
			}
			pattern := constant.StringVal(tv.Value)
			method, path := SplitPattern(pattern)
			if !strings.HasPrefix(path, "/") {
				return true
			}
			if method == "" {
				method = verb
			}
			reg := Registration{Call: call, Pattern: pattern, Method: method}
			if !resolveHandler(info, call.Args[len(call.Args)-1], &reg) {
				return true
			}
			out = append(out, reg)
			return true
		})
	}
	return out
}

func calleeName(fun ast.Expr) string {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// resolveHandler finds the function behind a handler argument.
func resolveHandler(info *types.Info, e ast.Expr, reg *Registration) bool {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.FuncLit:
		if isHandlerSig(info.TypeOf(x)) {
			reg.Lit = x
			return true
		}
		return false
	case *ast.CallExpr:
		// http.HandlerFunc(f): a conversion.
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return resolveHandler(info, x.Args[0], reg)
		}
		return false
	case *ast.Ident, *ast.SelectorExpr:
		if fn := funcOf(info, x); fn != nil && isHandlerSig(fn.Type()) {
			reg.Func = fn
			return true
		}
		// A value whose type has ServeHTTP.
		if t := info.TypeOf(x); t != nil {
			if _, isFunc := t.Underlying().(*types.Signature); isFunc {
				return false
			}
			if m := serveHTTP(t); m != nil {
				reg.Func = m
				return true
			}
		}
	case *ast.UnaryExpr, *ast.CompositeLit:
		if t := info.TypeOf(x); t != nil {
			if m := serveHTTP(t); m != nil {
				reg.Func = m
				return true
			}
		}
	}
	return false
}

func funcOf(info *types.Info, e ast.Expr) *types.Func {
	switch x := e.(type) {
	case *ast.Ident:
		fn, _ := info.Uses[x].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := info.Uses[x.Sel].(*types.Func)
		return fn
	}
	return nil
}

// serveHTTP returns the ServeHTTP method of a concrete type, or nil.
func serveHTTP(t types.Type) *types.Func {
	if types.IsInterface(t) {
		return nil
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "ServeHTTP")
	fn, _ := obj.(*types.Func)
	if fn == nil || !isHandlerSig(fn.Type()) {
		return nil
	}
	return fn
}

// isHandlerSig: func(http.ResponseWriter, *http.Request).
func isHandlerSig(t types.Type) bool {
	sig, ok := t.(*types.Signature)
	if !ok {
		if t == nil {
			return false
		}
		sig, ok = t.Underlying().(*types.Signature)
		if !ok {
			return false
		}
	}
	p := sig.Params()
	return p.Len() == 2 && isNetHTTP(p.At(0).Type(), "ResponseWriter") && isNetHTTP(p.At(1).Type(), "Request")
}

func isNetHTTP(t types.Type, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == name
}

// WritesMethod reports whether method is one a proxy treats as
// non-idempotent (nginx does not retry these by default); "" (any) counts,
// as the handler may be sent one.
func NonIdempotent(method string) bool {
	switch strings.ToUpper(method) {
	case "", "POST", "PATCH", "LOCK":
		return true
	}
	return false
}
