package retrymodel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
)

// Retry libraries. The defaults below are read from the modules' own
// source at the versions named; a library whose defaults change needs its
// entry here updated.

// ---- github.com/cenkalti/backoff v4 (v4.3.0) and v5 (v5.0.3) ----
//
// v2 (github.com/cenkalti/backoff) and v3 have v4's API and defaults
// without the generic functions; they are read as v4.
// v4: Retry(op, b) and friends run op until it succeeds, returns a
// *PermanentError, or b.NextBackOff() returns Stop. The wait is a timer in
// a select on the context of b (backoff.WithContext), Background otherwise.
// NewExponentialBackOff: InitialInterval 500ms, RandomizationFactor 0.5,
// Multiplier 1.5, MaxInterval 60s, MaxElapsedTime 15m (0: never stop).
// WithMaxRetries(b, n): n retries after the first attempt.
//
// v5: Retry(ctx, op, opts...): WithBackOff (default NewExponentialBackOff,
// same numbers, no MaxElapsedTime field), WithMaxTries(n) counts every
// attempt (0: no limit), WithMaxElapsedTime (default 15m). An error made by
// backoff.RetryAfter(secs) replaces the next wait.
const (
	boInitial = 500 * time.Millisecond
	boRand    = 0.5
	boMult    = 1.5
	boMaxInt  = 60 * time.Second
	boElapsed = 15 * time.Minute
)

// boPolicy is a cenkalti BackOff value followed to its construction.
type boPolicy struct {
	known      bool
	kind       string // exponential, constant, zero, stop
	pos        token.Pos
	initial    Value // InitialInterval or the constant interval
	maxIntv    Value
	mult       Value
	rnd        Value
	maxElapsed Value // v4 ExponentialBackOff.MaxElapsedTime
	retries    Value // WithMaxRetries
	ctx        ast.Expr
	ctxPos     token.Pos
}

func (p *callCtx) backoffV4Layer(call *ast.CallExpr, fn *types.Func) *Layer {
	switch fn.Name() {
	case "Retry", "RetryNotify", "RetryWithData", "RetryNotifyWithData", "RetryNotifyWithTimer", "RetryNotifyWithTimerAndData":
	default:
		return nil
	}
	if RecvName(fn) != "" || len(call.Args) < 2 {
		return nil
	}
	l := &Layer{Kind: Library, Name: "backoff." + fn.Name()}
	p.setOperation(l, call.Args[0])
	pkg := fn.Pkg().Path()
	if p.pollBody(l.Body, p.isCall("Permanent", pkg), nil) {
		return nil
	}
	b := p.resolveBackoff(call.Args[1], pkg, 0)
	pol := &l.Policy
	p.boSchedule(l, b, "backoff "+map[string]string{pkgBackoffV2: "v2", pkgBackoffV3: "v3", pkgBackoffV4: "v4"}[pkg])
	if b.known {
		switch {
		case b.kind == "stop":
			pol.Attempts = Value{Set: true, Known: true, N: 1, Pos: b.pos}
		case b.retries.Set && b.retries.Known && b.retries.N == 0 && pkg != pkgBackoffV4:
			// v2/v3: WithMaxRetries(b, 0) does not bound the retries
			// (v3.2.2 tries.go: maxTries > 0 only).
			pol.Attempts = Value{Set: true, Known: true, N: 0, Pos: b.retries.Pos}
		case b.retries.Set:
			pol.Attempts = b.retries
			if b.retries.Known {
				pol.Attempts.N = b.retries.N + 1
			}
		default:
			// No retry bound: until success, a permanent error or (for
			// an exponential backoff) MaxElapsedTime.
			pol.Attempts = Value{Set: true, Known: true, N: 0, Pos: b.pos, Default: true}
		}
		if b.kind == "exponential" {
			pol.MaxElapsed = b.maxElapsed
		}
	}
	if b.ctx != nil {
		l.Context = b.ctx
		pol.DeadlineAware, pol.DeadlinePos = Yes, b.ctxPos
		pol.WaitCancellable = Yes
	} else if b.known {
		pol.DeadlineAware, pol.WaitCancellable = No, No
		pol.BindWith = "backoff.WithContext"
		pol.Notes = append(pol.Notes, "backoff not bound to a context (backoff.WithContext): waits ignore cancellation")
	}
	p.fillWaits(l)
	pol.RetryAfter = No // v4 has no Retry-After support
	if c := p.findCallDeep(l.Body, l.OpFuncs, pkg, "Permanent"); c != nil {
		pol.Classifier = c
	}
	return l
}

func (p *callCtx) backoffV5Layer(call *ast.CallExpr, fn *types.Func) *Layer {
	if fn.Name() != "Retry" || RecvName(fn) != "" || len(call.Args) < 2 {
		return nil
	}
	l := &Layer{Kind: Library, Name: "backoff.Retry", Context: call.Args[0]}
	p.setOperation(l, call.Args[1])
	if p.pollBody(l.Body, p.isCall("Permanent", pkgBackoffV5), nil) {
		return nil
	}
	pol := &l.Policy
	b := boPolicy{known: true, kind: "exponential", initial: defDur(boInitial), maxIntv: defDur(boMaxInt),
		mult: defFloat(boMult), rnd: defFloat(boRand)}
	pol.Attempts = Value{Set: true, Known: true, N: 0, Default: true}
	pol.MaxElapsed = defDur(boElapsed)
	opts, complete := p.optList(call, 2)
	for _, o := range opts {
		oc, ok := astutil.Unparen(o).(*ast.CallExpr)
		if !ok {
			complete = false
			continue
		}
		ofn, path := p.callee(oc)
		if path != pkgBackoffV5 || len(oc.Args) == 0 {
			complete = false
			continue
		}
		switch ofn.Name() {
		case "WithBackOff":
			b = p.resolveBackoff(oc.Args[0], pkgBackoffV5, 0)
		case "WithMaxTries":
			pol.Attempts = p.intVal(oc.Args[0])
		case "WithMaxElapsedTime":
			pol.MaxElapsed = p.durVal(oc.Args[0])
		}
	}
	if !complete {
		// an option the model cannot see may set any of them
		pol.Attempts = unknownVal(call.Pos())
		pol.MaxElapsed = unknownVal(call.Pos())
		b = boPolicy{}
	}
	if b.known && b.kind == "stop" {
		pol.Attempts = Value{Set: true, Known: true, N: 1, Pos: b.pos}
	}
	p.boSchedule(l, b, "backoff v5")
	pol.DeadlineAware, pol.DeadlinePos, pol.WaitCancellable = Yes, call.Args[0].Pos(), Yes
	p.fillWaits(l)
	if c := p.findCallDeep(l.Body, l.OpFuncs, pkgBackoffV5, "Permanent"); c != nil {
		pol.Classifier = c
	}
	if c := p.findCallDeep(l.Body, l.OpFuncs, pkgBackoffV5, "RetryAfter"); c != nil {
		pol.RetryAfter, pol.RetryAfterPos = Yes, c.Pos()
	} else {
		pol.RetryAfter = No
	}
	return l
}

// resolveBackoff follows a BackOff expression to its construction.
func (p *callCtx) resolveBackoff(e ast.Expr, pkg string, depth int) boPolicy {
	var b boPolicy
	if depth > 4 {
		return b
	}
	x, vars := p.origin(e)
	if x == nil {
		return b
	}
	b.pos = x.Pos()
	switch x := x.(type) {
	case *ast.CallExpr:
		fn, path := p.callee(x)
		if path != pkg {
			return b
		}
		switch fn.Name() {
		case "NewExponentialBackOff":
			b = boPolicy{known: true, kind: "exponential", pos: x.Pos(),
				initial: defDur(boInitial), maxIntv: defDur(boMaxInt), mult: defFloat(boMult), rnd: defFloat(boRand)}
			if pkg != pkgBackoffV5 {
				b.maxElapsed = defDur(boElapsed)
			}
			opts, complete := p.optList(x, 0)
			if !complete {
				return boPolicy{}
			}
			for _, o := range opts {
				oc, ok := astutil.Unparen(o).(*ast.CallExpr)
				if !ok {
					return boPolicy{}
				}
				ofn, opath := p.callee(oc)
				if opath != pkg || len(oc.Args) != 1 {
					return boPolicy{}
				}
				p.boField(&b, strings.TrimPrefix(ofn.Name(), "With"), oc.Args[0])
			}
		case "NewConstantBackOff":
			if len(x.Args) == 1 {
				b = boPolicy{known: true, kind: "constant", pos: x.Pos(), initial: p.durVal(x.Args[0])}
			}
		case "WithMaxRetries":
			if len(x.Args) == 2 {
				b = p.resolveBackoff(x.Args[0], pkg, depth+1)
				b.retries = p.intVal(x.Args[1])
			}
		case "WithContext":
			if len(x.Args) == 2 {
				b = p.resolveBackoff(x.Args[0], pkg, depth+1)
				b.ctx, b.ctxPos = x.Args[1], x.Pos()
			}
		default:
			return b
		}
	case *ast.CompositeLit:
		t := p.info.TypeOf(x)
		switch {
		case namedIs(t, pkg, "ExponentialBackOff"):
			// a literal: every field not written is zero (no jitter, no
			// elapsed limit, factor 0).
			zero := Value{Set: true, Known: true, Pos: x.Pos()}
			b = boPolicy{known: true, kind: "exponential", pos: x.Pos(), initial: zero, maxIntv: zero, mult: zero, rnd: zero}
			if pkg != pkgBackoffV5 {
				b.maxElapsed = zero
			}
			keyed(x, func(name string, v ast.Expr) { p.boField(&b, name, v) })
		case namedIs(t, pkg, "ConstantBackOff"):
			b = boPolicy{known: true, kind: "constant", pos: x.Pos(), initial: Value{Set: true, Known: true, Pos: x.Pos()}}
			keyed(x, func(name string, v ast.Expr) {
				if name == "Interval" {
					b.initial = p.durVal(v)
				}
			})
		case namedIs(t, pkg, "ZeroBackOff"):
			b = boPolicy{known: true, kind: "zero", pos: x.Pos(), initial: Value{Set: true, Known: true, Pos: x.Pos()}}
		case namedIs(t, pkg, "StopBackOff"):
			b = boPolicy{known: true, kind: "stop", pos: x.Pos()}
		default:
			return b
		}
	default:
		return b
	}
	p.applySets(vars, func(name string, v ast.Expr) { p.boField(&b, name, v) })
	if p.escaped(vars) && b.kind == "exponential" {
		// handed to a function that may set its fields
		u := unknownVal(b.pos)
		b.initial, b.maxIntv, b.mult, b.rnd = u, u, u, u
		if b.maxElapsed.Set {
			b.maxElapsed = u
		}
	}
	return b
}

// boField applies one ExponentialBackOff field or option.
func (p *callCtx) boField(b *boPolicy, name string, v ast.Expr) {
	switch name {
	case "InitialInterval", "Interval":
		b.initial = p.durVal(v)
	case "MaxInterval":
		b.maxIntv = p.durVal(v)
	case "Multiplier":
		b.mult = p.floatVal(v)
	case "RandomizationFactor":
		b.rnd = p.floatVal(v)
	case "MaxElapsedTime":
		b.maxElapsed = p.durVal(v)
	}
}

// boSchedule sets the wait schedule and jitter of a cenkalti backoff.
func (p *callCtx) boSchedule(l *Layer, b boPolicy, lib string) {
	pol := &l.Policy
	if !b.known {
		pol.Schedule = "unknown backoff"
		return
	}
	pol.WaitPos = b.pos
	switch b.kind {
	case "exponential":
		if b.rnd.Known {
			if b.rnd.F > 0 {
				pol.Jitter, pol.JitterPos = Yes, b.rnd.Pos
			} else {
				pol.Jitter, pol.JitterPos = No, b.rnd.Pos
			}
		}
		if b.initial.Known && b.mult.Known && b.maxIntv.Known {
			pol.Schedule = fmt.Sprintf("exponential %s*%g^i, cap %s", fd(b.initial.D), b.mult.F, fd(b.maxIntv.D))
			if b.rnd.Known && b.rnd.F > 0 {
				pol.Schedule += fmt.Sprintf(", ±%g%%", b.rnd.F*100)
			}
			if b.initial.Default && b.mult.Default && b.maxIntv.Default {
				pol.Schedule = "library default (" + lib + ": " + pol.Schedule + ")"
			}
		} else {
			pol.Schedule = "exponential (values not constant)"
		}
	case "constant":
		if b.initial.Known {
			pol.Schedule = "constant " + fd(b.initial.D)
		} else {
			pol.Schedule = "constant (value not constant)"
		}
		pol.Jitter, pol.JitterPos = No, b.pos
	case "zero":
		pol.Schedule = "no wait"
		pol.Jitter, pol.JitterPos = No, b.pos
	case "stop":
		pol.Schedule = "no retry (StopBackOff)"
	}
	l.Policy.Waits, l.Policy.WaitsKnown = nil, false
	// remember the parameters for fillWaits
	p.pendingWaits(l, b)
}

// pendingWaits computes the nominal waits once attempts are known: the
// centre of the randomised interval, capped at MaxInterval.
func (p *callCtx) pendingWaits(l *Layer, b boPolicy) {
	switch b.kind {
	case "exponential":
		if b.initial.Known && b.mult.Known && b.maxIntv.Known {
			p.sched = func(n int) []time.Duration {
				// v4/v5 ExponentialBackOff: the interval grows by Multiplier
				// and is clamped to MaxInterval.
				return expWaits(b.initial.D, b.mult.F, b.maxIntv.D, n)
			}
		}
	case "constant", "zero":
		if b.initial.Known {
			p.sched = func(n int) []time.Duration { return constWaits(b.initial.D, n) }
		}
	}
}

// fillWaits lists the first waits of the schedule for the layer's attempts.
func (p *callCtx) fillWaits(l *Layer) {
	if p.sched == nil {
		return
	}
	n := waitCount(l.Policy.Attempts)
	if n == 0 && !(l.Policy.Attempts.Known && l.Policy.Attempts.N == 1) {
		return
	}
	l.Policy.Waits = p.sched(n)
	l.Policy.WaitsKnown = l.Policy.Attempts.Known && l.Policy.Attempts.N > 0 && l.Policy.Attempts.N-1 <= maxListedWaits ||
		l.Policy.Attempts.Known && l.Policy.Attempts.N == 0
	p.sched = nil
}

func constWaits(d time.Duration, n int) []time.Duration {
	var out []time.Duration
	for i := 0; i < n && i < maxListedWaits; i++ {
		out = append(out, d)
	}
	return out
}

// ---- github.com/avast/retry-go/v4 (v4.7.0) ----
//
// Do(f, opts...) / DoWithData(f, opts...). Defaults (newDefaultRetryConfig):
// Attempts 10 (0: until success), Delay 100ms, MaxJitter 100ms, DelayType
// CombineDelay(BackOffDelay, RandomDelay), RetryIf IsRecoverable (errors
// wrapped by retry.Unrecoverable stop), Context Background. The wait before
// attempt n+1 is delay(n) for n = 1, 2, ...: BackOffDelay = Delay<<(n-1),
// FixedDelay = Delay, RandomDelay = rand[0, MaxJitter), FullJitterBackoffDelay
// = rand[0, min(MaxDelay, Delay*2^n)); MaxDelay caps the sum.
func (p *callCtx) retryGoLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	if (fn.Name() != "Do" && fn.Name() != "DoWithData") || RecvName(fn) != "" || len(call.Args) < 1 {
		return nil
	}
	l := &Layer{Kind: Library, Name: "retry.Do"}
	if fn.Name() == "DoWithData" {
		l.Name = "retry.DoWithData"
	}
	p.setOperation(l, call.Args[0])
	if p.pollBody(l.Body, p.isCall("Unrecoverable", pkgRetryGo), nil) {
		return nil
	}
	pol := &l.Policy
	pol.Attempts = defInt(10)
	delay, maxDelay, maxJitter := defDur(100*time.Millisecond), Value{}, defDur(100*time.Millisecond)
	var delayTypes []string // FixedDelay, BackOffDelay, RandomDelay, FullJitterBackoffDelay
	delayTypes = []string{"BackOffDelay", "RandomDelay"}
	delayPos, typesKnown := token.NoPos, true
	pol.DeadlineAware, pol.WaitCancellable = No, No
	opts, complete := p.optList(call, 1)
	for _, o := range opts {
		oc, ok := astutil.Unparen(o).(*ast.CallExpr)
		if !ok {
			complete = false
			continue
		}
		ofn, path := p.callee(oc)
		if path != pkgRetryGo {
			complete = false
			continue
		}
		switch ofn.Name() {
		case "Attempts":
			if len(oc.Args) == 1 {
				pol.Attempts = p.intVal(oc.Args[0])
			}
		case "UntilSucceeded":
			pol.Attempts = Value{Set: true, Known: true, N: 0, Pos: oc.Pos()}
		case "Delay":
			delay = p.durVal(oc.Args[0])
		case "MaxDelay":
			maxDelay = p.durVal(oc.Args[0])
		case "MaxJitter":
			maxJitter = p.durVal(oc.Args[0])
		case "DelayType":
			delayPos = oc.Pos()
			delayTypes, typesKnown = p.retryGoDelayTypes(oc.Args[0])
		case "Context":
			l.Context = oc.Args[0]
			pol.DeadlineAware, pol.DeadlinePos, pol.WaitCancellable = Yes, oc.Pos(), Yes
		case "RetryIf":
			pol.Classifier = oc.Args[0]
			_, pol.ClassifierFunc = p.funcArg(oc.Args[0])
		case "AttemptsForError":
			pol.Notes = append(pol.Notes, "AttemptsForError bounds some errors further")
		}
	}
	if !complete {
		pol.Attempts = unknownVal(call.Pos())
		pol.DeadlineAware, pol.WaitCancellable = Unknown, Unknown
		pol.Schedule = "unknown (options not all visible)"
		return l
	}
	if c := p.findCallDeep(l.Body, l.OpFuncs, pkgRetryGo, "Unrecoverable"); c != nil && pol.Classifier == nil {
		pol.Classifier = c
	}
	if pol.WaitCancellable == No {
		pol.BindWith = "retry.Context" // every option seen, none a Context
	}
	pol.RetryAfter = No
	if !typesKnown {
		pol.Schedule = "custom DelayType"
		return l
	}
	random, deterministic := false, true
	for _, t := range delayTypes {
		switch t {
		case "RandomDelay":
			random = true
		case "FullJitterBackoffDelay":
			random, deterministic = true, false
		}
	}
	if random {
		pol.Jitter = Yes
	} else {
		pol.Jitter = No
	}
	pol.JitterPos = delayPos
	pol.WaitPos = delayPos
	if pol.WaitPos == token.NoPos {
		pol.WaitPos = delay.Pos
	}
	pol.Schedule = retryGoSchedule(delayTypes, delay, maxDelay, maxJitter)
	if !deterministic || !delay.Known || (maxDelay.Set && !maxDelay.Known) {
		return l
	}
	n := waitCount(pol.Attempts)
	for i := 1; i <= n; i++ {
		var d time.Duration
		for _, t := range delayTypes {
			switch t {
			case "BackOffDelay":
				base := delay.D
				if base <= 0 {
					base = 1
				}
				d += base << min(uint(i-1), 62)
			case "FixedDelay":
				d += delay.D
			}
		}
		if maxDelay.Known && maxDelay.D > 0 && d > maxDelay.D {
			d = maxDelay.D
		}
		pol.Waits = append(pol.Waits, d)
	}
	pol.WaitsKnown = n > 0
	return l
}

func retryGoSchedule(types []string, delay, maxDelay, maxJitter Value) string {
	s := ""
	for i, t := range types {
		if i > 0 {
			s += " + "
		}
		switch t {
		case "BackOffDelay":
			if delay.Known {
				s += "exponential " + fd(delay.D) + "*2^i"
			} else {
				s += "exponential"
			}
		case "FixedDelay":
			if delay.Known {
				s += "constant " + fd(delay.D)
			} else {
				s += "constant"
			}
		case "RandomDelay":
			if maxJitter.Known {
				s += "random up to " + fd(maxJitter.D)
			} else {
				s += "random"
			}
		case "FullJitterBackoffDelay":
			s += "full jitter exponential"
		}
	}
	if maxDelay.Known && maxDelay.D > 0 {
		s += ", cap " + fd(maxDelay.D)
	}
	if delay.Default && maxJitter.Default && len(types) == 2 && types[0] == "BackOffDelay" {
		s = "library default (retry-go v4: " + s + ")"
	}
	return s
}

// retryGoDelayTypes names the delay functions of a DelayType argument.
func (p *callCtx) retryGoDelayTypes(e ast.Expr) ([]string, bool) {
	e = astutil.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok {
		if p.calleeIs(call, pkgRetryGo, "", "CombineDelay") && !call.Ellipsis.IsValid() {
			var out []string
			for _, a := range call.Args {
				ts, ok := p.retryGoDelayTypes(a)
				if !ok {
					return nil, false
				}
				out = append(out, ts...)
			}
			return out, true
		}
		return nil, false
	}
	_, fn := p.funcArg(e)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgRetryGo {
		return nil, false
	}
	switch fn.Name() {
	case "FixedDelay", "BackOffDelay", "RandomDelay", "FullJitterBackoffDelay":
		return []string{fn.Name()}, true
	}
	return nil, false
}

// ---- github.com/sethvargo/go-retry (v0.5.0) ----
//
// Do(ctx, b, f) / DoValue(ctx, b, f) run f until it succeeds, returns an
// error not made by retry.RetryableError (those are not retried), b stops,
// or ctx is done (checked before every attempt; the wait is a timer in a
// select on ctx.Done). Constant/Exponential/Fibonacci(ctx, d, f) are Do
// with an unbounded NewConstant/NewExponential/NewFibonacci. Backoffs:
// NewExponential(base) waits base<<i; NewFibonacci(base) base, 2b, 3b, 5b;
// NewConstant(t). Middleware: WithMaxRetries(n, b) allows n retries;
// WithCappedDuration(cap, b); WithMaxDuration(d, b) stops after d;
// WithJitter(j, b) ±j; WithJitterPercent(p, b) ±p%; WithFullJitter(b).
type grPolicy struct {
	known      bool
	kind       string // exponential, constant, fibonacci
	base       Value
	retries    Value
	capD       Value
	maxDur     Value
	jitter     Tri
	jitterPos  token.Pos
	jitterNote string
	pos        token.Pos
}

func (p *callCtx) goRetryLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	if RecvName(fn) != "" || len(call.Args) != 3 {
		return nil
	}
	var b grPolicy
	switch fn.Name() {
	case "Do", "DoValue":
		b = p.resolveGoRetry(call.Args[1], 0)
	case "Constant", "Exponential", "Fibonacci":
		b = grPolicy{known: true, kind: map[string]string{"Constant": "constant", "Exponential": "exponential", "Fibonacci": "fibonacci"}[fn.Name()],
			base: p.durVal(call.Args[1]), jitter: No, jitterPos: call.Pos(), pos: call.Pos()}
	default:
		return nil
	}
	l := &Layer{Kind: Library, Name: "go-retry " + fn.Name(), Context: call.Args[0]}
	p.setOperation(l, call.Args[2])
	if p.pollBody(l.Body, nil, p.isCall("RetryableError", pkgGoRetry)) {
		return nil
	}
	pol := &l.Policy
	pol.DeadlineAware, pol.DeadlinePos, pol.WaitCancellable = Yes, call.Args[0].Pos(), Yes
	pol.RetryAfter = No
	if b.known {
		if b.retries.Set {
			pol.Attempts = b.retries
			if b.retries.Known {
				pol.Attempts.N++
			}
		} else {
			pol.Attempts = Value{Set: true, Known: true, N: 0, Pos: b.pos}
		}
		pol.MaxElapsed = b.maxDur
		pol.Jitter, pol.JitterPos = b.jitter, b.jitterPos
		pol.WaitPos = b.pos
		pol.Schedule = b.kind
		if b.base.Known {
			pol.Schedule += " " + fd(b.base.D)
		}
		if b.capD.Known {
			pol.Schedule += ", cap " + fd(b.capD.D)
		}
		if b.jitterNote != "" {
			pol.Schedule += ", " + b.jitterNote
		}
		if b.base.Known && (!b.capD.Set || b.capD.Known) {
			n := waitCount(pol.Attempts)
			fa, fb := b.base.D, 2*b.base.D // fibonacci: base, 2b, 3b, 5b...
			for i := 0; i < n; i++ {
				var d time.Duration
				switch b.kind {
				case "constant":
					d = b.base.D
				case "exponential":
					d = b.base.D << min(uint(i), 62)
					if d <= 0 {
						d = 1<<63 - 1
					}
				case "fibonacci":
					d = fa
					fa, fb = fb, fa+fb
				}
				if b.capD.Known && d > b.capD.D {
					d = b.capD.D
				}
				pol.Waits = append(pol.Waits, d)
			}
			pol.WaitsKnown = n > 0
		}
	} else {
		pol.Schedule = "unknown backoff"
	}
	c := p.findCallDeep(l.Body, l.OpFuncs, pkgGoRetry, "RetryableError")
	if c != nil {
		pol.Classifier = c
	} else if l.Body != nil && !p.callsGoRetryUser(l.Body) {
		// Only errors wrapped by retry.RetryableError are retried.
		pol.Attempts = Value{Set: true, Known: true, N: 1, Pos: call.Pos()}
		pol.Waits, pol.WaitsKnown = nil, true
		pol.Notes = append(pol.Notes, "no error is wrapped in retry.RetryableError: the operation runs once")
	}
	return l
}

// callsGoRetryUser reports a call in body to another package that imports
// go-retry: it may return an error already wrapped in RetryableError.
func (p *callCtx) callsGoRetryUser(body ast.Node) bool {
	return contains(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		fn, path := p.callee(call)
		if fn == nil || fn.Pkg() == p.pass.Pkg || path == pkgGoRetry {
			return false
		}
		return slices.ContainsFunc(fn.Pkg().Imports(), func(imp *types.Package) bool { return imp.Path() == pkgGoRetry })
	})
}

func (p *callCtx) resolveGoRetry(e ast.Expr, depth int) grPolicy {
	var b grPolicy
	if depth > 8 {
		return b
	}
	x, _ := p.origin(e)
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return b
	}
	fn, path := p.callee(call)
	if path != pkgGoRetry || RecvName(fn) != "" {
		return b
	}
	arg := func(i int) ast.Expr {
		if i < len(call.Args) {
			return call.Args[i]
		}
		return nil
	}
	switch fn.Name() {
	case "NewExponential", "NewConstant", "NewFibonacci":
		if len(call.Args) != 1 {
			return b
		}
		kind := map[string]string{"NewExponential": "exponential", "NewConstant": "constant", "NewFibonacci": "fibonacci"}[fn.Name()]
		return grPolicy{known: true, kind: kind, base: p.durVal(call.Args[0]), jitter: No, jitterPos: call.Pos(), pos: call.Pos()}
	case "WithMaxRetries":
		b = p.resolveGoRetry(arg(1), depth+1)
		b.retries = p.intVal(arg(0))
	case "WithCappedDuration":
		b = p.resolveGoRetry(arg(1), depth+1)
		b.capD = p.durVal(arg(0))
	case "WithMaxDuration":
		b = p.resolveGoRetry(arg(1), depth+1)
		b.maxDur = p.durVal(arg(0))
	case "WithJitter":
		b = p.resolveGoRetry(arg(1), depth+1)
		b.jitter, b.jitterPos = Yes, call.Pos()
		if v := p.durVal(arg(0)); v.Known {
			b.jitterNote = "±" + fd(v.D)
			if v.D == 0 {
				b.jitter = No
			}
		}
	case "WithJitterPercent":
		b = p.resolveGoRetry(arg(1), depth+1)
		b.jitter, b.jitterPos = Yes, call.Pos()
		if v := p.intVal(arg(0)); v.Known {
			b.jitterNote = fmt.Sprintf("±%d%%", v.N)
			if v.N == 0 {
				b.jitter = No
			}
		}
	case "WithFullJitter":
		b = p.resolveGoRetry(arg(0), depth+1)
		b.jitter, b.jitterPos, b.jitterNote = Yes, call.Pos(), "full jitter"
	default:
		return grPolicy{}
	}
	return b
}

// ---- k8s.io/client-go/util/retry and k8s.io/apimachinery/pkg/util/wait (v0.37.2) ----
//
// retry.OnError(backoff, retriable, fn) and RetryOnConflict(backoff, fn) run
// fn through wait.ExponentialBackoff: at most Steps attempts; the wait is
// Duration, then Duration*Factor..., capped at Cap (reaching the cap ends
// the steps), plus up to Jitter*wait at random; time.Sleep between
// attempts (no context). ExponentialBackoffWithContext checks ctx before
// every attempt and waits in a select on ctx.Done.
// retry.DefaultRetry = {Steps 5, Duration 10ms, Factor 1.0, Jitter 0.1};
// retry.DefaultBackoff = {Steps 4, Duration 10ms, Factor 5.0, Jitter 0.1}.
type k8sBackoff struct {
	known          bool
	duration, capD Value
	factor, jitter Value
	steps          Value
	pos            token.Pos
	name           string // DefaultRetry, DefaultBackoff
}

func (p *callCtx) k8sRetryLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	if RecvName(fn) != "" {
		return nil
	}
	var l *Layer
	switch {
	case fn.Name() == "OnError" && len(call.Args) == 3:
		l = &Layer{Kind: Library, Name: "retry.OnError"}
		p.setOperation(l, call.Args[2])
		l.Policy.Classifier = call.Args[1]
		_, l.Policy.ClassifierFunc = p.funcArg(call.Args[1])
	case fn.Name() == "RetryOnConflict" && len(call.Args) == 2:
		l = &Layer{Kind: Library, Name: "retry.RetryOnConflict"}
		p.setOperation(l, call.Args[1])
		l.Policy.Notes = append(l.Policy.Notes, "retries only conflicts (errors.IsConflict)")
		l.Policy.ConflictOnly = call.Pos()
	default:
		return nil
	}
	p.k8sPolicy(l, p.resolveK8sBackoff(call.Args[0]))
	l.Policy.DeadlineAware, l.Policy.WaitCancellable = No, No
	l.Policy.Notes = append(l.Policy.Notes, "waits with time.Sleep (wait.ExponentialBackoff): no context")
	return l
}

func (p *callCtx) k8sWaitLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	if RecvName(fn) != "" {
		return nil
	}
	var l *Layer
	switch {
	case fn.Name() == "ExponentialBackoff" && len(call.Args) == 2:
		l = &Layer{Kind: Library, Name: "wait.ExponentialBackoff"}
		p.setOperation(l, call.Args[1])
		p.k8sPolicy(l, p.resolveK8sBackoff(call.Args[0]))
		l.Policy.DeadlineAware, l.Policy.WaitCancellable = No, No
		l.Policy.BindWith = "wait.ExponentialBackoffWithContext"
	case fn.Name() == "ExponentialBackoffWithContext" && len(call.Args) == 3:
		l = &Layer{Kind: Library, Name: "wait.ExponentialBackoffWithContext", Context: call.Args[0]}
		p.setOperation(l, call.Args[2])
		p.k8sPolicy(l, p.resolveK8sBackoff(call.Args[1]))
		l.Policy.DeadlineAware, l.Policy.DeadlinePos, l.Policy.WaitCancellable = Yes, call.Args[0].Pos(), Yes
	default:
		return nil
	}
	if body, ok := l.Body.(*ast.BlockStmt); ok && !p.conditionRetriesErrors(body) {
		// The condition returns its errors (which stops the wait at once)
		// and (false, nil) only for "not ready yet": a poll, not a retry.
		return nil
	}
	return l
}

// conditionRetriesErrors reports whether a wait.ConditionFunc body turns a
// failure into another attempt: (false, nil) returned under a test of an
// error, or a done result computed from an error (return err == nil, nil).
func (p *callCtx) conditionRetriesErrors(body *ast.BlockStmt) bool {
	mentionsErr := func(e ast.Node) bool {
		return contains(e, func(n ast.Node) bool {
			x, ok := n.(ast.Expr)
			return ok && isErrorType(p.info.TypeOf(x)) // an error variable or a call returning one
		})
	}
	retries := false
	var walk func(n ast.Node, underErr bool)
	walk = func(n ast.Node, underErr bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if retries {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.IfStmt:
				if m.Init != nil {
					walk(m.Init, underErr)
				}
				walk(m.Body, underErr || mentionsErr(m.Cond))
				if m.Else != nil {
					walk(m.Else, underErr || mentionsErr(m.Cond))
				}
				return false
			case *ast.ReturnStmt:
				if len(m.Results) != 2 {
					return false
				}
				done, err := m.Results[0], m.Results[1]
				if !isNil(p.info, err) {
					return false
				}
				if id, ok := astutil.Unparen(done).(*ast.Ident); ok && id.Name == "false" && underErr {
					retries = true
				}
				if mentionsErr(done) {
					retries = true
				}
				return false
			}
			return true
		})
	}
	walk(body, false)
	return retries
}

func (p *callCtx) resolveK8sBackoff(e ast.Expr) k8sBackoff {
	var b k8sBackoff
	x, vars := p.origin(e)
	if x == nil {
		return b
	}
	zero := Value{Set: true, Known: true, Pos: x.Pos()}
	switch x := x.(type) {
	case *ast.SelectorExpr:
		v := p.varOf(x)
		if v == nil || v.Pkg() == nil || v.Pkg().Path() != pkgK8sRetry {
			return b
		}
		switch v.Name() {
		case "DefaultRetry":
			b = k8sBackoff{known: true, name: "retry.DefaultRetry", steps: defInt(5), duration: defDur(10 * time.Millisecond),
				factor: defFloat(1.0), jitter: defFloat(0.1), capD: defDur(0)}
		case "DefaultBackoff":
			b = k8sBackoff{known: true, name: "retry.DefaultBackoff", steps: defInt(4), duration: defDur(10 * time.Millisecond),
				factor: defFloat(5.0), jitter: defFloat(0.1), capD: defDur(0)}
		default:
			return b
		}
		b.pos = x.Pos()
	case *ast.CompositeLit:
		if !namedIs(p.info.TypeOf(x), pkgK8sWait, "Backoff") {
			return b
		}
		b = k8sBackoff{known: true, pos: x.Pos(), steps: zero, duration: zero, factor: zero, jitter: zero, capD: zero}
		keyed(x, func(name string, v ast.Expr) { p.k8sField(&b, name, v) })
	default:
		return b
	}
	p.applySets(vars, func(name string, v ast.Expr) { p.k8sField(&b, name, v) })
	return b
}

func (p *callCtx) k8sField(b *k8sBackoff, name string, v ast.Expr) {
	switch name {
	case "Duration":
		b.duration = p.durVal(v)
	case "Factor":
		b.factor = p.floatVal(v)
	case "Jitter":
		b.jitter = p.floatVal(v)
	case "Steps":
		b.steps = p.intVal(v)
	case "Cap":
		b.capD = p.durVal(v)
	}
}

// k8sPolicy simulates wait.ExponentialBackoff over the backoff.
func (p *callCtx) k8sPolicy(l *Layer, b k8sBackoff) {
	pol := &l.Policy
	pol.RetryAfter = No
	if !b.known {
		pol.Schedule = "unknown backoff"
		return
	}
	pol.WaitPos = b.pos
	if b.jitter.Known {
		pol.JitterPos = b.jitter.Pos
		if pol.JitterPos == token.NoPos {
			pol.JitterPos = b.pos
		}
		if b.jitter.F > 0 {
			pol.Jitter = Yes
		} else {
			pol.Jitter = No
		}
	}
	if !b.steps.Known {
		pol.Attempts = b.steps
		return
	}
	if b.steps.N <= 0 {
		pol.Attempts = unknownVal(b.steps.Pos)
		pol.Notes = append(pol.Notes, "Steps is 0: the operation never runs")
		return
	}
	if !(b.duration.Known && b.factor.Known && b.capD.Known) {
		pol.Attempts = b.steps
		return
	}
	steps, d := b.steps.N, b.duration.D
	attempts := int64(0)
	var waits []time.Duration
	for steps > 0 {
		attempts++
		if steps == 1 {
			break
		}
		steps--
		w := d
		if b.factor.F != 0 {
			next := time.Duration(float64(d) * b.factor.F)
			if b.capD.D > 0 && next > b.capD.D {
				next, steps = b.capD.D, 0
			}
			d = next
		}
		if steps == 0 {
			// reaching Cap ends the steps: wait.ExponentialBackoff still
			// sleeps this wait before it gives up.
			pol.Notes = append(pol.Notes, "Cap reached: a last wait of "+fd(w)+" is spent before giving up")
			break
		}
		waits = append(waits, w)
		if attempts > 10000 {
			break
		}
	}
	pol.Attempts = b.steps
	pol.Attempts.N = attempts
	if len(waits) > maxListedWaits {
		waits = waits[:maxListedWaits]
	}
	pol.Waits, pol.WaitsKnown = waits, true
	pol.Schedule = fmt.Sprintf("exponential %s*%g^i", fd(b.duration.D), b.factor.F)
	if b.factor.F == 1 {
		pol.Schedule = "constant " + fd(b.duration.D)
	}
	if b.capD.D > 0 {
		pol.Schedule += ", cap " + fd(b.capD.D)
	}
	if b.jitter.F > 0 {
		pol.Schedule += fmt.Sprintf(", +%g%% jitter", b.jitter.F*100)
	}
	if b.name != "" {
		pol.Schedule = b.name + ": " + pol.Schedule
	}
}
