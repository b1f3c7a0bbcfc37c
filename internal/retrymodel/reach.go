package retrymodel

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// summarize computes, for every function declared in the package, what a
// call of it reaches, and exports the non-empty summaries as facts.
// Closures count toward the function that holds them: a closure handed to a
// goroutine or a retry library runs on the function's behalf.
func (p *pkgCtx) summarize() {
	state := make(map[*types.Func]int8) // 1 in progress, 2 done
	chainMemo := make(map[*Layer][]Chain)

	var visit func(fn *types.Func) *FuncFact
	var chainOf func(l *Layer) []Chain
	var reachIn func(root ast.Node, self *Layer) ([]Chain, bool)
	// made holds the closures the function being summarised returns: they
	// run when its caller calls the result, not in the call itself (a
	// constructor of a retrying gRPC interceptor handed to grpc.NewClient).
	var made []*ast.FuncLit
	// bodies are the retried regions of the package's layers: a closure
	// held in a local and handed to a retry later (op := func() error
	// {...}; exec.Execute(ctx, op)) is reached through that layer, not
	// where it is written.
	bodies := map[ast.Node]*Layer{}
	expanding := map[*ast.FuncLit]bool{} // closures being reached through their calls
	for _, l := range slices.Concat(p.res.Layers, p.res.HelperLayers) {
		if l.Body != nil {
			bodies[l.Body] = l
		}
	}

	calleeFact := func(fn *types.Func) *FuncFact {
		if fn == nil {
			return nil
		}
		fn = fn.Origin()
		if fn.Pkg() == p.pass.Pkg {
			return visit(fn)
		}
		return p.res.Func(fn)
	}

	reachIn = func(root ast.Node, self *Layer) (chains []Chain, remote bool) {
		dropped := dropScan{}
		ast.Inspect(root, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			dropped.see(p.info, n)
			if lit, ok := n.(*ast.FuncLit); ok && (slices.Contains(made, lit) || bodies[lit.Body] != nil && bodies[lit.Body] != self) {
				return false
			}
			if _, ok := n.(*ast.GoStmt); ok {
				// A goroutine runs beside the call, not inside it: a retry
				// it starts (a pool dialling in the background) is not
				// nested in the caller's attempt.
				return false
			}
			if l := p.res.byNode[n]; l != nil && l != self {
				if call, ok := n.(*ast.CallExpr); ok && dropped.drops(p.info, call) {
					chains = append(chains, cut(chainOf(l))...)
				} else {
					chains = append(chains, chainOf(l)...)
				}
				if l.Remote == Yes {
					remote = true
				}
				if call, ok := n.(*ast.CallExpr); ok && l.Body == nil {
					// A client or SDK call: its arguments may still call
					// other functions (rare); the call itself is covered.
					for _, a := range call.Args {
						c, r := reachIn(a, self)
						chains, remote = append(chains, c...), remote || r
					}
				}
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if isRemoteCall(p.info, call) {
				remote = true
			}
			if inner, ok := astutil.Unparen(call.Fun).(*ast.CallExpr); ok {
				chains = append(chains, p.res.madeChains(inner, calleeFact)...) // retrying(get)()
			}
			if lit := p.res.ClosureCalled(call); lit != nil && !within(lit, root) && !expanding[lit] && bodies[lit.Body] == nil {
				// op := func() error { ... }; op(): the literal runs here (closure.go)
				expanding[lit] = true
				c, r := reachIn(lit.Body, self)
				delete(expanding, lit)
				chains, remote = append(chains, c...), remote || r
			}
			c, r := p.res.callChains(call, calleeFact) // iface.go
			if dropped.drops(p.info, call) {
				c = cut(c)
			}
			chains, remote = append(chains, c...), remote || r
			return true
		})
		return chains, remote
	}

	chainOf = func(l *Layer) []Chain {
		if c, ok := chainMemo[l]; ok {
			return c
		}
		chainMemo[l] = nil // cut cycles
		var inner []Chain
		remote := l.Remote == Yes
		if l.Body != nil {
			c, r := reachIn(l.Body, l)
			inner, remote = c, remote || r
		}
		for _, op := range l.Ops {
			if l.Body != nil && within(op, l.Body) {
				continue
			}
			if op == l.Node {
				continue
			}
			if call, ok := astutil.Unparen(op).(*ast.CallExpr); ok {
				inner = append(inner, p.res.madeChains(call, calleeFact)...) // retry.Do(makeOp())
			}
			c, r := reachIn(op, l)
			inner, remote = append(inner, c...), remote || r
		}
		for _, fn := range l.OpFuncs {
			if ff := calleeFact(fn); ff != nil {
				for _, c := range ff.Chains {
					inner = append(inner, c.via(funcName(fn)))
				}
				remote = remote || ff.Remote
			}
		}
		if remote && l.Remote != Yes {
			l.Remote = Yes
		}
		head := p.layerInfo(l)
		var out []Chain
		if len(inner) == 0 {
			out = []Chain{{Layers: []LayerInfo{head}}}
		} else {
			for _, c := range prune(inner) {
				c.Via = nil
				out = append(out, c.Under(head))
			}
		}
		chainMemo[l] = out
		return out
	}

	visit = func(fn *types.Func) *FuncFact {
		switch state[fn] {
		case 1:
			return nil
		case 2:
			return p.res.funcs[fn]
		}
		decl := p.res.decls[fn]
		if decl == nil || decl.Body == nil {
			state[fn] = 2
			return nil
		}
		state[fn] = 1
		f := &FuncFact{}
		root := ast.Node(decl.Body)
		if p.res.byNode[decl] != nil {
			root = decl // a recursive retry: the function is the layer
		}
		outer := made
		made = returnedLits(decl.Body)
		chains, remote := reachIn(root, nil)
		var madeChains []Chain
		for _, lit := range made { // in source order: the fact is the same each run
			c, r := reachIn(lit.Body, nil)
			madeChains, remote = append(madeChains, c...), remote || r
		}
		made = outer
		f.Chains, f.Made, f.Remote = prune(chains), prune(madeChains), remote
		if w, ok := p.waiter[fn]; ok && w.arg >= 0 {
			f.Waiter, f.WaitArg, f.Cancellable = true, w.arg, w.cancellable
		} else if ok {
			if t, arg := p.waitTable(fn, w); t != nil {
				f.WaitTable, f.WaitTableArg, f.Cancellable = t, arg, w.cancellable
			} else {
				// A helper that waits a duration of its own making
				// (t.interval << attempt, jittered): a wait all the same,
				// and whether it ends when the context does is what a
				// caller needs to know.
				f.Waiter, f.WaitArg, f.Cancellable = true, -1, w.cancellable
			}
		}
		f.RetryAfter = p.raFunc[fn]
		f.DurTable = p.durTable(fn, decl)
		if g, ok := p.guardOf(fn); ok {
			f.GuardArg, f.GuardReserve = g.need+1, g.reserve
		}
		if d, pos, ok := p.dirs.P99(decl); ok {
			f.P99, f.P99Posn = d, p.short(pos)
		} else if d, src, ok := ValuesP99(fn); ok { // the values file (values.go)
			f.P99, f.P99Posn = d, src
		}
		f.Pipeline = p.dirs.IsPipeline(decl)
		f.CancelAccessor = p.res.exportsAccessor(fn)
		if fn.Exported() {
			f.OnSuccess = p.ackPred(fn) // read by other packages' loops (errPredOnSuccess)
		}
		if o := p.res.ctxResult(fn); o.detached {
			f.Detached = true
		} else if o.param >= 0 {
			f.CtxParam = o.param + 1
		}
		if h, ok := p.helpers[fn]; ok {
			f.RetriesParam, f.Helper = h.param+1, p.layerInfo(h.layer)
		} else if h, ok := p.handoffs[fn]; ok {
			f.RetriesParam, f.Helper = h.param+1, p.layerInfo(h.layer)
		} else if h, ok := p.factories[fn]; ok {
			f.ReturnsRetrier, f.Helper = h.param+1, p.layerInfo(h.layer)
		}
		state[fn] = 2
		if !f.empty() {
			p.res.funcs[fn] = f
		}
		return p.res.funcs[fn]
	}

	fns := p.res.funcsInOrder()
	for _, fn := range fns {
		visit(fn)
	}
	for _, l := range p.res.Layers {
		chainOf(l) // settles l.Remote for layers in closures at package level too
	}
	for _, l := range p.res.HelperLayers {
		chainOf(l)
	}
	for _, fn := range fns {
		if f := p.res.funcs[fn]; f != nil {
			p.pass.ExportObjectFact(fn, f)
		}
	}
	p.exportIfaceFacts()
	p.exportRetriedIfaces() // implretry.go
}

// Inner returns the retry layers reached from inside l's retried region,
// each chain outermost first, with the functions called on the way.
func (r *Result) Inner(l *Layer) []Chain {
	var out []Chain
	add := func(cs []Chain, via string) {
		for _, c := range cs {
			if via != "" {
				c = c.via(via)
			}
			out = append(out, c)
		}
	}
	expanding := map[*ast.FuncLit]bool{}
	var visitRoot func(root ast.Node)
	visitRoot = func(root ast.Node) {
		dropped := dropScan{}
		ast.Inspect(root, func(n ast.Node) bool {
			if n == nil {
				return false
			}
			dropped.see(r.pass.TypesInfo, n)
			if _, ok := n.(*ast.GoStmt); ok {
				return false // runs beside the attempt, not inside it
			}
			if inner := r.byNode[n]; inner != nil && inner != l {
				head := r.layerInfoOf(inner)
				cs := []Chain{{Layers: []LayerInfo{head}}}
				// the nested layer's own inner chains
				for _, c := range r.Inner(inner) {
					cs = append(cs, c.Under(head))
				}
				if call, ok := n.(*ast.CallExpr); ok && dropped.drops(r.pass.TypesInfo, call) {
					cs = cut(cs)
				}
				add(cs, "")
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok {
				if made, ok := astutil.Unparen(call.Fun).(*ast.CallExpr); ok {
					add(r.madeChains(made, r.Func), "") // retrying(get)()
				}
				if lit := r.ClosureCalled(call); lit != nil && !within(lit, root) && !expanding[lit] && (l.Body == nil || !within(lit, l.Body)) {
					expanding[lit] = true // op(): the literal runs here (closure.go)
					visitRoot(lit.Body)
					delete(expanding, lit)
				}
				c, _ := r.callChains(call, r.Func)
				if dropped.drops(r.pass.TypesInfo, call) {
					c = cut(c)
				}
				add(c, "")
			}
			return true
		})
	}
	if l.Body != nil {
		visitRoot(l.Body)
	}
	for _, op := range l.Ops {
		if op == l.Node || (l.Body != nil && within(op, l.Body)) {
			continue
		}
		if call, ok := astutil.Unparen(op).(*ast.CallExpr); ok {
			add(r.madeChains(call, r.Func), "") // retry.Do(makeOp())
		}
		visitRoot(op)
	}
	for _, fn := range l.OpFuncs {
		if ff := r.Func(fn); ff != nil {
			add(ff.Chains, funcName(fn))
		}
	}
	return prune(out)
}

func (r *Result) layerInfoOf(l *Layer) LayerInfo {
	p := &pkgCtx{pass: r.pass, info: r.pass.TypesInfo, res: r}
	return p.layerInfo(l)
}

// layerInfo renders a layer for a fact.
func (p *pkgCtx) layerInfo(l *Layer) LayerInfo {
	li := LayerInfo{
		Kind:          l.Kind,
		Name:          l.Name,
		Posn:          p.short(l.Pos),
		Assumed:       l.Policy.Assumed,
		ByDefault:     l.Policy.Attempts.Default && l.Kind == Client,
		Waits:         l.Policy.Waits,
		WaitsAtLeast:  l.Policy.WaitsAtLeast,
		WaitsUpTo:     l.Policy.WaitsUpTo,
		DeadlineAware: l.Policy.DeadlineAware,
		Remote:        l.Remote == Yes,
		ConflictOnly:  l.Policy.ConflictOnly.IsValid(),
	}
	if l.Func != nil {
		li.Func = funcName(l.Func)
	}
	if a := l.Policy.Attempts; a.Known {
		li.Attempts, li.AttemptsKnown, li.Unbounded = a.N, a.N > 0, a.N == 0
	}
	if l.ClientPos.IsValid() {
		li.ClientPosn = p.short(l.ClientPos)
	} else {
		li.ClientPosn = l.ClientPosn
	}
	if g := l.Policy.Guard; g != nil {
		li.GuardPosn = p.short(g.Pos)
		if g.Reserve.Known {
			li.Reserve, li.ReserveKnown = g.Reserve.D, true
		}
		li.GuardWait = g.IncludesWait
		if g.FirstWait.Known && (len(l.Policy.Waits) == 0 || g.FirstWait.D != l.Policy.Waits[0]) {
			li.GuardWait0, li.GuardWait0AtLeast = g.FirstWait.D, g.AtLeast
		}
	}
	if pos := l.Policy.Fallback; pos.IsValid() {
		li.FallbackPosn = p.short(pos)
	}
	if pos := l.Policy.AttemptCtxEnds; pos.IsValid() {
		li.AttemptCtxEnd = p.short(pos)
	}
	if v := l.Policy.PerAttempt; v.Known {
		li.PerAttempt = v.D
	}
	if v := l.Policy.MaxElapsed; v.Known {
		li.MaxElapsed = v.D
	}
	if i := p.classifierParam(l); i >= 0 {
		li.ClassifierParam = i + 1
	} else {
		li.Classified = l.Policy.Classifier != nil || l.Policy.ClassifierFunc != nil || l.Policy.Codes != nil
	}
	return li
}

// prune removes duplicate chains and keeps the deepest maxChains.
func prune(cs []Chain) []Chain {
	if len(cs) == 0 {
		return nil
	}
	seen := make(map[string]int)
	var out []Chain
	for _, c := range cs {
		key := strings.Join(c.Via, ",") + "|"
		for _, l := range c.Layers {
			key += l.Posn + ";"
		}
		if i, ok := seen[key]; ok {
			// The same layers reached by two calls, one of which drops
			// their failure: the other hands it up.
			if g := out[i].Gap; g > 0 && (c.Gap == 0 || c.Gap > g) {
				out[i] = c
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Chain) int { return len(b.Layers) - len(a.Layers) })
	if len(out) > maxChains {
		out = out[:maxChains]
	}
	return out
}

func within(n, region ast.Node) bool {
	return region != nil && region.Pos() <= n.Pos() && n.End() <= region.End()
}

// funcName renders a function as pkg.F or pkg.(*T).M.
func funcName(fn *types.Func) string {
	if fn == nil {
		return "?"
	}
	pkg := ""
	if fn.Pkg() != nil {
		pkg = fn.Pkg().Name() + "."
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		t := sig.Recv().Type()
		ptr := ""
		if pt, ok := t.(*types.Pointer); ok {
			t, ptr = pt.Elem(), "*"
		}
		name := types.TypeString(t, func(*types.Package) string { return "" })
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if ptr != "" {
			return pkg + "(*" + name + ")." + fn.Name()
		}
		return pkg + name + "." + fn.Name()
	}
	return pkg + fn.Name()
}

// FuncName renders a function the way messages name it: pkg.F, pkg.(*T).M.
func FuncName(fn *types.Func) string { return funcName(fn) }

// Callee returns the function a call runs: its static callee, or, for a
// method call through an interface, the method of the one type declared
// in this package that implements the interface (the package's own
// implementation, as a field set in a constructor usually holds). With no
// such type, or more than one, it returns nil.
func (r *Result) Callee(call *ast.CallExpr) *types.Func {
	info := r.pass.TypesInfo
	if fn := typeutil.StaticCallee(info, call); fn != nil {
		return fn
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return nil
	}
	iface, ok := s.Recv().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	if r.impls == nil {
		r.impls = make(map[*types.Func]*types.Func)
	}
	m, _ := s.Obj().(*types.Func)
	if m == nil {
		return nil
	}
	if fn, ok := r.impls[m]; ok {
		return fn
	}
	var found *types.Func
	count := 0
	for _, t := range r.concreteTypes() {
		for _, cand := range []types.Type{t, types.NewPointer(t)} {
			if types.Implements(cand, iface) {
				obj, _, _ := types.LookupFieldOrMethod(cand, true, r.pass.Pkg, m.Name())
				if fn, ok := obj.(*types.Func); ok {
					found = fn
					count++
				}
				break
			}
		}
	}
	if count != 1 {
		found = nil
	}
	r.impls[m] = found
	return found
}

// concreteTypes lists the package's declared types that are not
// interfaces, in scope order, once.
func (r *Result) concreteTypes() []types.Type {
	if r.concrete != nil {
		return r.concrete
	}
	r.concrete = []types.Type{}
	scope := r.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || types.IsInterface(tn.Type()) {
			continue
		}
		r.concrete = append(r.concrete, tn.Type())
	}
	return r.concrete
}

// returnedLits lists, in source order, the function literals body returns
// as they are (`return func(...) error { ... }`), outside nested closures.
func returnedLits(body *ast.BlockStmt) []*ast.FuncLit {
	var out []*ast.FuncLit
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if lit, ok := astutil.Unparen(r).(*ast.FuncLit); ok {
					out = append(out, lit)
				}
			}
		}
		return true
	})
	return out
}

// madeChains returns the retry layers of the closures call's callee
// returns, for a call whose result is run: called at once, or handed to
// a retry as its operation.
func (r *Result) madeChains(call *ast.CallExpr, local func(*types.Func) *FuncFact) []Chain {
	fn := r.Callee(call)
	if fn == nil {
		return nil
	}
	if ff := local(fn); ff != nil {
		return prefixVia(funcName(fn), ff.Made)
	}
	return nil
}
