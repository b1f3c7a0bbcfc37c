package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
)

// ---- github.com/hashicorp/go-retryablehttp (v0.7.8) ----
//
// NewClient: RetryMax 4 (retries after the first attempt), RetryWaitMin 1s,
// RetryWaitMax 30s, CheckRetry DefaultRetryPolicy (connection errors, 429,
// 5xx except 501), Backoff DefaultBackoff. DefaultBackoff waits
// RetryWaitMin*2^i capped at RetryWaitMax, no jitter, and on a 429 or 503
// the Retry-After header instead. LinearJitterBackoff waits
// rand[min,max]*(i+1) and ignores Retry-After; RateLimitLinearJitterBackoff
// is LinearJitterBackoff that honours Retry-After on 429/503. The wait is a
// timer in a select on the request's context. The package functions Get,
// Head, Post, PostForm use a NewClient() client. StandardClient() returns an
// *http.Client whose transport is the retrying client.
const (
	rhRetryMax = 4
	rhWaitMin  = 1 * time.Second
	rhWaitMax  = 30 * time.Second
)

// rhPolicy is a *retryablehttp.Client followed to its construction.
type rhPolicy struct {
	known      bool // built by NewClient or a literal in this package
	pos        token.Pos
	max        Value
	waitMin    Value
	waitMax    Value
	backoff    ast.Expr // nil: DefaultBackoff
	backoffPos token.Pos
	check      ast.Expr // nil: DefaultRetryPolicy
	timeout    Value    // HTTPClient.Timeout: per attempt
	posn       string   // where it was built, when in another package
}

func (p *callCtx) retryableHTTPLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	name := fn.Name()
	switch name {
	case "Do", "Get", "Post", "Head", "PostForm":
	default:
		return nil
	}
	var rc rhPolicy
	l := &Layer{Kind: Client}
	switch RecvName(fn) {
	case "Client":
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		rc = p.resolveRetryableClient(sel.X)
		l.Name = "retryablehttp.Client." + name
	case "":
		if name == "Do" {
			return nil
		}
		rc = rhDefaults(call.Pos())
		rc.known = true
		l.Name = "retryablehttp." + name
	default:
		return nil
	}
	p.applyRH(l, rc)
	if name == "Do" && len(call.Args) == 1 {
		p.requestContext(l, call.Args[0])
	} else {
		l.Policy.DeadlineAware, l.Policy.WaitCancellable = No, No
		l.Policy.Notes = append(l.Policy.Notes, "request has no context: waits ignore cancellation")
	}
	return l
}

func rhDefaults(pos token.Pos) rhPolicy {
	return rhPolicy{pos: pos, max: defInt(rhRetryMax), waitMin: defDur(rhWaitMin), waitMax: defDur(rhWaitMax)}
}

// resolveRetryableClient follows a *retryablehttp.Client value.
func (p *callCtx) resolveRetryableClient(e ast.Expr) rhPolicy {
	x, vars := p.origin(e)
	rc := rhDefaults(token.NoPos)
	if x == nil {
		if joined, ok := p.retryableFromSources(vars, 0); ok {
			return joined // joinsources.go: a local given a client on each path
		}
	}
	switch x := x.(type) {
	case *ast.CallExpr:
		if !p.calleeIs(x, pkgRetryableHTTP, "", "NewClient") {
			return p.importedRetryableClient(x, rc)
		}
		rc.known, rc.pos = true, x.Pos()
	case *ast.CompositeLit:
		if !namedIs(p.info.TypeOf(x), pkgRetryableHTTP, "Client") {
			return rc
		}
		// A literal leaves unset fields zero: RetryMax 0 (no retry), no
		// waits; Do fills in nothing else but the HTTP client. A nil
		// Backoff or CheckRetry would panic, so they are set when used.
		zero := Value{Set: true, Known: true, Pos: x.Pos()}
		rc = rhPolicy{known: true, pos: x.Pos(), max: zero, waitMin: zero, waitMax: zero}
		keyed(x, func(name string, v ast.Expr) { p.rhField(&rc, name, v) })
	default:
		return p.importedRetryableClient(x, rc)
	}
	optMax := false
	for _, s := range p.setsOn(vars) {
		if p.optionSet(s) {
			optMax = optMax || s.name == "RetryMax"
			continue // joinsources.go: an option a caller may pass; the constructor's value is the default
		}
		p.rhField(&rc, s.name, s.rhs)
	}
	rc.max.Default = rc.max.Default || optMax && rc.max.Known
	if p.escaped(vars) {
		// handed to a function that may configure it
		u := unknownVal(rc.pos)
		rc.max, rc.waitMin, rc.waitMax = u, u, u
	}
	return rc
}

// importedRetryableClient reads the ClientFact of another package's
// function or variable that gives a *retryablehttp.Client.
func (p *callCtx) importedRetryableClient(x ast.Expr, rc rhPolicy) rhPolicy {
	if f, via := p.importedClient(x); f != nil && f.Kind == "retryablehttp" {
		rc.known, rc.posn = true, f.Posn+" (by "+via+")"
		rc.max = Value{Set: true, Known: f.Known, N: f.Retries, Default: f.Default}
	}
	return rc
}

func (p *callCtx) rhField(rc *rhPolicy, name string, v ast.Expr) {
	switch name {
	case "RetryMax":
		rc.max = p.intVal(v)
	case "RetryWaitMin":
		rc.waitMin = p.durVal(v)
	case "RetryWaitMax":
		rc.waitMax = p.durVal(v)
	case "Backoff":
		rc.backoff, rc.backoffPos = v, v.Pos()
	case "CheckRetry":
		rc.check = v
	case "HTTPClient":
		rc.timeout = p.httpClientTimeout(v)
	case "HTTPClient.Timeout":
		rc.timeout = p.durVal(v)
	}
}

// httpClientTimeout reads the Timeout of an *http.Client value built by a
// literal in this package (unset: no timeout, Value not Set).
func (p *callCtx) httpClientTimeout(e ast.Expr) Value {
	x, vars := p.origin(e)
	lit, ok := x.(*ast.CompositeLit)
	if !ok || !namedIs(p.info.TypeOf(lit), "net/http", "Client") {
		return Value{}
	}
	var v Value
	timeout := func(name string, e ast.Expr) {
		if name == "Timeout" {
			v = p.durVal(e)
		}
	}
	keyed(lit, timeout)
	p.applySets(vars, timeout)
	return v
}

// applyRH fills a layer's policy from a retryable client.
func (p *callCtx) applyRH(l *Layer, rc rhPolicy) {
	pol := &l.Policy
	if !rc.known {
		pol.Assumed = true
		pol.Notes = append(pol.Notes, "client construction not found: retryablehttp defaults assumed (RetryMax 4)")
	} else {
		l.ClientPos = rc.pos
		if rc.posn != "" {
			if !rc.pos.IsValid() {
				l.ClientPosn = rc.posn
			}
			pol.Notes = append(pol.Notes, "client built at "+rc.posn)
		}
	}
	pol.Attempts = rc.max
	if rc.max.Known {
		pol.Attempts.N = rc.max.N + 1
		if rc.max.N < 0 {
			pol.Attempts.N = 1
		}
	}
	if rc.timeout.Set {
		pol.PerAttempt = rc.timeout
	}
	if rc.check != nil {
		pol.Classifier = rc.check
		_, pol.ClassifierFunc = p.funcArg(rc.check)
	}
	kind := "DefaultBackoff"
	if rc.backoff != nil {
		kind = ""
		if _, fn := p.funcArg(rc.backoff); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkgRetryableHTTP {
			kind = fn.Name()
		}
	}
	pol.WaitPos = rc.backoffPos
	if pol.WaitPos == token.NoPos {
		pol.WaitPos = rc.pos
	}
	switch kind {
	case "DefaultBackoff":
		pol.RetryAfter, pol.Jitter = Yes, No
		pol.RetryAfterPos, pol.JitterPos = pol.WaitPos, pol.WaitPos
		if rc.waitMin.Known && rc.waitMax.Known {
			pol.Schedule = "exponential " + fd(rc.waitMin.D) + "*2^i, cap " + fd(rc.waitMax.D) + ", Retry-After on 429/503"
			if rc.waitMin.Default && rc.waitMax.Default {
				pol.Schedule = "library default (retryablehttp: " + pol.Schedule + ")"
			}
			if n := waitCount(pol.Attempts); n > 0 {
				pol.Waits = expWaits(rc.waitMin.D, 2, rc.waitMax.D, n)
				pol.WaitsKnown = true
			}
		}
	case "LinearJitterBackoff", "RateLimitLinearJitterBackoff":
		if kind == "RateLimitLinearJitterBackoff" {
			pol.RetryAfter, pol.RetryAfterPos = Yes, rc.backoffPos
		} else {
			pol.RetryAfter = No
		}
		pol.Schedule = "linear with jitter"
		if rc.waitMin.Known && rc.waitMax.Known {
			pol.JitterPos = rc.backoffPos
			if rc.waitMax.D <= rc.waitMin.D {
				pol.Jitter = No
				pol.Schedule = "linear " + fd(rc.waitMin.D) + "*(i+1)"
			} else {
				pol.Jitter = Yes
				pol.Schedule = "linear rand[" + fd(rc.waitMin.D) + "," + fd(rc.waitMax.D) + "]*(i+1)"
			}
			if n := waitCount(pol.Attempts); n > 0 {
				for i := 1; i <= n; i++ {
					pol.Waits = append(pol.Waits, rc.waitMin.D*time.Duration(i))
				}
				pol.WaitsKnown = pol.Jitter == No
			}
		}
	default:
		pol.Schedule = "custom Backoff"
		if _, fn := p.funcArg(rc.backoff); fn != nil && p.raFunc[fn.Origin()] {
			pol.RetryAfter, pol.RetryAfterPos = Yes, rc.backoffPos
		} else if lit, _ := p.funcArg(rc.backoff); lit != nil && p.pkgCtx.retryAfterPos(lit).IsValid() {
			pol.RetryAfter, pol.RetryAfterPos = Yes, rc.backoffPos
		}
	}
}

// requestContext sets the deadline awareness of a retryablehttp Do from
// the request's construction.
func (p *callCtx) requestContext(l *Layer, req ast.Expr) {
	pol := &l.Policy
	x, _ := p.origin(req)
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return
	}
	fn, path := p.callee(call)
	if fn == nil {
		return
	}
	switch {
	case path == pkgRetryableHTTP && fn.Name() == "NewRequestWithContext" && len(call.Args) > 0:
		l.Context = call.Args[0]
	case path == pkgRetryableHTTP && fn.Name() == "NewRequest":
		pol.DeadlineAware, pol.WaitCancellable = No, No
		pol.Notes = append(pol.Notes, "request built without a context (retryablehttp.NewRequest): waits ignore cancellation")
		return
	case path == pkgRetryableHTTP && fn.Name() == "FromRequest" && len(call.Args) == 1:
		if hx, _ := p.origin(call.Args[0]); hx != nil {
			if hc, ok := hx.(*ast.CallExpr); ok && p.calleeIs(hc, "net/http", "", "NewRequestWithContext") && len(hc.Args) > 0 {
				l.Context = hc.Args[0]
			}
		}
	case RecvName(fn) == "Request" && fn.Name() == "WithContext" && len(call.Args) == 1:
		l.Context = call.Args[0]
	}
	if l.Context != nil {
		pol.DeadlineAware, pol.DeadlinePos, pol.WaitCancellable = Yes, l.Context.Pos(), Yes
	}
}

// stdClientLayer recognises a call through an *http.Client built by a
// retryablehttp Client's StandardClient() (or whose Transport is a
// *retryablehttp.RoundTripper): its transport retries every request.
func (p *callCtx) stdClientLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	if RecvName(fn) != "Client" {
		return nil
	}
	switch fn.Name() {
	case "Do", "Get", "Post", "Head", "PostForm":
	default:
		return nil
	}
	if !p.importsRetryableHTTP() && !p.clientFactsOn() {
		return nil
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	rc, at, ok := p.standardClientOf(sel.X)
	if !ok {
		return nil
	}
	l := &Layer{Kind: Client, Name: "http.Client." + fn.Name() + " (retryablehttp StandardClient)"}
	p.applyRH(l, rc)
	l.ClientPos = at
	if at.IsValid() {
		l.Policy.Notes = append(l.Policy.Notes, "*http.Client from retryablehttp StandardClient at "+p.short(at))
	}
	if fn.Name() == "Do" && len(call.Args) == 1 {
		if x, _ := p.origin(call.Args[0]); x != nil {
			if hc, ok := x.(*ast.CallExpr); ok && p.calleeIs(hc, "net/http", "", "NewRequestWithContext") && len(hc.Args) > 0 {
				l.Context = hc.Args[0]
				l.Policy.DeadlineAware, l.Policy.DeadlinePos, l.Policy.WaitCancellable = Yes, hc.Args[0].Pos(), Yes
			}
		}
	} else {
		l.Policy.DeadlineAware, l.Policy.WaitCancellable = No, No
	}
	return l
}

// standardClientOf follows an *http.Client value to a retryablehttp
// StandardClient() call or an http.Client literal whose Transport is a
// *retryablehttp.RoundTripper. It returns the retrying client's policy and
// where the *http.Client was built.
func (p *callCtx) standardClientOf(e ast.Expr) (rhPolicy, token.Pos, bool) {
	x, _ := p.origin(e)
	switch x := x.(type) {
	case *ast.CallExpr:
		fn, path := p.callee(x)
		if path == pkgRetryableHTTP && RecvName(fn) == "Client" && fn.Name() == "StandardClient" {
			if sel, ok := astutil.Unparen(x.Fun).(*ast.SelectorExpr); ok {
				return p.resolveRetryableClient(sel.X), x.Pos(), true
			}
		}
		return p.importedStandardClient(x)
	case *ast.CompositeLit:
		if !namedIs(p.info.TypeOf(x), "net/http", "Client") {
			break
		}
		for _, elt := range x.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if id, ok := kv.Key.(*ast.Ident); !ok || id.Name != "Transport" {
				continue
			}
			tx, _ := p.origin(kv.Value)
			if lit, ok := tx.(*ast.CompositeLit); ok && namedIs(p.info.TypeOf(lit), pkgRetryableHTTP, "RoundTripper") {
				for _, te := range lit.Elts {
					if tkv, ok := te.(*ast.KeyValueExpr); ok {
						if id, ok := tkv.Key.(*ast.Ident); ok && id.Name == "Client" {
							return p.resolveRetryableClient(tkv.Value), x.Pos(), true
						}
					}
				}
				return rhDefaults(token.NoPos), x.Pos(), true
			}
		}
	default:
		return p.importedStandardClient(x)
	}
	return rhPolicy{}, token.NoPos, false
}

// importedStandardClient reads the ClientFact of another package's
// function or variable that gives a StandardClient *http.Client.
func (p *callCtx) importedStandardClient(x ast.Expr) (rhPolicy, token.Pos, bool) {
	if f, via := p.importedClient(x); f != nil && f.Kind == "standard" {
		rc := rhDefaults(token.NoPos)
		rc.known, rc.posn = true, f.Posn+" (by "+via+")"
		rc.max = Value{Set: true, Known: f.Known, N: f.Retries, Default: f.Default}
		return rc, token.NoPos, true
	}
	return rhPolicy{}, token.NoPos, false
}

func (p *callCtx) importsRetryableHTTP() bool {
	for _, imp := range p.pass.Pkg.Imports() {
		if imp.Path() == pkgRetryableHTTP {
			return true
		}
	}
	return false
}
