package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ast/inspector"
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
	r.callsOf(fn, func(call *ast.CallExpr, stack []ast.Node) bool {
		if idx >= len(call.Args) {
			return false
		}
		arg := varOf(info, astutil.Unparen(call.Args[idx]))
		if arg == nil {
			return false
		}
		if br, ok := r.RequestBuilt(arg); ok {
			if br.Body != nil {
				found, seen = RequestSource{Built: br}, true
			}
			return seen
		}
		if _, caller := enclosingFunc(info, stack); caller != nil {
			if src, ok := r.requestParamSource(caller, arg, depth+1); ok {
				found, seen = src, true
			}
		}
		return seen
	})
	return found, seen
}

// callsOf calls f for each call of fn (by its origin) in the package, with
// the nodes that enclose it (the call last), until f returns true.
func (r *Result) callsOf(fn *types.Func, f func(call *ast.CallExpr, stack []ast.Node) bool) {
	insp := r.pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	done := false
	insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push || done {
			return !done
		}
		call := n.(*ast.CallExpr)
		if c := typeutil.StaticCallee(r.pass.TypesInfo, call); c == nil || c.Origin() != fn.Origin() {
			return true
		}
		done = f(call, stack)
		return !done
	})
}
