package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/durconst"
)

// Import paths of the retry libraries, retrying clients and SDKs the model
// knows. Versions whose defaults are encoded here are cited where the
// defaults are (library.go, client.go, sdk.go).
const (
	pkgBackoffV2     = "github.com/cenkalti/backoff" // v2.x: the v4 API without generics
	pkgBackoffV3     = "github.com/cenkalti/backoff/v3"
	pkgBackoffV4     = "github.com/cenkalti/backoff/v4"
	pkgBackoffV5     = "github.com/cenkalti/backoff/v5"
	pkgRetryGo       = "github.com/avast/retry-go/v4"
	pkgGoRetry       = "github.com/sethvargo/go-retry"
	pkgRetryableHTTP = "github.com/hashicorp/go-retryablehttp"
	pkgK8sRetry      = "k8s.io/client-go/util/retry"
	pkgK8sWait       = "k8s.io/apimachinery/pkg/util/wait"
	pkgOpenAIV1      = "github.com/openai/openai-go" // v1 and v2 share the v3 retry code
	pkgAnthropic     = "github.com/anthropics/anthropic-sdk-go"
	pkgAWS           = "github.com/aws/aws-sdk-go-v2"
)

// callLayer recognises a call that is itself a retry layer: a retry
// library, a retrying HTTP client, an SDK that retries by default.
//
// Calls into any other package return at once (the fast path). Calls that
// only build a policy (backoff.NewExponentialBackOff, retry.Attempts,
// retryablehttp.NewClient, retryablehttp.NewRequest, openai.NewClient) are
// not layers: the layer is the call that runs the operation.
//
// Decisions the analyzers rely on:
//   - A library used to poll (remote failures made permanent, only a fresh
//     "not ready" error retried; poll.go) is not a layer: it runs again
//     after success.
//   - A layer configured not to retry (option.WithMaxRetries(0), RetryMax
//     0, aws.NopRetryer, retry.Attempts(1), &backoff.StopBackOff{}, a
//     go-retry operation that never wraps an error in RetryableError) is
//     still a layer, with Attempts Known and N == 1: it still makes the
//     remote call, and analyzers can tell "retries off" from "unknown".
//   - Attempts Known with N == 0 means unbounded by count (backoff without
//     WithMaxRetries, retry.UntilSucceeded, go-retry without
//     WithMaxRetries); MaxElapsed then says whether time bounds it.
//   - What the code sets but the model cannot fold or follow is Set and not
//     Known ("?"), never a default: a backoff or option list handed in from
//     outside, a variable assigned twice, an option that is not a literal
//     call. Library defaults apply only when the construction is seen and
//     sets nothing (Value.Default).
//   - A retrying client or SDK client whose construction is not found gets
//     the library or SDK default with Policy.Assumed (say "SDK default (2
//     retries)"), because that is what the code runs unless configured.
//   - Waits are nominal: the deterministic part of each wait (the centre of
//     a ±randomisation, the base of an additive jitter); Jitter says
//     whether a random part exists. Full-jitter schedules list no waits.
//   - MaxElapsed Known with D == 0 is an elapsed limit explicitly turned
//     off (MaxElapsedTime = 0). A layer bound to a context with a timeout
//     set in the same function takes that timeout when it is tighter.
//   - A layer bound to context.Background()/TODO() is not deadline-aware.
//   - Values are followed flow-insensitively through locals, package
//     variables and struct fields of this package given one value (or the
//     same field read in several places), a local wrapped in straight-line
//     code (b = retry.WithMaxRetries(3, b): the last assignment before the
//     use), and the return of a package function. A client built in
//     another package (a function's result, a package variable, a struct
//     field) is read from its ClientFact; the layer then has no ClientPos
//     and a note "client built at dir/file.go:line (by pkg.Func)".
//   - A client or backoff handed to a function that may set its fields
//     (another package's, or one of this package that assigns them or
//     hands it on) has unknown settings.
func (pc *pkgCtx) callLayer(call *ast.CallExpr, fnNode ast.Node, stack []ast.Node) *Layer {
	fn, _ := typeutil.Callee(pc.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	fn = fn.Origin()
	path := fn.Pkg().Path()
	if !knownPath(path) {
		return nil
	}
	p := &callCtx{pkgCtx: pc, stack: stack}
	if path != "net/http" {
		// a package that builds clients calls the SDK or retryablehttp
		p.exportClientFacts()
	}
	var l *Layer
	switch {
	case path == pkgBackoffV4 || path == pkgBackoffV3 || path == pkgBackoffV2:
		l = p.backoffV4Layer(call, fn)
	case path == pkgBackoffV5:
		l = p.backoffV5Layer(call, fn)
	case path == pkgRetryGo:
		l = p.retryGoLayer(call, fn)
	case path == pkgGoRetry:
		l = p.goRetryLayer(call, fn)
	case path == pkgK8sRetry:
		l = p.k8sRetryLayer(call, fn)
	case path == pkgK8sWait:
		l = p.k8sWaitLayer(call, fn)
	case path == pkgRoko:
		l = p.rokoLayer(call, fn)
	case path == pkgFailsafe:
		l = p.failsafeLayer(call, fn)
	case path == pkgRetryableHTTP:
		l = p.retryableHTTPLayer(call, fn)
	case path == "net/http":
		l = p.stdClientLayer(call, fn)
	case under(path, pkgOpenAIV1):
		l = p.stainlessLayer(call, fn, "openai", stainlessRoot(path, pkgOpenAIV1))
	case under(path, pkgAnthropic):
		l = p.stainlessLayer(call, fn, "anthropic", stainlessRoot(path, pkgAnthropic))
	case strings.HasPrefix(path, pkgAWS+"/service/"):
		l = p.awsLayer(call, fn)
	}
	if l == nil {
		return nil
	}
	l.Node = call
	if !l.Pos.IsValid() {
		l.Pos = call.Pos()
	}
	if l.Kind == Client || l.Kind == SDK {
		if len(l.Ops) == 0 {
			l.Ops = []*ast.CallExpr{call}
		}
		l.Remote = Yes
	}
	p.finish(l, fnNode)
	return l
}

// finish adds what the code around a library, client or SDK call fixes:
// a per-attempt timeout made inside the operation, and a timeout on the
// context the layer is bound to (the tighter of it and the library's own
// elapsed limit).
func (p *callCtx) finish(l *Layer, fnNode ast.Node) {
	pol := &l.Policy
	if l.Kind == Library && pol.RetryAfter != Yes {
		// The operation reads Retry-After itself (and sleeps or hands the
		// wait to the library): honoured as far as the model can tell.
		if l.Body != nil {
			if pos := p.pkgCtx.retryAfterPos(l.Body); pos.IsValid() {
				pol.RetryAfter, pol.RetryAfterPos = Yes, pos
			}
		}
		for _, fn := range l.OpFuncs {
			if p.raFunc[fn.Origin()] {
				pol.RetryAfter, pol.RetryAfterPos = Yes, l.Pos
			}
		}
	}
	if body, ok := l.Body.(*ast.BlockStmt); ok && !pol.PerAttempt.Set {
		pol.PerAttempt = p.pkgCtx.bodyTimeout(body)
	}
	if l.Context != nil && pol.DeadlineAware == Yes {
		if x, _ := p.origin(l.Context); x != nil {
			if c, ok := x.(*ast.CallExpr); ok && (p.calleeIs(c, "context", "", "Background") || p.calleeIs(c, "context", "", "TODO")) {
				// bound to a context that is never cancelled
				pol.DeadlineAware, pol.WaitCancellable = No, No
				pol.Notes = append(pol.Notes, "bound to "+types.ExprString(c)+", which is never cancelled")
			}
		}
	}
	if l.Context != nil && fnNode != nil {
		if v := p.pkgCtx.enclosingTimeout(l, fnNode); v.Set {
			own := pol.MaxElapsed
			if !own.Set || (own.Known && own.D == 0) || (own.Known && v.Known && v.D < own.D) || own.Default {
				pol.MaxElapsed = v
				pol.Notes = append(pol.Notes, "bounded by the timeout of its context at "+p.short(v.Pos))
			}
		}
	}
}

// RetryLibrary reports a package of a retry library the model reads:
// cenkalti/backoff, retry-go, go-retry, roko, failsafe-go, apimachinery's
// wait and client-go's retry.
func RetryLibrary(path string) bool {
	switch path {
	case pkgBackoffV2, pkgBackoffV3, pkgBackoffV4, pkgBackoffV5, pkgRetryGo, pkgGoRetry, pkgK8sRetry, pkgK8sWait, pkgRoko,
		pkgFailsafe, pkgFailsafeRetry, pkgFailsafeHTTP:
		return true
	}
	return false
}

// knownPath reports whether calls into path can be layers.
func knownPath(path string) bool {
	switch path {
	case pkgBackoffV2, pkgBackoffV3, pkgBackoffV4, pkgBackoffV5, pkgRetryGo, pkgGoRetry, pkgK8sRetry, pkgK8sWait, pkgRetryableHTTP, pkgRoko, pkgFailsafe, "net/http":
		return true
	}
	return under(path, pkgOpenAIV1) || under(path, pkgAnthropic) || strings.HasPrefix(path, pkgAWS+"/service/")
}

// under reports whether path is root or a package below it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

// stainlessRoot returns the module root of a Stainless SDK package: the
// major-version module (root/v2, root/v3) when path is in one.
func stainlessRoot(path, root string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(path, root), "/")
	if len(rest) >= 2 && rest[0] == 'v' && rest[1] >= '2' && rest[1] <= '9' {
		major, _, _ := strings.Cut(rest, "/")
		return root + "/" + major
	}
	return root
}

// callCtx is the call detectors' view of a package: the shared pkgCtx plus
// the call index. Its methods are the detectors' own helpers.
type callCtx struct {
	*pkgCtx
	stack []ast.Node
	// sched, when set, lists the first n nominal waits of the schedule
	// being built (fillWaits applies it once attempts are known).
	sched func(n int) []time.Duration
}

// ---- values ----

func (p *callCtx) durVal(e ast.Expr) Value {
	d, ok := p.fold.Duration(e)
	return Value{Set: true, Known: ok, D: d, Pos: e.Pos()}
}

func (p *callCtx) intVal(e ast.Expr) Value {
	n, ok := p.fold.Int(e)
	return Value{Set: true, Known: ok, N: n, Pos: e.Pos()}
}

func (p *callCtx) floatVal(e ast.Expr) Value {
	f, ok := p.fold.Float(e)
	return Value{Set: true, Known: ok, F: f, Pos: e.Pos()}
}

func defDur(d time.Duration) Value { return Value{Set: true, Known: true, D: d, Default: true} }
func defInt(n int64) Value         { return Value{Set: true, Known: true, N: n, Default: true} }
func defFloat(f float64) Value     { return Value{Set: true, Known: true, F: f, Default: true} }

// unknownVal is a value the code sets in a way the model cannot fold.
func unknownVal(pos token.Pos) Value { return Value{Set: true, Pos: pos} }

// ---- callees ----

// calleeIs reports whether call calls the package-level function or method
// pkg.name (method: recv is the receiver type name, "" for functions).
func (p *callCtx) calleeIs(call *ast.CallExpr, pkg, recv, name string) bool {
	fn, _ := typeutil.Callee(p.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	fn = fn.Origin()
	return fn.Pkg().Path() == pkg && fn.Name() == name && RecvName(fn) == recv
}

// isCall returns a predicate for calls of the function name of any of pkgs.
func (p *callCtx) isCall(name string, pkgs ...string) func(*ast.CallExpr) bool {
	return func(c *ast.CallExpr) bool {
		return slices.ContainsFunc(pkgs, func(pkg string) bool { return p.calleeIs(c, pkg, "", name) })
	}
}

// callee returns the function a call calls, with its package path, or nil.
func (p *pkgCtx) callee(call *ast.CallExpr) (*types.Func, string) {
	fn, _ := typeutil.Callee(p.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return nil, ""
	}
	fn = fn.Origin()
	return fn, fn.Pkg().Path()
}

// isNamed reports whether t (or *t) is the named type pkg.name.
func namedIs(t types.Type, pkg, name string) bool {
	if t == nil {
		return false
	}
	if pt, ok := types.Unalias(t).(*types.Pointer); ok {
		t = pt.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// ---- following values ----

// A valSource is one value given to a variable or field: the right-hand side
// of an assignment or initializer, or a composite literal element.
type valSource struct {
	expr ast.Expr
	// tuple is true when expr is a call returning several values and the
	// variable receives one of them (cfg, err := config.LoadDefaultConfig()).
	tuple bool
	idx   int // which result, when tuple
	// cond is true when the assignment sits in more conditional blocks than
	// the variable's declaration (an append under an if).
	cond bool
	// end is where the assignment or declaration ends.
	end token.Pos
	// unknown marks an assignment the model cannot follow (x, y = f(), g()
	// mismatches, a range variable, an address taken).
	unknown bool
}

// A fieldSet is an assignment to a field of a value: rc.RetryMax = 0.
type fieldSet struct {
	name string
	rhs  ast.Expr
	pos  token.Pos
}

// callIndex is the package-wide index the call detectors use to follow a
// value to where it was built. Built on first use.
type callIndex struct {
	vars      map[*types.Var][]valSource // variables and struct fields -> values given
	sets      map[types.Object][]fieldSet
	condDepth map[*types.Var]int // conditional nesting of a local's declaration
	exported  bool               // ClientFacts exported
	// escapes marks pointer-typed variables handed to a function outside
	// the retry libraries: it may set their fields where the model does
	// not look.
	escapes map[*types.Var][]escape
}

// An escape is a variable handed to a function as argument arg.
type escape struct {
	fn  *types.Func // nil: a dynamic call
	arg int
}

var (
	idxMu    sync.Mutex
	idxCache = map[*pkgCtx]*callIndex{}
)

// index returns the package's call index. The cache is bounded: a package
// whose entry was evicted rebuilds it (only slower). Analyses run one
// package per pass, a handful at a time, so the bound is rarely reached.
func (p *callCtx) index() *callIndex {
	idxMu.Lock()
	ix := idxCache[p.pkgCtx]
	idxMu.Unlock()
	if ix != nil {
		return ix
	}
	ix = buildIndex(p.info, p.pass.Files)
	idxMu.Lock()
	if len(idxCache) >= 64 {
		clear(idxCache)
	}
	idxCache[p.pkgCtx] = ix
	idxMu.Unlock()
	return ix
}

func buildIndex(info *types.Info, files []*ast.File) *callIndex {
	ix := &callIndex{
		vars:      make(map[*types.Var][]valSource),
		sets:      make(map[types.Object][]fieldSet),
		condDepth: make(map[*types.Var]int),
		escapes:   make(map[*types.Var][]escape),
	}
	for _, f := range files {
		depth := 0
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if callIsCond(top) {
					depth--
				}
				return true
			}
			stack = append(stack, n)
			if callIsCond(n) {
				depth++
			}
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					v, _ := info.Defs[name].(*types.Var)
					if v == nil {
						continue
					}
					ix.condDepth[v] = depth
					switch {
					case len(n.Values) == len(n.Names):
						ix.vars[v] = append(ix.vars[v], valSource{expr: n.Values[i], end: n.End()})
					case len(n.Values) == 1:
						ix.vars[v] = append(ix.vars[v], valSource{expr: n.Values[0], tuple: true, idx: i, end: n.End()})
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					// field sets: x.f = e
					if sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok && len(n.Lhs) == len(n.Rhs) && n.Tok == token.ASSIGN {
						if owner := varOf(info, sel.X); owner != nil {
							ix.sets[owner] = append(ix.sets[owner], fieldSet{name: sel.Sel.Name, rhs: n.Rhs[i], pos: n.Rhs[i].Pos()})
						}
						// x.f.g = e is also a set of "f.g" on x (rc.HTTPClient.Timeout)
						if inner, ok := astutil.Unparen(sel.X).(*ast.SelectorExpr); ok {
							if owner := varOf(info, inner.X); owner != nil {
								ix.sets[owner] = append(ix.sets[owner], fieldSet{name: inner.Sel.Name + "." + sel.Sel.Name, rhs: n.Rhs[i], pos: n.Rhs[i].Pos()})
							}
						}
					}
					v := varOf(info, lhs)
					if v == nil {
						continue
					}
					if n.Tok == token.DEFINE {
						if _, ok := info.Defs[astutil.Unparen(lhs).(*ast.Ident)]; ok {
							ix.condDepth[v] = depth
						}
					}
					cond := depth > ix.condDepth[v]
					switch {
					case n.Tok != token.ASSIGN && n.Tok != token.DEFINE:
						ix.vars[v] = append(ix.vars[v], valSource{unknown: true})
					case len(n.Lhs) == len(n.Rhs):
						ix.vars[v] = append(ix.vars[v], valSource{expr: n.Rhs[i], cond: cond, end: n.End()})
					case len(n.Rhs) == 1:
						ix.vars[v] = append(ix.vars[v], valSource{expr: n.Rhs[0], tuple: true, idx: i, cond: cond, end: n.End()})
					default:
						ix.vars[v] = append(ix.vars[v], valSource{unknown: true})
					}
				}
			case *ast.CallExpr:
				fn, _ := typeutil.Callee(info, n).(*types.Func)
				if fn != nil && fn.Pkg() != nil {
					// the retry libraries and printers do not set fields
					// of what they are given
					if path := fn.Pkg().Path(); knownPath(path) || path == "fmt" || path == "log" || path == "log/slog" {
						break
					}
				}
				for i, a := range n.Args {
					a = astutil.Unparen(a)
					addr := false
					if u, ok := a.(*ast.UnaryExpr); ok && u.Op == token.AND {
						a, addr = u.X, true
					}
					if v := varOf(info, a); v != nil {
						if _, isPtr := v.Type().Underlying().(*types.Pointer); isPtr || addr {
							ix.escapes[v] = append(ix.escapes[v], escape{fn: fn, arg: i})
						}
					}
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e == nil {
						continue
					}
					if v := varOf(info, e); v != nil {
						ix.vars[v] = append(ix.vars[v], valSource{unknown: true})
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					if v := varOf(info, n.X); v != nil && !v.IsField() {
						// &x: the value may change through the pointer;
						// struct-typed locals (&Client{}) are still followed.
						if _, isStruct := v.Type().Underlying().(*types.Struct); !isStruct {
							ix.vars[v] = append(ix.vars[v], valSource{unknown: true})
						}
					}
				}
			case *ast.CompositeLit:
				t := info.TypeOf(n)
				if t == nil {
					break
				}
				st, ok := callTypeUnder(t).(*types.Struct)
				if !ok {
					break
				}
				for i, elt := range n.Elts {
					if kv, ok := elt.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
								ix.vars[v] = append(ix.vars[v], valSource{expr: kv.Value})
							}
						}
					} else if i < st.NumFields() {
						ix.vars[st.Field(i)] = append(ix.vars[st.Field(i)], valSource{expr: elt})
					}
				}
			}
			return true
		})
	}
	return ix
}

func callIsCond(n ast.Node) bool {
	switch n.(type) {
	case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.ForStmt, *ast.RangeStmt, *ast.CaseClause, *ast.CommClause,
		*ast.FuncLit: // a closure may run at any time, or not at all
		return true
	}
	return false
}

func callTypeUnder(t types.Type) types.Type {
	if pt, ok := t.Underlying().(*types.Pointer); ok {
		t = pt.Elem()
	}
	return t.Underlying()
}

// varOf returns the variable or field an expression names, or nil.
func (p *pkgCtx) varOf(e ast.Expr) *types.Var { return varOf(p.info, e) }

func varOf(info *types.Info, e ast.Expr) *types.Var {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := info.Uses[e].(*types.Var)
		if v == nil {
			v, _ = info.Defs[e].(*types.Var)
		}
		return v
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			v, _ := sel.Obj().(*types.Var)
			return v
		}
		v, _ := info.Uses[e.Sel].(*types.Var)
		return v
	}
	return nil
}

// origin follows e through variables and struct fields that are given
// exactly one value in the package (flow-insensitively) to the expression
// that built it: a call, a composite literal. It returns that expression
// and the variables passed on the way (whose field sets apply to the
// value). The expression is nil when the value cannot be followed (a
// parameter, several assignments, a value from outside the package).
func (p *callCtx) origin(e ast.Expr) (ast.Expr, []*types.Var) {
	ix := p.index()
	var vars []*types.Var
	result := 0 // the result of a call the value is
	for range 12 {
		e = astutil.Unparen(e)
		switch x := e.(type) {
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				e = x.X
				continue
			}
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.CallExpr:
			// A constructor of this package: follow its return.
			if r := p.returnedBy(x, result); r != nil {
				e, result = r, 0
				continue
			}
			return e, vars
		}
		v := p.varOf(e)
		if v == nil {
			return e, vars
		}
		vars = append(vars, v)
		if v.Pkg() != p.pass.Pkg {
			// a package variable or struct field of another package
			// (retry.DefaultRetry, client.Chat.Completions): the caller
			// decides what it knows of it.
			return e, vars
		}
		srcs := ix.vars[v]
		var only *valSource
		chosen := false
		if len(srcs) > 1 && p.straightLine(v, srcs) {
			chosen = true
			// b := retry.NewFibonacci(d); b = retry.WithMaxRetries(3, b):
			// the value at this use is the last assignment before it.
			for i := range srcs {
				if srcs[i].end <= e.Pos() && (only == nil || srcs[i].end > only.end) {
					only = &srcs[i]
				}
			}
			if only == nil || p.capturedBefore(v, e, srcs) {
				return nil, vars
			}
		}
		for i := range srcs {
			if chosen {
				break // chosen by position
			}
			s := &srcs[i]
			if s.unknown {
				return nil, vars
			}
			if only != nil && !p.sameSource(only, s) {
				return nil, vars
			}
			only = s
		}
		if only == nil {
			return nil, vars
		}
		e, result = only.expr, 0
		if only.tuple {
			result = only.idx
		}
	}
	return nil, vars
}

// returnedBy returns the expression a function of this package returns as
// its result i, when every return statement that gives that result a
// non-nil value gives the same expression (one return, typically). Nil
// otherwise, and for calls of other packages.
func (p *callCtx) returnedBy(call *ast.CallExpr, i int) ast.Expr {
	fn, _ := typeutil.Callee(p.info, call).(*types.Func)
	if fn == nil || fn.Pkg() != p.pass.Pkg {
		return nil
	}
	return p.returnedFrom(p.res.decls[fn.Origin()], i)
}

// straightLine reports whether a local variable is only assigned in the
// block it is declared in (no branch, loop or closure between), so the
// value at a use is the last assignment before it.
func (p *callCtx) straightLine(v *types.Var, srcs []valSource) bool {
	if v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	for _, s := range srcs {
		if s.unknown || s.cond || !s.end.IsValid() {
			return false
		}
	}
	return true
}

// capturedBefore reports a use of v inside a closure written before a
// later assignment of v: the closure may run after it.
func (p *callCtx) capturedBefore(v *types.Var, use ast.Expr, srcs []valSource) bool {
	later := false
	for _, s := range srcs {
		if s.end > use.Pos() {
			later = true
		}
	}
	if !later {
		return false
	}
	for _, n := range p.stack {
		if lit, ok := n.(*ast.FuncLit); ok && lit.Pos() > v.Pos() && lit.Pos() <= use.Pos() && use.End() <= lit.End() {
			return true
		}
	}
	return false
}

// sameSource reports whether two sources give the same value: the same
// expression, or two reads of the same variable or field (a field copied
// from c.http in two literals), which the walk follows the same way.
func (p *callCtx) sameSource(a, b *valSource) bool {
	if a.expr == b.expr {
		return true
	}
	if a.tuple || b.tuple || a.expr == nil || b.expr == nil {
		return false
	}
	va, vb := p.varOf(a.expr), p.varOf(b.expr)
	return va != nil && va == vb && va.IsField()
}

// escaped reports whether one of vars is handed to a function that may
// set its fields.
func (p *callCtx) escaped(vars []*types.Var) bool {
	ix := p.index()
	for _, v := range vars {
		for _, esc := range ix.escapes[v] {
			if p.mayConfigure(esc) {
				return true
			}
		}
	}
	return false
}

// mayConfigure reports whether the function of an escape may set fields of
// its argument: any function of another package or called dynamically; a
// function of this package that assigns to a field of that parameter or
// hands it on.
func (p *callCtx) mayConfigure(esc escape) bool {
	if esc.fn == nil {
		return true
	}
	decl := p.res.decls[esc.fn.Origin()]
	if decl == nil || decl.Body == nil {
		return true
	}
	sig, ok := esc.fn.Type().(*types.Signature)
	if !ok || sig.Variadic() && esc.arg >= sig.Params().Len()-1 || esc.arg >= sig.Params().Len() {
		return true
	}
	param := sig.Params().At(esc.arg)
	uses := func(e ast.Expr) bool {
		id, ok := astutil.Unparen(e).(*ast.Ident)
		return ok && p.info.Uses[id] == param
	}
	may := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if may {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				for x := astutil.Unparen(lhs); ; {
					sel, ok := x.(*ast.SelectorExpr)
					if !ok {
						break
					}
					if uses(sel.X) {
						may = true
					}
					x = astutil.Unparen(sel.X)
				}
			}
		case *ast.CallExpr:
			for _, a := range n.Args {
				if u, ok := astutil.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
					a = u.X
				}
				if uses(a) {
					if fn, _ := typeutil.Callee(p.info, n).(*types.Func); fn == nil || fn.Pkg() == nil || !knownPath(fn.Pkg().Path()) {
						may = true // handed on
					}
				}
			}
		}
		return true
	})
	return may
}

// keyed calls set for each keyed field of a struct literal, in order.
func keyed(lit *ast.CompositeLit, set func(name string, v ast.Expr)) {
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				set(id.Name, kv.Value)
			}
		}
	}
}

// applySets calls set for each field assignment made on any of vars, in
// order: what a value built by a literal or constructor is given later.
func (p *callCtx) applySets(vars []*types.Var, set func(name string, v ast.Expr)) {
	for _, s := range p.setsOn(vars) {
		set(s.name, s.rhs)
	}
}

// setsOn returns the field assignments made on any of vars.
func (p *callCtx) setsOn(vars []*types.Var) []fieldSet {
	ix := p.index()
	var out []fieldSet
	for _, v := range vars {
		out = append(out, ix.sets[v]...)
	}
	return out
}

// optList expands the variadic options of a call: the arguments from
// index i on, following a spread slice (opts...) to its composite literal
// and appends. complete is false when a spread cannot be followed or an
// append is conditional.
func (p *callCtx) optList(call *ast.CallExpr, i int) (opts []ast.Expr, complete bool) {
	if i > len(call.Args) {
		return nil, true
	}
	args := call.Args[i:]
	if !call.Ellipsis.IsValid() || len(args) == 0 {
		return args, true
	}
	opts = append(opts, args[:len(args)-1]...)
	more, ok := p.sliceElems(args[len(args)-1], 0)
	return append(opts, more...), ok
}

// sliceElems returns the elements a slice variable is built from. ok is
// false when some elements are not visible (a spread of another slice, a
// conditional append, a value from elsewhere); the visible ones, appended
// unconditionally, are still returned.
func (p *callCtx) sliceElems(e ast.Expr, depth int) (out []ast.Expr, ok bool) {
	if depth > 4 {
		return nil, false
	}
	e = astutil.Unparen(e)
	if cl, isLit := e.(*ast.CompositeLit); isLit {
		return cl.Elts, true
	}
	if call, isCall := e.(*ast.CallExpr); isCall {
		if id, isID := astutil.Unparen(call.Fun).(*ast.Ident); isID && id.Name == "append" {
			if _, isBuiltin := p.info.Uses[id].(*types.Builtin); isBuiltin && len(call.Args) > 0 {
				base, ok := p.sliceElems(call.Args[0], depth+1)
				if call.Ellipsis.IsValid() {
					more, ok2 := p.sliceElems(call.Args[len(call.Args)-1], depth+1)
					return append(append(base, call.Args[1:len(call.Args)-1]...), more...), ok && ok2
				}
				return append(base, call.Args[1:]...), ok
			}
		}
		return nil, false
	}
	v := p.varOf(e)
	if v == nil {
		return nil, false
	}
	srcs := p.index().vars[v]
	if len(srcs) == 0 {
		return nil, false
	}
	ok = true
	for _, s := range srcs {
		if s.unknown || s.tuple {
			ok = false
			continue
		}
		if s.cond {
			ok = false // may or may not run
			continue
		}
		switch x := astutil.Unparen(s.expr).(type) {
		case *ast.CompositeLit:
			out = append(out, x.Elts...)
		case *ast.CallExpr:
			id, isID := astutil.Unparen(x.Fun).(*ast.Ident)
			if !isID || id.Name != "append" || len(x.Args) == 0 || p.varOf(x.Args[0]) != v {
				ok = false
				continue
			}
			if x.Ellipsis.IsValid() {
				more, ok2 := p.sliceElems(x.Args[len(x.Args)-1], depth+1)
				out = append(append(out, x.Args[1:len(x.Args)-1]...), more...)
				ok = ok && ok2
				continue
			}
			out = append(out, x.Args[1:]...)
		case *ast.Ident:
			if x.Name != "nil" {
				ok = false
			}
		default:
			ok = false
		}
	}
	return out, ok
}

// funcLitOrFunc returns the closure handed as an operation, or the named
// function or method value.
func (p *callCtx) funcArg(e ast.Expr) (*ast.FuncLit, *types.Func) {
	e = astutil.Unparen(e)
	switch x := e.(type) {
	case *ast.FuncLit:
		return x, nil
	case *ast.Ident:
		if fn, ok := p.info.Uses[x].(*types.Func); ok {
			return nil, fn
		}
		// a local closure: op := func() error {...}
		if v, ok := p.info.Uses[x].(*types.Var); ok {
			if srcs := p.index().vars[v]; len(srcs) == 1 && !srcs[0].unknown && !srcs[0].tuple {
				if fl, ok := astutil.Unparen(srcs[0].expr).(*ast.FuncLit); ok {
					return fl, nil
				}
			}
		}
	case *ast.SelectorExpr:
		if fn, ok := p.info.Uses[x.Sel].(*types.Func); ok {
			return nil, fn
		}
	case *ast.CallExpr:
		// an operation made by a function of this package: makeOp(ctx)
		if r := p.returnedBy(x, 0); r != nil {
			if fl, ok := astutil.Unparen(r).(*ast.FuncLit); ok {
				return fl, nil
			}
		}
	case *ast.IndexExpr: // generic instantiation f[T]
		return p.funcArg(x.X)
	case *ast.IndexListExpr:
		return p.funcArg(x.X)
	}
	return nil, nil
}

// setOperation fills Body, Ops and OpFuncs from the operation argument.
func (p *callCtx) setOperation(l *Layer, arg ast.Expr) {
	lit, fn := p.funcArg(arg)
	if lit != nil {
		l.Body = lit.Body
		l.Ops = p.fallibleCalls(lit.Body)
		return
	}
	if fn != nil {
		l.OpFuncs = append(l.OpFuncs, fn)
	}
	l.OpParam = p.funcParam(arg) // handoff.go
}

// fallibleCalls lists the calls in body that return an error (the calls
// that can fail and be repeated), not descending into nested closures
// handed elsewhere.
func (p *pkgCtx) fallibleCalls(body ast.Node) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if p.fallible(call) && !p.libHelper(call) {
			out = append(out, call)
		}
		return true
	})
	return out
}

// libHelper reports calls of the retry libraries that mark errors
// (backoff.Permanent, retry.RetryableError, retry.Unrecoverable): they
// return an error but are not operations.
func (p *pkgCtx) libHelper(call *ast.CallExpr) bool {
	_, path := p.callee(call)
	switch path {
	case pkgBackoffV2, pkgBackoffV3, pkgBackoffV4, pkgBackoffV5, pkgRetryGo, pkgGoRetry:
		return true
	}
	return false
}

// findCall reports the first call in root to pkg.name (a function).
func (p *callCtx) findCall(root ast.Node, pkg, name string) *ast.CallExpr {
	var found *ast.CallExpr
	if root == nil {
		return nil
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && p.calleeIs(call, pkg, "", name) {
			found = call
			return false
		}
		return true
	})
	return found
}

// findCallDeep is findCall over root and the bodies of the package's
// functions that root calls directly (one level).
func (p *callCtx) findCallDeep(root ast.Node, fns []*types.Func, pkg, name string) *ast.CallExpr {
	if c := p.findCall(root, pkg, name); c != nil {
		return c
	}
	var callees []*types.Func
	callees = append(callees, fns...)
	if root != nil {
		ast.Inspect(root, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn := typeutil.StaticCallee(p.info, call); fn != nil {
					callees = append(callees, fn)
				}
			}
			return true
		})
	}
	for _, fn := range callees {
		if d := p.res.decls[fn.Origin()]; d != nil && d.Body != nil {
			if c := p.findCall(d.Body, pkg, name); c != nil {
				return c
			}
		}
	}
	return nil
}

// expSchedule renders the first waits of base*factor^i capped at max
// (max 0: no cap), at most n of them.
func expWaits(base time.Duration, factor float64, max time.Duration, n int) []time.Duration {
	if n > maxListedWaits {
		n = maxListedWaits
	}
	var out []time.Duration
	cur := float64(base)
	for i := 0; i < n; i++ {
		d := time.Duration(cur)
		if max > 0 && (d > max || cur > float64(max)) {
			d = max
		}
		out = append(out, d)
		cur *= factor
	}
	return out
}

// maxListedWaits bounds the waits listed for long or unbounded schedules.
const maxListedWaits = 8

// waitCount is how many waits to list for attempts (unbounded: the first few).
func waitCount(attempts Value) int {
	if attempts.Known && attempts.N > 0 {
		return int(min(attempts.N-1, maxListedWaits))
	}
	if attempts.Known && attempts.N == 0 {
		return 5
	}
	return 0
}

// fd renders a duration for Schedule texts.
func fd(d time.Duration) string { return durconst.Format(d) }
