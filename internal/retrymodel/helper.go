package retrymodel

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A retry helper is a function that retries an operation it is given:
//
//	func retryWithBackoff(ctx context.Context, b wait.Backoff, fn func() error) error {
//		return wait.ExponentialBackoff(b, func() (bool, error) { return fn() == nil, nil })
//	}
//
// Its own layer sees only a call of its parameter; what that parameter is
// lives at each call site. A call of a helper is therefore a layer too (a
// HelperLayers entry), whose retried region is the function handed to it,
// so that nested retries through helpers are seen. The helper's policy
// travels to other packages in FuncFact.RetriesParam / Helper.
//
// Helper-call layers are kept out of Result.Layers: their policy belongs
// to the helper's own layer, where findings about it are reported once.

// helperInfo is what a helper retries: parameter index and its layer.
type helperInfo struct {
	param int
	layer *Layer    // a layer of this package
	info  LayerInfo // or, for an imported helper, the layer from its fact
}

// findHelpers records the package's helpers and retrier factories and
// makes a layer of every call that hands one its operation.
func (p *pkgCtx) findHelpers() {
	p.helpers = make(map[*types.Func]helperInfo)
	p.factories = make(map[*types.Func]helperInfo)
	for _, l := range p.res.Layers {
		if l.Func == nil || l.Kind == SDK || l.Kind == Client {
			continue
		}
		switch fn := l.FuncNode.(type) {
		case *ast.FuncDecl:
			if _, seen := p.helpers[l.Func]; seen || fn.Body == nil {
				continue
			}
			if i, ok := p.retriedParam(l, l.Func.Type().(*types.Signature).Params()); ok {
				p.helpers[l.Func] = helperInfo{param: i, layer: l}
			}
		case *ast.FuncLit:
			// A retrier factory returns the literal that retries its
			// parameter (OpenTelemetry's Config.RequestFunc(evaluate)).
			decl := p.res.decls[l.Func]
			if _, seen := p.factories[l.Func]; seen || decl == nil || decl.Body == nil || !slices.Contains(returnedLits(decl.Body), fn) {
				continue
			}
			if sig, _ := p.info.TypeOf(fn).(*types.Signature); sig != nil {
				if i, ok := p.retriedParam(l, sig.Params()); ok {
					p.factories[l.Func] = helperInfo{param: i, layer: l}
				}
			}
		}
	}
	p.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		p.helperCall(n.(*ast.CallExpr), stack)
		return true
	})
}

// helperCall makes a layer of call when it hands a helper its operation:
// a function that retries its parameter, or a func value a retrier
// factory made (retry := cfg.RequestFunc(evaluate); retry(ctx, op)).
func (p *pkgCtx) helperCall(call *ast.CallExpr, stack []ast.Node) {
	if p.res.byNode[call] != nil {
		return
	}
	fn := typeutil.StaticCallee(p.info, call)
	classArgs := call.Args // where the classifier argument is
	var h helperInfo
	ok := false
	if fn != nil {
		h, ok = p.helperOf(fn.Origin())
	} else if made := p.madeBy(call.Fun); made != nil {
		if fn = typeutil.StaticCallee(p.info, made); fn != nil {
			h, ok = p.factoryOf(fn.Origin())
			classArgs = made.Args
		}
	}
	if !ok || h.param >= len(call.Args) {
		return
	}
	l := &Layer{Kind: Library, Name: "retry helper " + funcName(fn), Pos: call.Pos(), Node: call}
	l.FuncNode, l.Func = enclosingFunc(p.info, stack)
	arg := astutil.Unparen(call.Args[h.param])
	// A closure, also held in a local (op := func() error {...};
	// exec.Execute(ctx, op)), is read as for a library's (calls.go).
	if lit, _ := (&callCtx{pkgCtx: p}).funcArg(arg); lit != nil {
		l.Body, l.Ops = lit.Body, p.fallibleCalls(lit.Body)
	} else if op := p.funcValue(arg); op != nil {
		l.OpFuncs = []*types.Func{op}
	} else if v := p.funcParam(arg); v != nil {
		l.OpParam = v // handed on: handoff.go
	} else {
		return // an operation the model cannot follow
	}
	classParam := -1
	if h.layer != nil {
		l.HelperOf = h.layer
		l.Policy = h.layer.Policy
		l.Policy.Notes = append([]string{"the policy of " + funcName(fn) + " at " + p.short(h.layer.Pos)}, l.Policy.Notes...)
		classParam = p.classifierParam(h.layer)
	} else {
		l.Policy = policyOf(h.info)
		l.Policy.Notes = []string{"the policy of " + funcName(fn) + " at " + h.info.Posn}
		classParam = h.info.ClassifierParam - 1
		if h.info.Classified {
			l.Policy.Classifier = call // the helper's own, in its package
		}
	}
	if classParam >= 0 {
		// The classifier is what this call hands the helper: nil (or no
		// argument) classifies nothing.
		l.Policy.Classifier, l.Policy.ClassifierFunc = nil, nil
		if classParam < len(classArgs) && !isNil(p.info, astutil.Unparen(classArgs[classParam])) {
			arg := classArgs[classParam]
			l.Policy.Classifier = arg
			_, l.Policy.ClassifierFunc = (&callCtx{pkgCtx: p}).funcArg(arg)
		}
	}
	p.res.HelperLayers = append(p.res.HelperLayers, l)
	p.res.byNode[call] = l
}

// classifierParam returns the index of the func parameter of l's function
// whose call is l's classifier (if !isRetriable(err) { return err }), or -1.
func (p *pkgCtx) classifierParam(l *Layer) int {
	c, _ := l.Policy.Classifier.(ast.Expr)
	if c == nil || l.Func == nil {
		return -1
	}
	params := l.Func.Type().(*types.Signature).Params()
	found := -1
	ast.Inspect(c, func(n ast.Node) bool {
		if found >= 0 {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if id, isID := n.(*ast.Ident); isID && !ok {
			// retry, delay := classify(err); if !retry { return err }: the
			// verdict in a variable is the call's.
			if v := p.identVar(id); v != nil {
				call = p.verdictCall(v)
			}
		}
		if call == nil {
			return true
		}
		if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok {
			for i := range params.Len() {
				if p.info.Uses[id] == params.At(i) {
					found = i
				}
			}
		}
		return found < 0
	})
	return found
}

// retriedParam returns the index of the func parameter among params that
// one of l's operations calls: what the layer retries is its caller's
// argument.
func (p *pkgCtx) retriedParam(l *Layer, params *types.Tuple) (int, bool) {
	for _, op := range l.Ops {
		id, ok := astutil.Unparen(op.Fun).(*ast.Ident)
		if !ok {
			continue
		}
		for i := 0; i < params.Len(); i++ {
			prm := params.At(i)
			if _, isFunc := prm.Type().Underlying().(*types.Signature); isFunc && p.info.Uses[id] == prm {
				return i, true
			}
		}
	}
	return 0, false
}

// madeBy returns the call whose result a func value called as fun is: a
// variable or unexported field given one value, a call
// (d.requestFunc, set to cfg.RequestFunc(evaluate) in the constructor).
func (p *pkgCtx) madeBy(fun ast.Expr) *ast.CallExpr {
	w, ok := p.res.Written(varOf(p.info, fun))
	if !ok {
		return nil
	}
	call, _ := astutil.Unparen(w.Value).(*ast.CallExpr)
	return call
}

// factoryOf returns the retry of the func value fn returns, from this
// package or a fact.
func (p *pkgCtx) factoryOf(fn *types.Func) (helperInfo, bool) {
	if h, ok := p.factories[fn]; ok {
		return h, true
	}
	if fn.Pkg() == p.pass.Pkg {
		return helperInfo{}, false
	}
	var f FuncFact
	if p.pass.ImportObjectFact(fn, &f) && f.ReturnsRetrier > 0 {
		return helperInfo{param: f.ReturnsRetrier - 1, info: f.Helper}, true
	}
	return helperInfo{}, false
}

// helperOf returns what fn retries, from this package or a fact.
func (p *pkgCtx) helperOf(fn *types.Func) (helperInfo, bool) {
	if h, ok := p.helpers[fn]; ok {
		return h, true
	}
	if h, ok := p.handoffs[fn]; ok {
		return h, true
	}
	if fn.Pkg() == p.pass.Pkg {
		return helperInfo{}, false
	}
	var f FuncFact
	if p.pass.ImportObjectFact(fn, &f) && f.RetriesParam > 0 {
		return helperInfo{param: f.RetriesParam - 1, info: f.Helper}, true
	}
	return helperInfo{}, false
}

// funcValue returns the function or method a value names: c.search, fetch.
func (p *pkgCtx) funcValue(e ast.Expr) *types.Func {
	switch e := e.(type) {
	case *ast.Ident:
		fn, _ := p.info.Uses[e].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		fn, _ := p.info.Uses[e.Sel].(*types.Func)
		return fn
	}
	return nil
}

// policyOf rebuilds the part of a policy a fact carries.
func policyOf(li LayerInfo) Policy {
	var pol Policy
	switch {
	case li.AttemptsKnown:
		pol.Attempts = Value{Set: true, Known: true, N: li.Attempts}
	case li.Unbounded:
		pol.Attempts = Value{Set: true, Known: true, N: 0}
	default:
		pol.Attempts = Value{Set: true}
	}
	pol.Waits = li.Waits
	pol.DeadlineAware = li.DeadlineAware
	pol.Assumed = li.Assumed
	if li.PerAttempt > 0 {
		pol.PerAttempt = Value{Set: true, Known: true, D: li.PerAttempt}
	}
	if li.MaxElapsed > 0 {
		pol.MaxElapsed = Value{Set: true, Known: true, D: li.MaxElapsed}
	}
	return pol
}
