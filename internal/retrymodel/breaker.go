package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file holds the model's circuit breakers: what a breaker built in
// this package counts as a failure of its dependency, and the calls that
// run an operation through it. A breaker that counts a caller's own
// cancellation switches the dependency off for every caller because a few
// of them gave up (seed 000: "check what your circuit breaker counts").
// What each library counts and when it opens is in breakerlibs.go.
//
// A breaker is followed from where it is built (or from a constructor of
// the package that returns one) into a variable, a struct field or a map,
// to the calls that run operations through it. A constructor of another
// package is read from its BreakerFact (breakerfact.go). Hand-rolled
// counters are in handbreaker.go. Not known yet: a breaker handed to
// another package's function that runs it (a library's middleware).

// A Breaker is a circuit breaker this package builds.
type Breaker struct {
	Lib  string        // BreakerGobreaker, BreakerFailsafe, ...
	New  *ast.CallExpr // where it is built; nil for a hystrix command never configured
	Lit  *ast.CompositeLit
	Name string // its name, when a constant (gobreaker Settings.Name, the hystrix command)
	V2   bool   // gobreaker/v2: Settings has IsExcluded
	// NoIsSuccessful: a gobreaker before v0.5, whose Settings has no
	// IsSuccessful either: every error counts and no field changes that.
	NoIsSuccessful bool
	// CountsAll: every non-nil error counts as a failure (gobreaker with
	// neither IsSuccessful nor IsExcluded, failsafe-go with no Handle
	// condition, go-resiliency always). hystrix and mercari count every
	// error except the ones after the context they are given ended:
	// SeesCtx.
	CountsAll bool
	SeesCtx   bool
	// Trip says when it opens, for the library's default; "" when the
	// breaker's own setting decides.
	Trip string
	// TripAfter is the number of failures in a row that open it, when
	// known (0 when not: ratios, windows, helpers).
	TripAfter int64
	// Builder is the failsafe-go builder chain's NewBuilder[R]() call,
	// where a condition can be added.
	Builder *ast.CallExpr
	// Posn and Ctor: for a breaker another package builds (New is nil),
	// where it is built and the constructor that returns it
	// (breakerfact.go).
	Posn string
	Ctor *types.Func
}

// Built says where the breaker is built, for a message.
func (b *Breaker) Built(fset *token.FileSet) string {
	switch {
	case b.New != nil:
		return Shorten(fset, b.New.Pos())
	case b.Ctor != nil:
		return b.Posn + " (" + funcName(b.Ctor) + ")"
	}
	return ""
}

// A BreakerCall runs an operation through a breaker: cb.Execute(op),
// failsafe.With(cb).Get(op), hystrix.Do(name, op, fallback).
type BreakerCall struct {
	Call    *ast.CallExpr
	Breaker *Breaker
	Op      *ast.FuncLit // the operation, when a function literal
	Func    ast.Node     // the function the call is in (FuncDecl or FuncLit)
	// Ctx is the context the breaker itself is given (hystrix.DoC,
	// mercari's Do, failsafe-go's WithContext), or nil.
	Ctx ast.Expr
	// InRetry: a failsafe-go retry policy composed outside the breaker
	// in the same executor (With(retryPolicy, breaker)) runs it once per
	// attempt; the call is then also that retry's layer.
	InRetry bool
}

// BreakerCalls returns the package's calls through breakers it builds
// itself, in source order.
func (r *Result) BreakerCalls() []BreakerCall {
	if r.breakerCalls == nil {
		r.breakerCalls = r.findBreakerCalls()
	}
	return r.breakerCalls
}

func (r *Result) findBreakerCalls() []BreakerCall {
	info := r.pass.TypesInfo
	if !importsBreakerLib(r.pass.Pkg) {
		return []BreakerCall{}
	}
	// held maps what a breaker is stored in (a variable or a field) to the
	// breaker; ctors, functions of the package that return one; built, the
	// calls that build one.
	held := map[types.Object]*Breaker{}
	ctors := map[*types.Func]*Breaker{}
	r.breakerCtors = ctors
	imported := map[*types.Func]*Breaker{} // another package's constructors, by fact (nil: none)
	built := map[*ast.CallExpr]*Breaker{}
	type site struct {
		call  *ast.CallExpr
		fn    *types.Func
		stack []ast.Node
	}
	var news, ctorCalls, runs []site
	// copies are local variables stored on into another variable or a
	// field: cb := gobreaker.NewCircuitBreaker(st); return &Client{cb: cb}.
	type copySite struct {
		id    *ast.Ident
		stack []ast.Node
	}
	var copies []copySite
	for _, f := range r.pass.Files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			if id, ok := n.(*ast.Ident); ok && len(stack) > 1 {
				switch stack[len(stack)-2].(type) {
				case *ast.AssignStmt, *ast.KeyValueExpr, *ast.ValueSpec:
					if v, ok := info.Uses[id].(*types.Var); ok && !v.IsField() {
						copies = append(copies, copySite{id, append([]ast.Node(nil), stack...)})
					}
				}
				return true
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, _ := typeutil.Callee(info, call).(*types.Func)
			if fn == nil {
				return true
			}
			fn = fn.Origin()
			s := site{call, fn, append([]ast.Node(nil), stack...)}
			switch {
			case breakerLib(fn.Pkg()) != "":
				if buildsBreaker(fn) {
					news = append(news, s)
				} else if runsBreaker(fn) {
					runs = append(runs, s)
				}
			case fn.Pkg() == r.pass.Pkg:
				ctorCalls = append(ctorCalls, s)
			default:
				if _, asked := imported[fn]; !asked {
					imported[fn] = r.importedBreaker(fn) // one fact lookup per function
				}
				if b := imported[fn]; b != nil {
					ctors[fn] = b
					ctorCalls = append(ctorCalls, s)
				}
			}
			return true
		})
	}
	// store records b under what the value of call is stored in.
	store := func(call ast.Expr, stack []ast.Node, b *Breaker) {
		for i := len(stack) - 2; i >= 0; i-- {
			switch p := stack[i].(type) {
			case *ast.ParenExpr:
				continue
			case *ast.AssignStmt:
				for j, rhs := range p.Rhs {
					if astutil.Unparen(rhs) == call && j < len(p.Lhs) && len(p.Lhs) == len(p.Rhs) {
						if o := holderObj(info, p.Lhs[j]); o != nil {
							held[o] = b
						}
					}
				}
			case *ast.ValueSpec:
				for j, v := range p.Values {
					if astutil.Unparen(v) == call && j < len(p.Names) {
						if o := info.Defs[p.Names[j]]; o != nil {
							held[o] = b
						}
					}
				}
			case *ast.KeyValueExpr:
				if astutil.Unparen(p.Value) == call {
					if id, ok := p.Key.(*ast.Ident); ok {
						if o, ok := info.Uses[id].(*types.Var); ok && o.IsField() {
							held[o] = b
						}
					}
				}
			case *ast.ReturnStmt:
				node, fn := enclosingFunc(info, stack[:i])
				if _, decl := node.(*ast.FuncDecl); decl && fn != nil && len(p.Results) == 1 {
					ctors[fn.Origin()] = b // func newBreaker() *gobreaker.CircuitBreaker { return ... }
				}
			}
			return
		}
	}
	hystrixCmds := map[string]*Breaker{}
	for _, s := range news {
		b := r.buildBreaker(s.call, s.fn, s.stack)
		if b == nil {
			continue
		}
		built[s.call] = b
		if b.Lib == BreakerHystrix {
			hystrixCmds[b.Name] = b
			continue
		}
		store(s.call, s.stack, b)
	}
	for _, s := range ctorCalls {
		if b := ctors[s.fn]; b != nil {
			store(s.call, s.stack, b)
		}
	}
	for range 2 { // a copy of a copy
		for _, c := range copies {
			if b := held[info.Uses[c.id]]; b != nil {
				store(c.id, c.stack, b)
			}
		}
	}
	var out []BreakerCall
	for _, s := range runs {
		fnNode, _ := enclosingFunc(info, s.stack)
		bc, ok := r.breakerRun(s.call, s.fn, fnNode, func(x ast.Expr) *Breaker {
			if call, ok := astutil.Unparen(x).(*ast.CallExpr); ok {
				return built[call]
			}
			return r.heldBreaker(x, fnNode, held)
		}, hystrixCmds)
		if !ok {
			continue
		}
		bc.Call, bc.Func = s.call, fnNode
		out = append(out, bc)
	}
	if out == nil {
		out = []BreakerCall{}
	}
	return out
}

// holderObj is the variable or field an assignment's left side names: v,
// x.f, m[k] (the map's variable or field).
func holderObj(info *types.Info, lhs ast.Expr) types.Object {
	switch e := astutil.Unparen(lhs).(type) {
	case *ast.Ident:
		if o := info.Defs[e]; o != nil {
			return o
		}
		return info.Uses[e]
	case *ast.SelectorExpr:
		return info.Uses[e.Sel]
	case *ast.IndexExpr:
		return holderObj(info, e.X)
	}
	return nil
}

// heldBreaker resolves the receiver of an Execute call to the breaker it
// holds: a variable or field that one, m[k] of a map of them, or a local
// assigned once from one of those.
func (r *Result) heldBreaker(x ast.Expr, fnNode ast.Node, held map[types.Object]*Breaker) *Breaker {
	info := r.pass.TypesInfo
	for depth := 0; depth < 4; depth++ {
		o := holderObj(info, x)
		if o == nil {
			return nil
		}
		if b := held[o]; b != nil {
			return b
		}
		v, ok := o.(*types.Var)
		if !ok || v.IsField() || fnNode == nil {
			return nil
		}
		val, ok := r.singleAssign(fnNode, v, true)
		if !ok {
			return nil
		}
		x = val
	}
	return nil
}

// consecutiveTrip reads a ReadyToTrip literal whose one statement returns
// counts.ConsecutiveFailures > K (or >= K): the failures in a row that
// open the breaker. 0 for anything else (ratios, totals, helpers).
func consecutiveTrip(info *types.Info, e ast.Expr) int64 {
	lit, ok := astutil.Unparen(e).(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 1 {
		return 0
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return 0
	}
	b, ok := astutil.Unparen(ret.Results[0]).(*ast.BinaryExpr)
	if !ok || b.Op != token.GTR && b.Op != token.GEQ {
		return 0
	}
	sel, ok := astutil.Unparen(b.X).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "ConsecutiveFailures" {
		return 0
	}
	k, ok := constInt(info, b.Y)
	if !ok {
		return 0
	}
	if b.Op == token.GTR {
		k++
	}
	return k
}

// unset reports a setting left out or set to nil.
func unset(info *types.Info, e ast.Expr) bool { return e == nil || isNil(info, e) }

// onlyNilIsSuccess reports an IsSuccessful literal whose body is
// return err == nil: gobreaker's own default.
func onlyNilIsSuccess(info *types.Info, e ast.Expr) bool {
	lit, ok := astutil.Unparen(e).(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 1 {
		return false
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	bin, ok := astutil.Unparen(ret.Results[0]).(*ast.BinaryExpr)
	if !ok || bin.Op != token.EQL {
		return false
	}
	return isNil(info, bin.Y) && !isNil(info, bin.X) || isNil(info, bin.X) && !isNil(info, bin.Y)
}

// Remote reports whether n (a function body) makes a remote call: a
// primitive, a function whose summary is remote, a client or SDK call
// the model counts as a remote layer, or a call of a func value or an
// interface method that is remote by what it runs (handed.go).
func (r *Result) Remote(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if found {
			return false
		}
		call, ok := x.(*ast.CallExpr)
		if !ok {
			return true
		}
		if l := r.byNode[call]; l != nil && l.Remote == Yes {
			found = true
		} else if isRemoteCall(r.pass.TypesInfo, call) {
			found = true
		} else if fn := r.Callee(call); fn != nil {
			found = r.funcRemote(fn)
		} else if r.handedRemote(call) != nil {
			found = true // f(ctx): what the callers hand it is remote (handed.go)
		} else if _, ok := r.implRemote(call); ok {
			found = true
		}
		return !found
	})
	return found
}

// CallsOnward reports whether n (a breaker's operation) calls a function
// value handed a context: the next stage of a middleware chain
// (next(ctx, request), next[0](ctx, req)), which a breaker is put in front
// of because it is the dependency. Declared functions and interface
// methods do not count: their bodies, or the implementations', say
// whether they leave the process (Remote).
func (r *Result) CallsOnward(n ast.Node) bool {
	info := r.pass.TypesInfo
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if _, isFunc := typeutil.Callee(info, call).(*types.Func); isFunc {
			return true
		}
		if tv, ok := info.Types[call.Fun]; !ok || tv.IsType() || tv.IsBuiltin() {
			return true
		}
		if _, ok := info.TypeOf(call.Fun).Underlying().(*types.Signature); !ok {
			return true
		}
		for _, a := range call.Args {
			if t := info.TypeOf(a); t != nil && IsContext(t) {
				found = true
			}
		}
		return !found
	})
	return found
}

// CallerContext returns a context the operation op uses that comes from
// the caller of fnNode (the function op is written in): a context
// parameter, or one derived from it, or an *http.Request's Context(). The
// name is as written at its first use in op.
func (r *Result) CallerContext(op ast.Node, fnNode ast.Node) (string, bool) {
	info := r.pass.TypesInfo
	var name string
	ast.Inspect(op, func(x ast.Node) bool {
		if name != "" {
			return false
		}
		switch e := x.(type) {
		case *ast.Ident:
			v, ok := info.Uses[e].(*types.Var)
			if !ok || !IsContext(v.Type()) || v.IsField() {
				return true
			}
			if op.Pos() <= v.Pos() && v.Pos() < op.End() {
				return true // the operation's own context
			}
			_, root := r.CtxDerivation(e, fnNode)
			if root != nil && isParamOf(info, root, fnNode) {
				name = e.Name
			}
		case *ast.CallExpr:
			if requestContext(info, e) {
				name = types.ExprString(e)
				return false
			}
		}
		return true
	})
	return name, name != ""
}

// isParamOf reports whether v is a parameter of fnNode.
func isParamOf(info *types.Info, v *types.Var, fnNode ast.Node) bool {
	var ft *ast.FuncType
	switch f := fnNode.(type) {
	case *ast.FuncDecl:
		ft = f.Type
	case *ast.FuncLit:
		ft = f.Type
	default:
		return false
	}
	for _, fld := range ft.Params.List {
		for _, n := range fld.Names {
			if info.Defs[n] == v {
				return true
			}
		}
	}
	return false
}

// requestContext reports req.Context() on an *http.Request: the context
// of the request being served, which ends when its client goes away.
func requestContext(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" && fn.Name() == "Context" && strings.HasSuffix(RecvName(fn), "Request")
}

// KeepsCtxErrsOut reports an operation that tells a context's own error
// apart itself (it names context.Canceled or DeadlineExceeded, or asks a
// context's Err, in its body or in a function of the package it calls),
// so what it hands the breaker is the work's decision, not every error.
func (r *Result) KeepsCtxErrsOut(op *ast.FuncLit) bool { return r.namesCtxErr(op.Body, 0) }
