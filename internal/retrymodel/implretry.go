package retrymodel

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// A retry in one package can repeat calls of an interface whose
// implementations live in packages that import it: a core package
// declares Provider and retries provider.Chat three times; each provider
// package implements Chat with a client that retries too. A modular
// analysis of the core package cannot see those implementations (they are
// analysed after it), so callChains finds no inner layer there. The
// information flows the other way instead: the core package exports an
// IfaceRetryFact naming the interface methods its retry layers repeat, and
// each package that implements one of them (and so sees the fact among
// its dependencies') reads it and puts its own implementation's chains
// under the outer layer (ImplRetries).

// IfaceRetryFact is a package fact listing the interface methods that the
// package's retry layers repeat.
type IfaceRetryFact struct {
	Retried []RetriedMethod
}

// A RetriedMethod is an interface method a retry layer repeats: the
// interface by package path and type name, the method, and the layer.
type RetriedMethod struct {
	Pkg, Iface, Method string
	Outer              LayerInfo
}

// AFact marks IfaceRetryFact as an analysis fact.
func (*IfaceRetryFact) AFact() {}

func (f *IfaceRetryFact) String() string {
	var parts []string
	for _, m := range f.Retried {
		parts = append(parts, m.Iface+"."+m.Method+" retried at "+m.Outer.Posn)
	}
	return "retries " + strings.Join(parts, ", ")
}

// exportRetriedIfaces exports the package's IfaceRetryFact: for each retry
// layer that can make more than one attempt, the methods of interfaces
// (not the standard library's) it calls in what it retries (a loop's
// retried calls, a library's retried region) with the failure reaching
// the retry (not dropped on the way).
func (p *pkgCtx) exportRetriedIfaces() {
	r := p.res
	var out []RetriedMethod
	seen := map[string]bool{}
	for _, l := range slices.Concat(r.Layers, r.HelperLayers) {
		if InTestFile(p.pass.Fset, l.Pos) || l.Policy.ConflictOnly.IsValid() || r.isFallback(l) {
			continue
		}
		if n, ok := l.Attempts(); ok && n <= 1 {
			continue
		}
		var outer *LayerInfo
		for _, call := range r.retriedIfaceCalls(l) {
			m, _ := r.ifaceMethod(call)
			named := ifaceNamed(m)
			if named == nil || named.Obj().Pkg() == nil {
				continue
			}
			key := fmt.Sprint(int(l.Pos)) + named.Obj().Pkg().Path() + "." + named.Obj().Name() + "." + m.Name()
			if seen[key] {
				continue
			}
			seen[key] = true
			if outer == nil {
				li := p.layerInfo(l)
				outer = &li
			}
			out = append(out, RetriedMethod{Pkg: named.Obj().Pkg().Path(), Iface: named.Obj().Name(), Method: m.Name(), Outer: *outer})
		}
	}
	if len(out) > 0 {
		p.pass.ExportPackageFact(&IfaceRetryFact{Retried: out})
	}
}

func (r *Result) isFallback(l *Layer) bool {
	for _, f := range r.Fallbacks {
		if f.Node == l.Node {
			return true
		}
	}
	return false
}

// retriedIfaceCalls returns the calls through a non-standard interface
// method that l's failure runs again: within a loop's retried calls whose
// failure goes round (FailureGoesRound: not a call whose error is only
// logged), or in a library's retried region where its error is returned
// to the library; not in a goroutine the attempt spawns, and not where the
// code on the way drops the failure.
func (r *Result) retriedIfaceCalls(l *Layer) []*ast.CallExpr {
	var out []*ast.CallExpr
	_, block := l.Body.(*ast.BlockStmt)
	visit := func(root ast.Node, check bool) {
		dropped := dropScan{}
		ast.Inspect(root, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			dropped.see(r.pass.TypesInfo, n)
			switch n := n.(type) {
			case *ast.GoStmt:
				return false // runs beside the attempt, not inside it
			case *ast.CallExpr:
				if m, _ := r.ifaceMethod(n); m != nil && !dropped.drops(r.pass.TypesInfo, n) && !slices.Contains(out, n) &&
					(!check || r.FailureGoesRound(l, n)) {
					out = append(out, n)
				}
			}
			return true
		})
	}
	if l.Kind == Loop && len(l.Ops) > 0 && l.Body != nil {
		for _, op := range r.RetriedCalls(l) {
			if !block || r.FailureGoesRound(l, op) {
				visit(op, false)
			}
		}
		return out
	}
	if l.Body != nil {
		visit(l.Body, block && l.Kind == Library)
	}
	for _, op := range l.Ops {
		if op != l.Node && (l.Body == nil || !within(op, l.Body)) {
			visit(op, false)
		}
	}
	return out
}

// ifaceNamed returns the named interface an interface method m is
// declared in, or nil.
func ifaceNamed(m *types.Func) *types.Named {
	if m == nil {
		return nil
	}
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	n, _ := types.Unalias(sig.Recv().Type()).(*types.Named)
	if n == nil || !types.IsInterface(n) {
		return nil
	}
	return n
}

// An ImplRetry is a method of this package that implements an interface
// method a retry layer of a dependency repeats, with the retry chains the
// method runs itself.
type ImplRetry struct {
	Impl   *types.Func
	Method string // the interface method, "llm.Provider.Chat"
	Outer  LayerInfo
	Chains []Chain
}

// ImplRetries returns the package's methods that implement an interface
// method a dependency's retry layer repeats (IfaceRetryFact) and reach
// retry layers of their own, in source order. A decorator of the
// interface itself (a struct holding another implementation) is left
// out, as callChains leaves it out: which one it wraps is configuration.
func (r *Result) ImplRetries() []ImplRetry {
	if r.inert {
		return nil
	}
	// The packages this one can see, each asked for its fact: a lookup per
	// dependency, where AllPackageFacts would copy every fact of every
	// dependency for each package analysed.
	pkgs := map[string]*types.Package{}
	var facts []RetriedMethod
	var walk func(*types.Package)
	walk = func(p *types.Package) {
		if pkgs[p.Path()] != nil {
			return
		}
		pkgs[p.Path()] = p
		if p != r.pass.Pkg && !stdPath(p.Path()) {
			var f IfaceRetryFact
			if r.pass.ImportPackageFact(p, &f) {
				facts = append(facts, f.Retried...)
			}
		}
		for _, q := range p.Imports() {
			walk(q)
		}
	}
	walk(r.pass.Pkg)
	if len(facts) == 0 {
		return nil
	}
	var out []ImplRetry
	for _, rm := range facts {
		pkg := pkgs[rm.Pkg]
		if pkg == nil {
			continue
		}
		tn, ok := pkg.Scope().Lookup(rm.Iface).(*types.TypeName)
		if !ok {
			continue
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(tn.Type(), false, pkg, rm.Method)
		m, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		for _, fn := range r.localMethods()[rm.Method] {
			n := recvNamed(fn)
			if n == nil || decorates(fn, iface) {
				continue
			}
			if !types.Implements(n, iface) && !types.Implements(types.NewPointer(n), iface) {
				continue
			}
			ff := r.Func(fn)
			if ff == nil || len(ff.Chains) == 0 {
				continue
			}
			out = append(out, ImplRetry{Impl: fn, Method: ifaceName(m), Outer: rm.Outer, Chains: ff.Chains})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Impl.Pos() < out[j].Impl.Pos() })
	return out
}
