package infra

import (
	"go/ast"
	"go/constant"
	"go/token"
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
		// gorilla/mux: r.HandleFunc(p, h).Methods("POST") sets the method
		// on the call it is chained to.
		methods := map[*ast.CallExpr]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Methods" {
				if inner, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok {
					var ms []string
					for _, a := range call.Args {
						if tv, ok := info.Types[a]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
							ms = append(ms, constant.StringVal(tv.Value))
						}
					}
					if len(ms) == len(call.Args) && len(ms) > 0 {
						methods[inner] = strings.Join(ms, ",")
					}
				}
			}
			if len(call.Args) < 2 {
				return true
			}
			name := calleeName(call.Fun)
			verb, ok := registerNames[name]
			if !ok {
				return true
			}
			pattern, ok := patternOf(info, call.Args[0])
			if !ok {
				return true
			}
			method, path := SplitPattern(pattern)
			if !strings.HasPrefix(path, "/") {
				return true
			}
			if method == "" {
				method = verb
			}
			if m, ok := methods[call]; ok && method == "" {
				method = m
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

// patternOf reads a registration's pattern: a constant string, or a
// concatenation whose last operand is a constant path (baseURL+"/cart",
// microservices-demo's frontend): the prefix is taken as empty, which a
// route's prefix match over-approximates only when the prefix is set.
func patternOf(info *types.Info, e ast.Expr) (string, bool) {
	e = ast.Unparen(e)
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() != constant.String {
			return "", false
		}
		return constant.StringVal(tv.Value), true
	}
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
		if tv, ok := info.Types[b.Y]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			if s := constant.StringVal(tv.Value); strings.HasPrefix(s, "/") {
				return s, true
			}
		}
	}
	return "", false
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

// NonIdempotent reports whether method (one, a comma-separated list, or
// "" for any) includes one a proxy treats as non-idempotent: nginx does
// not retry POST, PATCH or LOCK by default. "" counts: the handler may be
// sent one.
func NonIdempotent(method string) bool {
	for _, m := range strings.Split(method, ",") {
		switch strings.ToUpper(strings.TrimSpace(m)) {
		case "", "POST", "PATCH", "LOCK":
			return true
		}
	}
	return false
}
