package retrymodel

import (
	"go/ast"
	"go/types"
)

// ifaceReadsRetryAfter reports a call of an interface method (a retry
// handler's ShouldRetry(resp) returning the wait) that some type of this
// package implements with a method that reads Retry-After: the wait the
// call returns may be the server's, as far as the model can tell.
func (p *pkgCtx) ifaceReadsRetryAfter(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s, ok := p.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false
	}
	iface, ok := s.Recv().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	name := sel.Sel.Name
	scope := p.pass.Pkg.Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if !types.Implements(t, iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(t, true, p.pass.Pkg, name)
			if m, ok := obj.(*types.Func); ok && p.raFunc[m.Origin()] {
				if p.res.raCalls == nil {
					p.res.raCalls = map[*ast.CallExpr]bool{}
				}
				p.res.raCalls[call] = true
				return true
			}
		}
	}
	return false
}
