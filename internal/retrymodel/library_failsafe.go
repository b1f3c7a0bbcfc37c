package retrymodel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// ---- github.com/failsafe-go/failsafe-go (v0.9.8) ----
//
// failsafe.With(policies...) builds an Executor whose Run, Get (and their
// WithExecution and Async forms) run fn through the policies, the first
// outermost: With(retryPolicy, breaker) retries around the breaker.
// Compose(p) adds an inner policy, WithContext(ctx) binds the execution to
// ctx (context.Background() otherwise). A retry policy,
// retrypolicy.NewWithDefaults[R]() or NewBuilder[R]()....Build(), makes 3
// attempts with no delay by default (retrypolicy/retry.go:
// defaultMaxRetries 2). WithMaxRetries(n) makes n+1 attempts and
// WithMaxAttempts(n) n, -1 no bound for both; WithMaxDuration bounds the
// time. WithDelay(d) waits d; WithBackoff(d, max) waits d, then the last
// wait times 2 capped at max (WithBackoffFactor: times f); WithRandomDelay
// (min, max) a random wait in the range; WithJitter and WithJitterFactor
// add a random part; a WithDelayFunc computes the wait (falling back to
// the delay when it returns -1). Every error is a failure unless a Handle
// condition says which are; an Abort condition stops. Between attempts
// the executor waits on a timer in a select on the execution's
// cancellation, which only the context given to WithContext ends.
const (
	pkgFailsafeRetry = "github.com/failsafe-go/failsafe-go/retrypolicy"
	pkgFailsafeHTTP  = "github.com/failsafe-go/failsafe-go/failsafehttp"
)

// failsafeRetry is a retry policy followed to the calls that build it.
type failsafeRetry struct {
	pos          token.Pos // the NewWithDefaults / Build call
	complete     bool      // every option of the chain was read
	attempts     Value
	maxDuration  Value
	kind         string // "" (no delay), constant, backoff, random
	delay, maxD  Value
	factor       Value
	randMin      Value
	randMax      Value
	jitter       Tri
	jitPos       token.Pos
	waitPos      token.Pos
	listener     token.Pos // OnRetry, OnRetryScheduled, OnFailure
	classifier   ast.Node
	classFunc    *types.Func
	delayFuncArg ast.Expr
	readsHint    bool // the delay func is failsafehttp.DelayFunc
}

// failsafeLayer reads a call that runs fn through a failsafe-go executor
// holding a retry policy. It returns nil for an executor whose policies
// are known and hold no retry (a breaker, a timeout), or are not known.
func (p *callCtx) failsafeLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	if !failsafeRunCall(fn) {
		return nil
	}
	policies, ctx, complete := failsafePolicies(p.info, call, fn, func(x ast.Expr) ast.Expr {
		e, _ := p.origin(x)
		return e
	})
	if !complete {
		return nil // an executor from elsewhere, or policies from a slice
	}
	var retry *failsafeRetry
	for _, a := range policies {
		if retry = p.failsafeRetryPolicy(a); retry != nil {
			break // the outermost
		}
	}
	if retry == nil {
		return nil
	}
	l := &Layer{Kind: Library, Name: "failsafe " + fn.Name()}
	p.setOperation(l, call.Args[0])
	pol := &l.Policy
	if ctx != nil {
		l.Context = ctx
		pol.DeadlineAware, pol.DeadlinePos, pol.WaitCancellable = Yes, ctx.Pos(), Yes
	} else {
		pol.DeadlineAware = No
	}
	pol.RetryAfter = No
	pol.Classifier, pol.ClassifierFunc = retry.classifier, retry.classFunc
	pol.Listener = retry.listener
	if !retry.complete {
		pol.Attempts = unknownVal(retry.pos)
		pol.Schedule = "unknown (retry policy options not all visible)"
		pol.DeadlineAware, pol.WaitCancellable = Unknown, Unknown
		if ctx != nil {
			pol.DeadlineAware, pol.WaitCancellable = Yes, Yes
		}
		return l
	}
	pol.Attempts = retry.attempts
	pol.MaxElapsed = retry.maxDuration
	pol.Jitter, pol.JitterPos = retry.jitter, retry.jitPos
	pol.WaitPos = retry.waitPos
	n := waitCount(pol.Attempts)
	switch retry.kind {
	case "":
		pol.Schedule = "no delay (failsafe-go default)"
		pol.Waits, pol.WaitsKnown = constWaits(0, n), true
	case "constant":
		if retry.delay.Known {
			pol.Schedule = "constant " + fd(retry.delay.D)
			pol.Waits, pol.WaitsKnown = constWaits(retry.delay.D, n), pol.Attempts.Known
		}
	case "backoff":
		if retry.delay.Known && retry.maxD.Known && retry.factor.Known {
			pol.Schedule = fmt.Sprintf("exponential %s*%g^i, cap %s", fd(retry.delay.D), retry.factor.F, fd(retry.maxD.D))
			d := retry.delay.D
			for i := 0; i < n; i++ {
				pol.Waits = append(pol.Waits, d)
				d = min(time.Duration(float64(d)*retry.factor.F), retry.maxD.D)
			}
			pol.WaitsKnown = pol.Attempts.Known
		}
	case "random":
		if retry.randMin.Known && retry.randMax.Known {
			pol.Schedule = fmt.Sprintf("random %s to %s", fd(retry.randMin.D), fd(retry.randMax.D))
			pol.Waits, pol.WaitsUpTo = constWaits(retry.randMin.D, n), constWaits(retry.randMax.D, n)
			pol.WaitsKnown = pol.Attempts.Known
		}
	}
	switch {
	case retry.readsHint:
		pol.RetryAfter, pol.RetryAfterPos = Yes, retry.pos // failsafehttp's DelayFunc: Retry-After on 429 and 503
	case retry.delayFuncArg != nil:
		pol.RetryAfter = Unknown // a wait computed from the result, maybe from a hint
	}
	if ctx == nil && retry.kind != "" {
		// the wait is a timer in a select on the execution's
		// cancellation: only WithContext binds it to the caller
		pol.WaitCancellable = No
		pol.BindWith = "failsafe WithContext"
	}
	return l
}

// failsafeRunCall reports a failsafe-go call that runs an operation
// through policies: an Executor's Run, Get and their WithExecution and
// Async forms, or before v0.7 the package functions of those names.
func failsafeRunCall(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != pkgFailsafe {
		return false
	}
	if r := RecvName(fn); r != "Executor" && r != "" {
		return false
	}
	switch fn.Name() {
	case "Run", "Get", "RunWithExecution", "GetWithExecution", "RunAsync", "GetAsync", "RunAsyncWithExecution", "GetAsyncWithExecution",
		"RunWithExecutionAsync", "GetWithExecutionAsync":
		return true
	}
	return false
}

// failsafePolicies reads the policies a run call (failsafeRunCall)
// composes, outermost first, and the context WithContext gives the
// executor. The executor chain, With(outer, ..., inner).Compose(innermost)
// .WithContext(ctx), is read from its end, each link followed through
// resolve (a variable to its value); before v0.7 the policies follow the
// operation. complete is false when a link is not known or policies come
// from a slice: the policies are then those of the links read.
func failsafePolicies(info *types.Info, call *ast.CallExpr, fn *types.Func, resolve func(ast.Expr) ast.Expr) (policies []ast.Expr, ctx ast.Expr, complete bool) {
	if RecvName(fn) == "" {
		if call.Ellipsis.IsValid() || len(call.Args) < 2 {
			return nil, nil, false
		}
		return call.Args[1:], nil, true
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) != 1 {
		return nil, nil, false
	}
	var links [][]ast.Expr // the policies of each link, innermost first
	x := sel.X
chain:
	for range 10 {
		c, ok := astutil.Unparen(resolve(x)).(*ast.CallExpr)
		if !ok {
			break
		}
		cfn, _ := typeutil.Callee(info, c).(*types.Func)
		if cfn == nil || cfn.Pkg() == nil || cfn.Pkg().Path() != pkgFailsafe {
			break
		}
		switch cfn.Name() {
		case "WithContext":
			if ctx == nil && len(c.Args) == 1 {
				ctx = c.Args[0] // the last one given
			}
		case "With", "NewExecutor", "Compose":
			if c.Ellipsis.IsValid() {
				break chain
			}
			links = append(links, c.Args)
		}
		if RecvName(cfn) == "" {
			complete = true // failsafe.With: the start of the chain
			break
		}
		s, ok := astutil.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok {
			break
		}
		x = s.X
	}
	for i := len(links) - 1; i >= 0; i-- {
		policies = append(policies, links[i]...)
	}
	return policies, ctx, complete
}

// failsafeRetryPolicy follows a policy argument to the retry policy that
// builds it; nil when it is another policy or not known.
func (p *callCtx) failsafeRetryPolicy(e ast.Expr) *failsafeRetry {
	x, _ := p.origin(e)
	c, ok := astutil.Unparen(x).(*ast.CallExpr)
	if !ok {
		return nil
	}
	cfn, path := p.callee(c)
	if cfn == nil || path != pkgFailsafeRetry {
		return nil
	}
	r := &failsafeRetry{pos: c.Pos(), complete: true, jitter: No, jitPos: c.Pos()}
	switch {
	case (cfn.Name() == "NewWithDefaults" || cfn.Name() == "WithDefaults") && RecvName(cfn) == "": // WithDefaults before v0.7
	case cfn.Name() == "Build":
		// The chain from Build back to NewBuilder: the option nearest to
		// Build is the one applied last, so the first one met wins.
		seen := map[string]bool{}
		first := func(group string) bool {
			if seen[group] {
				return false
			}
			seen[group] = true
			return true
		}
		inner := c
		for {
			s, ok := astutil.Unparen(inner.Fun).(*ast.SelectorExpr)
			if !ok {
				r.complete = false
				break
			}
			next, ok := astutil.Unparen(s.X).(*ast.CallExpr)
			if !ok {
				r.complete = false // a builder held in a variable, set elsewhere
				break
			}
			// options of the retry builder, and those it embeds from
			// failsafe's FailurePolicyBuilder and DelayablePolicyBuilder
			ofn, opath := p.callee(next)
			if ofn != nil && opath == pkgFailsafeHTTP && ofn.Name() == "NewRetryPolicyBuilder" {
				// failsafehttp's: retries transport errors, 429 and 5xx
				// but 501, waits Retry-After on 429 and 503
				if r.classifier == nil {
					r.classifier = next
				}
				if r.delayFuncArg == nil {
					r.delayFuncArg, r.readsHint = next, true
				}
				break
			}
			if ofn == nil || opath != pkgFailsafeRetry && opath != pkgFailsafe {
				r.complete = false
				break
			}
			if (ofn.Name() == "NewBuilder" || ofn.Name() == "Builder") && RecvName(ofn) == "" { // Builder before v0.7
				break
			}
			r.option(p, next, ofn.Name(), first)
			inner = next
		}
	default:
		return nil
	}
	if !r.attempts.Set {
		r.attempts = defInt(3)
		r.attempts.Pos = c.Pos()
	}
	if r.jitter == No && r.waitPos.IsValid() {
		r.jitPos = r.waitPos // no random part: said where the waits are set
	}
	return r
}

// optPos is where a builder option is named: the selector's name, not the
// start of the chain (where every call of a chain begins).
func optPos(c *ast.CallExpr) token.Pos {
	if sel, ok := astutil.Unparen(c.Fun).(*ast.SelectorExpr); ok {
		return sel.Sel.Pos()
	}
	return c.Pos()
}

// option reads one builder option into r; first reports whether the
// option's group is met for the first time (the last one applied).
func (r *failsafeRetry) option(p *callCtx, c *ast.CallExpr, name string, first func(string) bool) {
	at := optPos(c)
	arg := func(i int) ast.Expr {
		if i < len(c.Args) {
			return c.Args[i]
		}
		return nil
	}
	count := func(v Value, plus int64) Value {
		if v.Known {
			if v.N == -1 {
				return Value{Set: true, Known: true, N: 0, Pos: v.Pos} // no bound
			}
			v.N += plus
		}
		return v
	}
	switch name {
	case "WithMaxRetries":
		if first("attempts") && arg(0) != nil {
			r.attempts = count(p.intVal(arg(0)), 1)
		}
	case "WithMaxAttempts":
		if first("attempts") && arg(0) != nil {
			r.attempts = count(p.intVal(arg(0)), 0)
		}
	case "WithMaxDuration":
		if first("duration") && arg(0) != nil {
			r.maxDuration = p.durVal(arg(0))
		}
	case "WithDelay":
		if first("delay") && arg(0) != nil {
			r.kind, r.delay, r.waitPos = "constant", p.durVal(arg(0)), at
		}
	case "WithBackoff", "WithBackoffFactor":
		if first("delay") && len(c.Args) >= 2 {
			r.kind, r.delay, r.maxD, r.waitPos = "backoff", p.durVal(arg(0)), p.durVal(arg(1)), at
			r.factor = defFloat(2)
			if name == "WithBackoffFactor" && arg(2) != nil {
				r.factor = p.floatVal(arg(2))
			}
		}
	case "WithRandomDelay":
		if first("delay") && len(c.Args) == 2 {
			r.kind, r.randMin, r.randMax, r.waitPos = "random", p.durVal(arg(0)), p.durVal(arg(1)), at
			r.jitter, r.jitPos = Yes, at
		}
	case "WithDelayFunc":
		// asked first for each wait; its -1 falls back to the delay
		if first("delayfunc") {
			r.delayFuncArg = arg(0)
			if _, fn := p.funcArg(arg(0)); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkgFailsafeHTTP && fn.Name() == "DelayFunc" {
				r.readsHint = true
			}
		}
	case "WithJitter", "WithJitterFactor":
		if first("jitter") && arg(0) != nil {
			if v := p.floatVal(arg(0)); !v.Known || v.F != 0 {
				r.jitter, r.jitPos = Yes, at
			}
		}
	case "HandleErrors", "HandleErrorTypes", "HandleResult", "HandleIf", "AbortOnErrors", "AbortOnErrorTypes", "AbortOnResult", "AbortIf":
		if r.classifier == nil {
			r.classifier = c
			if name == "HandleIf" && arg(0) != nil {
				// the predicate answers true for what is retried, as
				// retry-go's RetryIf does; AbortIf's answers the other
				// way and stays opaque
				r.classifier = arg(0)
				_, r.classFunc = p.funcArg(arg(0))
			}
		}
	case "OnRetry", "OnRetryScheduled", "OnFailure":
		r.listener = at
	case "OnSuccess", "OnAbort", "OnRetriesExceeded", "ReturnLastFailure", "WithBudget":
	default:
		r.complete = false // an option not read
	}
}
