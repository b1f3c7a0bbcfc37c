package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Where a request a function is handed comes from: the callers in the
// package that build it, or a method shaped like http.Client.Do through
// which any caller's request arrives (a POST with a body among them).

// A RequestSource is where a request parameter's value is made.
type RequestSource struct {
	// Built is a caller's NewRequest with a body that reaches the
	// parameter (through the callers' own request parameters, at most a
	// few calls up); Built.Call is nil when none is seen.
	Built BuiltRequest
	// Client is the method shaped Do(*http.Request) (*http.Response,
	// error) whose request reaches the parameter: it stands for an HTTP
	// client, so its callers hand it requests of every method.
	Client *types.Func
}

// RequestParamSource answers for the request parameter v of fn: a request
// with a body built by a caller in the package, or one handed to fn (or a
// caller of it) as a client's Do. ok is false when neither is seen.
func (r *Result) RequestParamSource(fn *types.Func, v *types.Var) (RequestSource, bool) {
	return r.requestParamSource(fn, v, 0)
}

func (r *Result) requestParamSource(fn *types.Func, v *types.Var, depth int) (RequestSource, bool) {
	if fn == nil || depth > 3 {
		return RequestSource{}, false
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return RequestSource{}, false
	}
	idx := -1
	for i := 0; i < sig.Params().Len(); i++ {
		if sig.Params().At(i) == v {
			idx = i
		}
	}
	if idx < 0 {
		return RequestSource{}, false
	}
	if fn.Exported() && doShaped(sig) {
		return RequestSource{Client: fn}, true
	}
	info := r.pass.TypesInfo
	var found RequestSource
	seen := false
	for _, f := range r.pass.Files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if seen {
				return false
			}
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			call, ok := n.(*ast.CallExpr)
			if !ok || idx >= len(call.Args) {
				return true
			}
			if callee := typeutil.StaticCallee(info, call); callee == nil || callee.Origin() != fn.Origin() {
				return true
			}
			arg := varOf(info, astutil.Unparen(call.Args[idx]))
			if arg == nil {
				return true
			}
			if br, ok := r.RequestBuilt(arg); ok {
				if br.Body != nil {
					found, seen = RequestSource{Built: br}, true
				}
				return true
			}
			if _, caller := enclosingFunc(info, stack); caller != nil {
				if src, ok := r.requestParamSource(caller, arg, depth+1); ok {
					found, seen = src, true
				}
			}
			return true
		})
		if seen {
			break
		}
	}
	return found, seen
}
