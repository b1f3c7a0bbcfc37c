package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
)

// This file answers "does this call leave the process?" for the two calls
// whose target is not written at the call: a func value a function is
// handed, and an interface method.
//
//	func (b *breaker) run(ctx context.Context, f func(context.Context) (*http.Response, error)) ...
//		resp, err := f(ctx) // remote when run's callers hand it a remote f
//
// A wrapper (a breaker's execute, a helper's do(op)) runs what its
// callers give it, so the call of its parameter is remote when one of
// the package's calls hands it a remote value: a func literal whose body
// is remote, a function or method value whose summary is, a remote
// primitive itself (hc.Do), or another function's parameter handed on.
// A call of an interface method is remote when one of the package's own
// implementations of it (not a wrapper of the interface itself) is.
// These answer Remote, the question a breaker, a stream open and an SDK
// request ask of one call; the retry layers' own summaries (reach.go)
// keep to the targets written at the call.

// handedRemote returns the first argument that makes call, a call of a
// parameter of a package function, remote; nil when none does.
func (r *Result) handedRemote(call *ast.CallExpr) ast.Expr {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := r.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.Kind() != types.ParamVar {
		return nil
	}
	return r.paramRemote(v, r.handedBusy())
}

// handedBusy is the set of parameters being followed, shared by every
// question asked while one is answered: a func literal handed to the
// function that calls it (f(func() { g() })) asks Remote again.
func (r *Result) handedBusy() map[*types.Var]bool {
	if r.handed == nil {
		r.handed = map[*types.Var]bool{}
	}
	return r.handed
}

// paramRemote returns an argument the package's calls hand parameter v
// that leaves the process when called.
func (r *Result) paramRemote(v *types.Var, seen map[*types.Var]bool) ast.Expr {
	if seen[v] || len(seen) > 8 {
		return nil
	}
	seen[v] = true
	defer delete(seen, v)
	if _, ok := v.Type().Underlying().(*types.Signature); !ok {
		return nil
	}
	for _, a := range r.paramArgs[v] {
		if InTestFile(r.pass.Fset, a.Pos()) {
			continue // a test's stand-in is not what the program runs
		}
		if r.funcValueRemote(a, seen) {
			return a
		}
	}
	return nil
}

// funcValueRemote reports a function value whose call leaves the process.
func (r *Result) funcValueRemote(a ast.Expr, seen map[*types.Var]bool) bool {
	info := r.pass.TypesInfo
	switch a := ast.Unparen(a).(type) {
	case *ast.FuncLit:
		return r.Remote(a.Body)
	case *ast.Ident:
		switch obj := info.Uses[a].(type) {
		case *types.Func:
			return r.funcRemote(obj)
		case *types.Var:
			if obj.Kind() == types.ParamVar {
				return r.paramRemote(obj, seen) != nil // handed on
			}
		}
	case *ast.SelectorExpr:
		if fn, ok := info.Uses[a.Sel].(*types.Func); ok {
			return r.funcRemote(fn) // a method value: c.do, hc.Do
		}
	}
	return false
}

// funcRemote reports a declared function whose call leaves the process.
func (r *Result) funcRemote(fn *types.Func) bool {
	if remotePrimitive(fn) {
		return true
	}
	ff := r.Func(fn)
	return ff != nil && ff.Remote
}

// implRemote reports a call of an interface method one of whose package
// implementations leaves the process, and names it.
func (r *Result) implRemote(call *ast.CallExpr) (*types.Func, bool) {
	m, iface := r.ifaceMethod(call)
	if m == nil || m.Pkg() == nil || m.Pkg() != r.pass.Pkg {
		return nil, false // another package's interface: its users' implementations are not seen here
	}
	for _, fn := range r.implsOf(m, iface) {
		if fn.Pkg() == r.pass.Pkg && !decorates(fn, iface) && r.funcRemote(fn) {
			return fn, true
		}
	}
	return nil, false
}

// HandedAt returns where the value a remote call of a parameter comes
// from (the argument of the package's call), for a message; NoPos for
// any other call.
func (r *Result) HandedAt(call *ast.CallExpr) token.Pos {
	if a := r.handedRemote(call); a != nil {
		return a.Pos()
	}
	return token.NoPos
}
