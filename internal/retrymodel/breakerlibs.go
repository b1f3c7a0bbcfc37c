package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file holds what each breaker library counts as a failure, when it
// opens by default, and how an operation is run through it. Read from the
// libraries' sources:
//   - sony/gobreaker v1, v2: every error, unless Settings.IsSuccessful (v1,
//     v2) or IsExcluded (v2) says otherwise; opens after more than 5
//     consecutive failures.
//   - failsafe-go circuitbreaker: every error unless a Handle condition is
//     set (BaseFailurePolicy.IsFailure); the execution's context is not
//     consulted. Opens after 1 failure by default.
//   - afex/hystrix-go: every error of run except context.Canceled and
//     DeadlineExceeded compared with ==; DoC/GoC also watch their context
//     and report its end themselves. hystrix.Do gives it none, so a
//     cancelled request returns as a wrapped error (*url.Error, a gRPC
//     status) and counts. Opens at 50% errors over at least 20 requests in
//     10s.
//   - mercari/go-circuitbreaker: Do(ctx, op) leaves out errors after ctx
//     ended, unless WithFailOnContextCancel/Deadline(true). Opens after 10
//     failures (DefaultTripFunc).
//   - eapache/go-resiliency breaker: every error of work; opens after its
//     errorThreshold errors.

// Breaker libraries.
const (
	BreakerGobreaker = "gobreaker"
	BreakerFailsafe  = "failsafe-go"
	BreakerHystrix   = "hystrix-go"
	BreakerMercari   = "mercari"
	BreakerResilient = "go-resiliency"
)

const (
	pkgFailsafe   = "github.com/failsafe-go/failsafe-go"
	pkgFailsafeCB = "github.com/failsafe-go/failsafe-go/circuitbreaker"
)

// breakerLib names the breaker library package p belongs to, or "".
func breakerLib(p *types.Package) string {
	if p == nil {
		return ""
	}
	switch p.Path() {
	case "github.com/sony/gobreaker", "github.com/sony/gobreaker/v2":
		return BreakerGobreaker
	case pkgFailsafe, pkgFailsafeCB:
		return BreakerFailsafe
	case "github.com/afex/hystrix-go/hystrix":
		return BreakerHystrix
	case "github.com/mercari/go-circuitbreaker":
		return BreakerMercari
	case "github.com/eapache/go-resiliency/breaker":
		return BreakerResilient
	}
	return ""
}

// buildsBreaker reports a library function that builds a breaker (for
// hystrix, configures a command).
func buildsBreaker(fn *types.Func) bool {
	recv := RecvName(fn)
	switch breakerLib(fn.Pkg()) {
	case BreakerGobreaker:
		return recv == "" && fn.Name() == "NewCircuitBreaker"
	case BreakerFailsafe:
		// WithDefaults and CircuitBreakerBuilder before v0.7
		return fn.Pkg().Path() == pkgFailsafeCB && (recv == "" && (fn.Name() == "NewWithDefaults" || fn.Name() == "WithDefaults") ||
			(recv == "Builder" || recv == "CircuitBreakerBuilder") && fn.Name() == "Build")
	case BreakerHystrix:
		return recv == "" && fn.Name() == "ConfigureCommand"
	case BreakerMercari, BreakerResilient:
		return recv == "" && fn.Name() == "New"
	}
	return false
}

// runsBreaker reports a library function that runs an operation through
// a breaker.
func runsBreaker(fn *types.Func) bool {
	recv, name := RecvName(fn), fn.Name()
	switch breakerLib(fn.Pkg()) {
	case BreakerGobreaker:
		return recv == "CircuitBreaker" && name == "Execute"
	case BreakerFailsafe:
		return failsafeRunCall(fn)
	case BreakerHystrix:
		return recv == "" && (name == "Do" || name == "Go" || name == "DoC" || name == "GoC")
	case BreakerMercari:
		return recv == "CircuitBreaker" && name == "Do"
	case BreakerResilient:
		return recv == "Breaker" && (name == "Run" || name == "Go")
	}
	return false
}

// buildBreaker reads what the breaker built by call counts and when it
// opens; nil when that is not known (settings from elsewhere).
func (r *Result) buildBreaker(call *ast.CallExpr, fn *types.Func, stack []ast.Node) *Breaker {
	info := r.pass.TypesInfo
	lib := breakerLib(fn.Pkg())
	b := &Breaker{Lib: lib, New: call}
	switch lib {
	case BreakerGobreaker:
		return r.gobreakerSettings(b, fn, stack)
	case BreakerFailsafe:
		return failsafeBreaker(info, b)
	case BreakerHystrix:
		if len(call.Args) != 2 {
			return nil
		}
		name, ok := constString(info, call.Args[0])
		if !ok {
			return nil
		}
		b.Name, b.CountsAll, b.SeesCtx = name, true, true
		b.Trip = "50% errors over at least 20 requests in 10s"
		if lit, ok := astutil.Unparen(call.Args[1]).(*ast.CompositeLit); ok {
			b.Lit = lit
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && (id.Name == "ErrorPercentThreshold" || id.Name == "RequestVolumeThreshold") {
						b.Trip = "" // its own thresholds
					}
				}
			}
		}
		return b
	case BreakerMercari:
		b.CountsAll, b.SeesCtx = true, true
		b.Trip, b.TripAfter = "10 failures", 10
		for _, a := range call.Args {
			c, ok := astutil.Unparen(a).(*ast.CallExpr)
			if !ok {
				return nil // options from elsewhere
			}
			opt := calleeName(c)
			switch opt {
			case "WithFailOnContextCancel", "WithFailOnContextDeadline":
				if len(c.Args) == 1 && !isConstBool(info, c.Args[0], false) {
					b.SeesCtx = false
				}
			case "WithTripFunc":
				b.Trip, b.TripAfter = "", 0
				if len(c.Args) == 1 {
					if tc, ok := astutil.Unparen(c.Args[0]).(*ast.CallExpr); ok && len(tc.Args) == 1 {
						if n := calleeName(tc); n == "NewTripFuncThreshold" || n == "NewTripFuncConsecutiveFailures" {
							b.TripAfter, _ = constInt(info, tc.Args[0])
						}
					}
				}
			}
		}
		if !b.SeesCtx {
			b.CountsAll = false // told to count the context's end: a choice made
		}
		return b
	case BreakerResilient:
		if len(call.Args) != 3 {
			return nil
		}
		b.CountsAll = true
		b.TripAfter, _ = constInt(info, call.Args[0])
		return b
	}
	return nil
}

// failsafeBreaker reads a circuitbreaker.NewWithDefaults[R]() or a
// NewBuilder[R]()....Build() chain written in one expression.
func failsafeBreaker(info *types.Info, b *Breaker) *Breaker {
	b.CountsAll = true
	b.Trip, b.TripAfter = "1 failure", 1
	if n := calleeName(b.New); n == "NewWithDefaults" || n == "WithDefaults" {
		return b
	}
	x := b.New.Fun
	for {
		sel, ok := astutil.Unparen(x).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		inner, ok := astutil.Unparen(sel.X).(*ast.CallExpr)
		if !ok {
			return nil // a builder held elsewhere
		}
		switch name := calleeName(inner); name {
		case "NewBuilder", "Builder":
			b.Builder = inner
			return b
		case "HandleErrors", "HandleErrorTypes", "HandleIf", "HandleResult":
			b.CountsAll = false
		case "WithFailureThreshold":
			b.Trip, b.TripAfter = "", 0
			if len(inner.Args) == 1 {
				b.TripAfter, _ = constInt(info, inner.Args[0])
			}
		case "WithFailureThresholdRatio", "WithFailureThresholdPeriod", "WithFailureRateThreshold":
			b.Trip, b.TripAfter = "", 0
		}
		x = inner.Fun
	}
}

// gobreakerSettings reads the Settings of a NewCircuitBreaker call: a
// literal, a Settings variable given one literal and field assignments, or
// the result of a function that returns one (a function of this package
// read from its body, another package's from its BreakerFact).
func (r *Result) gobreakerSettings(b *Breaker, fn *types.Func, stack []ast.Node) *Breaker {
	b.V2 = fn.Pkg().Path() == "github.com/sony/gobreaker/v2"
	if len(b.New.Args) != 1 {
		return nil
	}
	fnNode, _ := enclosingFunc(r.pass.TypesInfo, stack)
	arg := astutil.Unparen(b.New.Args[0])
	if id, ok := arg.(*ast.Ident); ok && fnNode != nil {
		// settings := config.Breaker(logger); NewCircuitBreaker(settings)
		if v, _ := r.pass.TypesInfo.Uses[id].(*types.Var); v != nil {
			if val, ok := r.singleAssign(fnNode, v, false); ok {
				if call, ok := astutil.Unparen(val).(*ast.CallExpr); ok {
					arg = call
				}
			}
		}
	}
	if call, ok := arg.(*ast.CallExpr); ok {
		return r.settingsFrom(b, call)
	}
	if !r.readSettings(b, fnNode, arg) {
		return nil
	}
	return b
}

// settingsFrom reads the Settings a function call returns.
func (r *Result) settingsFrom(b *Breaker, call *ast.CallExpr) *Breaker {
	fn, _ := typeutil.Callee(r.pass.TypesInfo, call).(*types.Func)
	if fn == nil {
		return nil
	}
	if fn.Pkg() != r.pass.Pkg {
		var f BreakerFact
		if !r.pass.ImportObjectFact(fn.Origin(), &f) || !f.Settings {
			return nil // settings from elsewhere: what they count is not known
		}
		b.Name, b.CountsAll, b.NoIsSuccessful, b.Trip, b.TripAfter = f.Name, f.CountsAll, f.Old, f.Trip, f.TripAfter
		return b
	}
	d := r.Decl(fn)
	ret := soleReturn(d)
	if ret == nil || !r.readSettings(b, d, ret) {
		return nil
	}
	return b
}

// soleReturn is the one value d returns, when it has one return statement
// of one value outside its function literals.
func soleReturn(d *ast.FuncDecl) ast.Expr {
	if d == nil {
		return nil
	}
	rets := returns(d)
	if len(rets) != 1 || len(rets[0].Results) != 1 {
		return nil
	}
	return rets[0].Results[0]
}

// readSettings reads a gobreaker Settings value written in fnNode: a
// literal (or its address), or a variable given one literal and then field
// assignments. It reports false when the value is not one of those.
func (r *Result) readSettings(b *Breaker, fnNode ast.Node, arg ast.Expr) bool {
	info := r.pass.TypesInfo
	arg = astutil.Unparen(arg)
	if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
		arg = astutil.Unparen(u.X)
	}
	set := map[string]ast.Expr{}
	switch a := arg.(type) {
	case *ast.CompositeLit:
		b.Lit = a
	case *ast.Ident:
		// st := gobreaker.Settings{...}; st.IsSuccessful = ...
		v, _ := info.Uses[a].(*types.Var)
		if v == nil || fnNode == nil {
			return false
		}
		val, ok := r.singleAssign(fnNode, v, false)
		if !ok {
			return false
		}
		lit, ok := astutil.Unparen(val).(*ast.CompositeLit)
		if !ok {
			return false
		}
		b.Lit = lit
		ast.Inspect(fnNode, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for i, lhs := range as.Lhs {
				if sel, ok := lhs.(*ast.SelectorExpr); ok && i < len(as.Rhs) {
					if id, ok := sel.X.(*ast.Ident); ok && info.Uses[id] == v {
						set[sel.Sel.Name] = as.Rhs[i]
					}
				}
			}
			return true
		})
	default:
		return false // Settings from elsewhere: what they count is not known
	}
	for _, e := range b.Lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return false // positional Settings
		}
		if id, ok := kv.Key.(*ast.Ident); ok {
			set[id.Name] = kv.Value
		}
	}
	if n, ok := set["Name"]; ok {
		b.Name, _ = constString(info, n)
	}
	b.CountsAll = unset(info, set["IsExcluded"]) && (unset(info, set["IsSuccessful"]) || onlyNilIsSuccess(info, set["IsSuccessful"]))
	b.NoIsSuccessful = !hasField(info.TypeOf(b.Lit), "IsSuccessful") // gobreaker before v0.5
	if unset(info, set["ReadyToTrip"]) {
		b.Trip = "more than 5 consecutive failures"
		b.TripAfter = 6
	} else {
		b.TripAfter = consecutiveTrip(info, set["ReadyToTrip"])
	}
	return true
}

// hasField reports whether struct type t (or a named one) has the field.
func hasField(t types.Type, name string) bool {
	if t == nil {
		return true
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return true
	}
	for i := range st.NumFields() {
		if st.Field(i).Name() == name {
			return true
		}
	}
	return false
}

// breakerRun reads a call that runs an operation through a breaker: the
// breaker (through of, which resolves an expression holding one), the
// operation and the context the breaker is given.
func (r *Result) breakerRun(call *ast.CallExpr, fn *types.Func, fnNode ast.Node, of func(ast.Expr) *Breaker, hystrixCmds map[string]*Breaker) (BreakerCall, bool) {
	info := r.pass.TypesInfo
	var bc BreakerCall
	opArg := func(i int) {
		if i < len(call.Args) {
			bc.Op, _ = astutil.Unparen(call.Args[i]).(*ast.FuncLit)
		}
	}
	recv := func() ast.Expr {
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	switch breakerLib(fn.Pkg()) {
	case BreakerGobreaker, BreakerResilient:
		if len(call.Args) != 1 {
			return bc, false
		}
		bc.Breaker = of(recv())
		opArg(0)
	case BreakerMercari:
		if len(call.Args) != 2 {
			return bc, false
		}
		bc.Breaker, bc.Ctx = of(recv()), call.Args[0]
		opArg(1)
	case BreakerHystrix:
		i := 0
		if fn.Name() == "DoC" || fn.Name() == "GoC" {
			bc.Ctx, i = call.Args[0], 1
		}
		if i >= len(call.Args) {
			return bc, false
		}
		name, ok := constString(info, call.Args[i])
		switch {
		case !ok:
			// A command named by the caller (go-kit's Hystrix(commandName)
			// middleware): configured elsewhere, so when it opens is not
			// known; what it counts is hystrix's, every error of the run.
			bc.Breaker = &Breaker{Lib: BreakerHystrix, CountsAll: true, SeesCtx: true}
		case hystrixCmds[name] != nil:
			bc.Breaker = hystrixCmds[name]
		default:
			bc.Breaker = &Breaker{Lib: BreakerHystrix, Name: name, CountsAll: true, SeesCtx: true, Trip: "50% errors over at least 20 requests in 10s"}
		}
		opArg(i + 1)
	case BreakerFailsafe:
		// failsafe.With(cb, ...).WithContext(ctx).Get(op), an executor held
		// in a local assigned once, or before v0.7 failsafe.Get(op, cb). A
		// retry policy outside the breaker runs it once per attempt.
		opArg(0)
		resolve := func(x ast.Expr) ast.Expr {
			for range 4 {
				id, ok := astutil.Unparen(x).(*ast.Ident)
				if !ok {
					return x
				}
				v, ok := info.Uses[id].(*types.Var)
				if !ok || fnNode == nil {
					return nil
				}
				if x, ok = r.singleAssign(fnNode, v, false); !ok {
					return nil
				}
			}
			return nil
		}
		policies, ctx, _ := failsafePolicies(info, call, fn, resolve)
		bc.Ctx = ctx
		for i, a := range policies {
			if b := of(a); b != nil {
				bc.Breaker = b
				bc.InRetry = slices.ContainsFunc(policies[:i], func(x ast.Expr) bool { return isFailsafeRetryPolicy(info.TypeOf(x)) })
				break
			}
		}
	}
	return bc, bc.Breaker != nil
}

// isFailsafeRetryPolicy reports a failsafe-go retrypolicy.RetryPolicy.
func isFailsafeRetryPolicy(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "RetryPolicy" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkgFailsafeRetry
}

// identOf is e as an identifier, or nil.
func identOf(e ast.Expr) *ast.Ident {
	id, _ := astutil.Unparen(e).(*ast.Ident)
	return id
}

// calleeName is the name of the function or method call calls, or "".
func calleeName(call *ast.CallExpr) string {
	fun := astutil.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr: // NewBuilder[R]()
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	switch f := astutil.Unparen(fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// constString is e's value when it is a string constant.
func constString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// constInt is e's value when it is a non-negative integer constant.
func constInt(info *types.Info, e ast.Expr) (int64, bool) {
	n, ok := intConstOf(info, e)
	return int64(n), ok && n >= 0
}

// isConstBool reports e as the boolean constant want.
func isConstBool(info *types.Info, e ast.Expr, want bool) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value) == want
}
