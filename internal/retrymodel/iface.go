package retrymodel

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// callChains returns the retry chains a call runs, each with the
// functions on the way (Via, starting at the callee), and whether the call
// is remote through its callee. local gives the summaries of this
// package's functions (computed on demand while the package is
// summarised).
//
// A static call, or an interface call that Callee resolves to the
// package's one implementation, follows that function. Otherwise an
// interface method call follows every implementation that reaches a
// retry layer, as far as a modular (vet) analysis can see them:
//   - methods of this package's types;
//   - methods of other packages' types whose FuncFact reaches a retry
//     layer, among the facts this package is handed (its imports, and the
//     dependencies whose types its imports' export data mention);
//   - the interface method's own FuncFact: the package that declares an
//     interface summarises the implementations it can see (its own types,
//     its imports': a provider package that builds every provider client),
//     so a caller that sees only the interface still sees them.
//
// Not seen in vet mode: an implementation in a package that imports the
// caller's, or that neither the caller nor the interface's package can
// see; a type that satisfies the interface only at run time (reflection,
// plugins). Interfaces of the standard library (io.Reader,
// http.RoundTripper) are not followed: they have implementations
// everywhere, so one that retries says nothing about the call. A dynamic
// target's remote call is not the call's (it is one implementation's):
// only its retry layers are.
func (r *Result) callChains(call *ast.CallExpr, local func(*types.Func) *FuncFact) (chains []Chain, remote bool) {
	if fn := r.Callee(call); fn != nil {
		ff := local(fn)
		if ff == nil || len(ff.Chains) == 0 {
			if cs := r.transportChains(call, fn, local); cs != nil {
				return cs, true // transport.go: the client's own Transport retries
			}
		}
		if ff == nil {
			return nil, false
		}
		return prefixVia(funcName(fn), ff.Chains), ff.Remote
	}
	m, iface := r.ifaceMethod(call)
	if m == nil {
		return nil, false
	}
	if m.Pkg() != r.pass.Pkg {
		if ff := r.Func(m); ff != nil {
			chains = append(chains, ff.Chains...) // the declaring package's view
		}
	}
	chains = append(chains, r.implChains(m, iface, local)...)
	return prune(chains), false
}

// implChains returns the chains of the implementations of m this package
// can see, each led by "Iface.M as impl".
func (r *Result) implChains(m *types.Func, iface *types.Interface, local func(*types.Func) *FuncFact) []Chain {
	var out []Chain
	for _, fn := range r.implsOf(m, iface) {
		if decorates(fn, iface) {
			// retryClient{next httpClient}: a wrapper of the interface
			// itself is put in front of another implementation when the
			// code is configured so; the model cannot tell that it is.
			continue
		}
		ff := local(fn)
		if ff == nil || len(ff.Chains) == 0 {
			continue
		}
		// One chain per implementation, the most direct: a fact keeps
		// maxChains, and they should name different implementations.
		best := ff.Chains[0]
		for _, c := range ff.Chains[1:] {
			if len(c.Layers) > len(best.Layers) || (len(c.Layers) == len(best.Layers) && len(c.Via) < len(best.Via)) {
				best = c
			}
		}
		out = append(out, prefixVia(ifaceName(m)+" as "+funcName(fn), []Chain{best})...)
	}
	return out
}

func prefixVia(via string, cs []Chain) []Chain {
	out := make([]Chain, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.via(via))
	}
	return out
}

// exportIfaceFacts gives each method of the package's interfaces whose
// visible implementations reach a retry layer a FuncFact with their
// chains (see callChains).
func (p *pkgCtx) exportIfaceFacts() {
	r := p.res
	scope := p.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok || stdPath(p.pass.Pkg.Path()) {
			continue
		}
		for i := range iface.NumExplicitMethods() {
			m := iface.ExplicitMethod(i)
			if len(r.localMethods()[m.Name()]) == 0 && len(r.depMethods()[m.Name()]) == 0 {
				continue // nothing here can implement it
			}
			chains := prune(r.implChains(m, iface, r.Func))
			if len(chains) == 0 {
				continue
			}
			f := &FuncFact{Chains: chains}
			r.funcs[m] = f
			p.pass.ExportObjectFact(m, f)
		}
	}
}

// ifaceMethod returns the interface method a call is made through, and
// its interface, when the interface is not the standard library's.
func (r *Result) ifaceMethod(call *ast.CallExpr) (*types.Func, *types.Interface) {
	info := r.pass.TypesInfo
	if typeutil.StaticCallee(info, call) != nil {
		return nil, nil
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, nil
	}
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return nil, nil
	}
	iface, ok := s.Recv().Underlying().(*types.Interface)
	if !ok {
		return nil, nil
	}
	m, _ := s.Obj().(*types.Func)
	if m == nil || m.Pkg() == nil || stdPath(m.Pkg().Path()) {
		return nil, nil
	}
	return m, iface
}

// stdPath reports whether an import path is the standard library's (no
// dot in its first element).
func stdPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// implsOf lists the methods named like m of the concrete types the package
// can see that implement iface: its own types, and the receivers of the
// dependencies' methods that have a FuncFact reaching a retry layer.
func (r *Result) implsOf(m *types.Func, iface *types.Interface) []*types.Func {
	if r.ifaceImpls == nil {
		r.ifaceImpls = make(map[*types.Func][]*types.Func)
	}
	if fns, ok := r.ifaceImpls[m]; ok {
		return fns
	}
	var out []*types.Func
	consider := func(t types.Type, pkg *types.Package) {
		for _, cand := range []types.Type{t, types.NewPointer(t)} {
			if types.Implements(cand, iface) {
				obj, _, _ := types.LookupFieldOrMethod(cand, true, pkg, m.Name())
				if fn, ok := obj.(*types.Func); ok && !slices.Contains(out, fn) {
					out = append(out, fn)
				}
				return
			}
		}
	}
	for _, fn := range r.localMethods()[m.Name()] {
		if n := recvNamed(fn); n != nil {
			consider(n, r.pass.Pkg)
		}
	}
	for _, fn := range r.depMethods()[m.Name()] {
		if n := recvNamed(fn); n != nil {
			consider(n, fn.Pkg())
		}
	}
	r.ifaceImpls[m] = out
	return out
}

// recvNamed returns the concrete named type a method is declared on.
func recvNamed(fn *types.Func) *types.Named {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	recv := sig.Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	if n, ok := types.Unalias(recv).(*types.Named); ok && !types.IsInterface(n) && n.TypeParams().Len() == 0 {
		return n // (Implements is unspecified for a generic type)
	}
	return nil
}

// localMethods indexes, by name, the methods declared in this package:
// the candidates for implementing an interface here. (A method promoted
// from an embedded field is not a candidate: its own type is.)
func (r *Result) localMethods() map[string][]*types.Func {
	if r.localMeths != nil {
		return r.localMeths
	}
	r.localMeths = make(map[string][]*types.Func)
	for fn, d := range r.decls {
		if d.Recv != nil {
			r.localMeths[fn.Name()] = append(r.localMeths[fn.Name()], fn)
		}
	}
	for _, fns := range r.localMeths {
		slices.SortFunc(fns, func(a, b *types.Func) int { return int(a.Pos() - b.Pos()) })
	}
	return r.localMeths
}

// depMethods indexes, by name, the methods of other packages whose
// FuncFact reaches a retry layer.
func (r *Result) depMethods() map[string][]*types.Func {
	if r.depMeths != nil {
		return r.depMeths
	}
	r.depMeths = make(map[string][]*types.Func)
	for _, of := range r.pass.AllObjectFacts() {
		f, ok := of.Fact.(*FuncFact)
		if !ok || len(f.Chains) == 0 {
			continue
		}
		fn, ok := of.Object.(*types.Func)
		if !ok || fn.Pkg() == r.pass.Pkg {
			continue
		}
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
			r.depMeths[fn.Name()] = append(r.depMeths[fn.Name()], fn)
		}
	}
	for _, fns := range r.depMeths {
		slices.SortFunc(fns, func(a, b *types.Func) int { return strings.Compare(funcName(a), funcName(b)) })
	}
	return r.depMeths
}

// ifaceName renders an interface method as pkg.Iface.M.
func ifaceName(m *types.Func) string {
	sig, _ := m.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		if n, ok := types.Unalias(sig.Recv().Type()).(*types.Named); ok {
			return m.Pkg().Name() + "." + n.Obj().Name() + "." + m.Name()
		}
	}
	return m.Pkg().Name() + "." + m.Name()
}

// CallChains returns the retry chains a call of this package runs, through
// its callee or, for an interface call, the implementations the package
// can see (callChains), Via starting at the callee.
func (r *Result) CallChains(call *ast.CallExpr) []Chain {
	if lit := r.ClosureCalled(call); lit != nil {
		// op(): what the literal reaches (closure.go), as a layer's
		// retried region would
		return r.Inner(&Layer{Body: lit.Body})
	}
	c, _ := r.callChains(call, r.Func)
	return c
}

// decorates reports whether fn's receiver is a struct with a field that
// implements the interface itself: of the interface type (a middleware
// around another implementation), or of another implementation
// (heimdall's hystrix client holding an *httpclient.Client, both Doers).
// Which implementation such a wrapper stands in front of, and whether it
// is put inside another's retry, is configuration.
func decorates(fn *types.Func, iface *types.Interface) bool {
	n := recvNamed(fn)
	if n == nil {
		return false
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		t := st.Field(i).Type()
		if types.Identical(t.Underlying(), iface) {
			return true
		}
		if iface.NumMethods() > 0 && !types.IsInterface(t) && types.Implements(t, iface) {
			return true
		}
	}
	return false
}

// ifaceReadsRetryAfter reports whether an interface call may run an
// implementation that reads Retry-After (a retry handler chosen at run
// time: `ok, wait := h.ShouldRetry(resp)`): the wait it returns may be the
// server's.
func (p *pkgCtx) ifaceReadsRetryAfter(call *ast.CallExpr) bool {
	m, iface := p.res.ifaceMethod(call)
	if m == nil {
		return false
	}
	for _, fn := range p.res.implsOf(m, iface) {
		if fn.Pkg() == p.pass.Pkg {
			if p.raFunc[fn.Origin()] {
				return true
			}
			continue
		}
		var f FuncFact
		if p.pass.ImportObjectFact(fn, &f) && f.RetryAfter {
			return true
		}
	}
	return false
}

// implReadsRetryAfter is ifaceReadsRetryAfter from the summaries: an
// implementation of the called interface method reads Retry-After and
// retries nothing itself.
func (r *Result) implReadsRetryAfter(call *ast.CallExpr) bool {
	m, iface := r.ifaceMethod(call)
	if m == nil {
		return false
	}
	for _, fn := range r.implsOf(m, iface) {
		if ff := r.Func(fn); ff != nil && ff.RetryAfter && len(ff.Chains) == 0 {
			return true
		}
	}
	return false
}
