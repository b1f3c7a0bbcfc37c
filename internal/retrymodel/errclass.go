package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Which errors a retry's classifier retries: evaluated for a given error
// value, as ctxerr.go evaluates it for a context's own error. A network
// client that retries io.EOF (the peer closed the connection between
// messages) and gives up on io.ErrUnexpectedEOF (it closed it in the
// middle of one: io.ReadFull's answer) fails at once on the same
// disconnect whenever it lands inside a frame (franz-go's fix c706d79a).

// A SentinelGap is a classifier that provably answers retry for one error
// and give up for its sibling.
type SentinelGap struct {
	Func            *types.Func
	Retried, Missed string   // "io.EOF", "io.ErrUnexpectedEOF"
	Test            ast.Expr // where Retried is tested: errors.Is(err, io.EOF) or err == io.EOF
}

// SentinelGaps returns the package's retry classifiers with a gap.
func (r *Result) SentinelGaps() []SentinelGap { return r.sentinelGaps }

// sentinelPairs are the errors a classifier that retries the first should
// retry too.
var sentinelPairs = [][2]string{{"EOF", "ErrUnexpectedEOF"}}

// findSentinelGaps fills Result.sentinelGaps: functions of the package
// taking an error and answering a bool first, used to decide a retry (called
// in a layer's retried region or condition, or by a bool function that
// is), that answer true for io.EOF on every path and false for
// io.ErrUnexpectedEOF.
func (p *pkgCtx) findSentinelGaps() {
	io := importedPkg(p.pass.Pkg, "io")
	if io == nil || len(p.res.Layers) == 0 {
		return
	}
	for _, pair := range sentinelPairs {
		retried, _ := io.Scope().Lookup(pair[0]).(*types.Var)
		missed, _ := io.Scope().Lookup(pair[1]).(*types.Var)
		if retried == nil || missed == nil {
			continue
		}
		for _, fn := range p.res.funcsInOrder() {
			decl := p.res.decls[fn]
			test := p.sentinelTest(decl, retried)
			if test == nil || p.mentions(decl.Body, func(v *types.Var) bool { return v == missed }) || !p.decidesRetry(fn) {
				continue
			}
			if p.sentinelAnswer(fn, decl, retried) != Yes || p.sentinelAnswer(fn, decl, missed) != No {
				continue
			}
			p.res.sentinelGaps = append(p.res.sentinelGaps, SentinelGap{Func: fn, Retried: "io." + pair[0], Missed: "io." + pair[1], Test: test})
		}
	}
}

// sentinelTest returns the first test of the function's error against v
// (errors.Is(err, v), err == v), or nil.
func (p *pkgCtx) sentinelTest(decl *ast.FuncDecl, v *types.Var) ast.Expr {
	if decl.Body == nil {
		return nil
	}
	var found ast.Expr
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if isFunc(typeutil.StaticCallee(p.info, n), "errors", "Is") && len(n.Args) == 2 && varOf(p.info, astutil.Unparen(n.Args[1])) == v {
				found = n
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL && (varOf(p.info, astutil.Unparen(n.X)) == v || varOf(p.info, astutil.Unparen(n.Y)) == v) {
				found = n
			}
		}
		return true
	})
	return found
}

// sentinelAnswer evaluates fn for err = v: Yes or No when every path
// agrees, Unknown otherwise.
func (p *pkgCtx) sentinelAnswer(fn *types.Func, decl *ast.FuncDecl, v *types.Var) Tri {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
		return Unknown
	}
	e := &ctxErrEval{p: p, sentinel: v, bound: make(map[*types.Var]ctxVal), liveCtxs: true}
	errs := 0
	for i := 0; i < sig.Params().Len(); i++ {
		switch pv := sig.Params().At(i); {
		case isErrorType(pv.Type()):
			e.bound[pv] = ctxVal{isErr: true}
			errs++
		case isPointer(pv.Type()):
			e.bound[pv] = ctxVal{isNil: true}
		case isIntegral(pv.Type()):
			e.bound[pv] = ctxVal{counter: true}
		}
	}
	if errs != 1 {
		return Unknown
	}
	t, _, _ := evalStmts(e, decl.Body.List)
	return t
}

// decidesRetry reports a function whose true answer sends a retry of
// the package round again: called in a condition in a layer's node (its
// retried region, its condition) whose branch goes round (if
// retryable(err) { wait; continue }) or, negated, leaves (if
// !retryable(err) { return err }); returned by a classifier the layer is
// given; or returned, as it is, by a bool function that decides so. A
// predicate whose true answer ends the loop (if done(err) { return }) is
// no retry classifier.
func (p *pkgCtx) decidesRetry(fn *types.Func) bool {
	return p.retriesOnTrue(fn, 0) == Yes
}

func (p *pkgCtx) retriesOnTrue(fn *types.Func, depth int) Tri {
	if depth > 2 {
		return Unknown
	}
	answer := Unknown
	p.res.callsOf(fn, func(call *ast.CallExpr, stack []ast.Node) bool {
		answer = p.siteAnswer(call, stack, fn, depth)
		return answer != Unknown
	})
	return answer
}

// siteAnswer says whether a true answer of the call (the top of stack)
// retries: in a layer, by the branch its condition guards; in a bool
// function, by that function's own answer.
func (p *pkgCtx) siteAnswer(call *ast.CallExpr, stack []ast.Node, fn *types.Func, depth int) Tri {
	inLayer := false
	for _, l := range p.res.Layers {
		if l.Node != nil && l.Node.Pos() <= call.Pos() && call.End() <= l.Node.End() ||
			l.Body != nil && l.Body.Pos() <= call.Pos() && call.End() <= l.Body.End() {
			inLayer = true
		}
	}
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.IfStmt:
			pol := polarity(s.Cond, call)
			if pol == Unknown || !inLayer {
				return Unknown
			}
			switch {
			case p.continuesOrWaits(s.Body, nil):
				return pol
			case p.blockLeavesAny(s.Body):
				return pol.Not()
			}
			return Unknown
		case *ast.ReturnStmt:
			if len(s.Results) == 0 {
				return Unknown
			}
			pol := polarity(s.Results[0], call)
			if pol == Unknown {
				return Unknown
			}
			node, caller := enclosingFunc(p.info, stack[:i])
			if _, ok := node.(*ast.FuncLit); ok && inLayer {
				return pol // a classifier handed to the layer: RetryIf(func(err error) bool { return f(err) })
			}
			if caller == nil || caller == fn {
				return Unknown
			}
			sig, ok := caller.Type().(*types.Signature)
			if !ok || sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
				return Unknown
			}
			switch p.retriesOnTrue(caller, depth+1) {
			case Yes:
				return pol
			case No:
				return pol.Not()
			}
			return Unknown
		case *ast.FuncDecl, *ast.FuncLit, *ast.BlockStmt:
			return Unknown
		}
	}
	return Unknown
}

// polarity is Yes when x holds whenever call's result is true and the
// rest of an && / || chain lets it decide (call, !(!call), call && b,
// call || b), No under one negation, Unknown anywhere else.
func polarity(x ast.Expr, call *ast.CallExpr) Tri {
	switch c := astutil.Unparen(x).(type) {
	case *ast.CallExpr:
		if c == call {
			return Yes
		}
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return polarity(c.X, call).Not()
		}
	case *ast.BinaryExpr:
		if c.Op == token.LAND || c.Op == token.LOR {
			if t := polarity(c.X, call); t != Unknown {
				return t
			}
			return polarity(c.Y, call)
		}
	}
	return Unknown
}

// isSentinel reports x naming the error the evaluation holds.
func (e *ctxErrEval) isSentinel(x ast.Expr) bool {
	return e.sentinel != nil && varOf(e.p.info, astutil.Unparen(x)) == e.sentinel
}

// beyondError reports an interface type with a method other than Error:
// a value made by errors.New (io.EOF) does not implement it.
func (e *ctxErrEval) beyondError(t types.Type) bool {
	if t == nil {
		return false
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := 0; i < it.NumMethods(); i++ {
		if it.Method(i).Name() != "Error" {
			return true
		}
	}
	return false
}

// importedPkg returns the package pkg imports with the path, or nil.
func importedPkg(pkg *types.Package, path string) *types.Package {
	for _, q := range pkg.Imports() {
		if q.Path() == path {
			return q
		}
	}
	return nil
}
