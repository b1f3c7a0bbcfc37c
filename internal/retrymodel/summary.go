package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Function summaries: what a function does for a retry, stated in terms
// of its parameters, so a helper counts the same wherever and however it
// is written (a guard in the loop or in `roomFor(ctx, wait+reserve)`, a
// wait of a bare parameter or of one the helper computes). Each summary is
// computed once per package function and exported in the FuncFact, so
// helpers in other packages compose the same way.

// guardSummary: the function returns whether the time left before the
// deadline of a context covers parameter need (func roomFor(ctx, d) bool
// { dl, ok := ctx.Deadline(); ...; return time.Until(dl) >= d }).
type guardSummary struct {
	need    int           // index of the duration parameter the time left is compared with
	reserve time.Duration // a constant the guard adds to it (wait + 8*time.Second)
	pos     token.Pos
}

// guardOf returns fn's guard summary: from its body for a function of this
// package, from its fact for an imported one.
func (p *pkgCtx) guardOf(fn *types.Func) (guardSummary, bool) {
	if fn == nil {
		return guardSummary{}, false
	}
	fn = fn.Origin()
	if g, ok := p.guards[fn]; ok {
		return g, g.pos.IsValid()
	}
	if fn.Pkg() != p.pass.Pkg {
		var f FuncFact
		if fn.Pkg() != nil && p.pass.ImportObjectFact(fn, &f) && f.GuardArg > 0 {
			return guardSummary{need: f.GuardArg - 1, reserve: f.GuardReserve, pos: fn.Pos()}, true
		}
		return guardSummary{}, false
	}
	if p.guards == nil {
		p.guards = make(map[*types.Func]guardSummary)
	}
	p.guards[fn] = guardSummary{} // recursion stops here
	decl := p.res.decls[fn]
	sig, _ := fn.Type().(*types.Signature)
	if decl == nil || decl.Body == nil || sig == nil || sig.Results().Len() != 1 || !isBool(sig.Results().At(0).Type()) {
		return guardSummary{}, false
	}
	var g guardSummary
	// need reads what the time left is compared with: a duration
	// parameter, alone or plus a constant.
	need := func(e ast.Expr, at token.Pos) {
		var reserve time.Duration
		if b, ok := astutil.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.ADD {
			if d, ok := p.fold.Duration(b.Y); ok {
				e, reserve = b.X, d
			} else if d, ok := p.fold.Duration(b.X); ok {
				e, reserve = b.Y, d
			}
		}
		id, ok := astutil.Unparen(e).(*ast.Ident)
		if !ok {
			return
		}
		for i := 0; i < sig.Params().Len(); i++ {
			if p.info.Uses[id] == sig.Params().At(i) {
				g = guardSummary{need: i, reserve: reserve, pos: at}
			}
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if g.pos.IsValid() {
			return false
		}
		// now.Add(d).Before(dl): the time left covers d.
		if call, ok := n.(*ast.CallExpr); ok {
			if e, ok := p.timeCompare(call); ok {
				need(e, call.Pos())
			}
			return true
		}
		b, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		switch b.Op {
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
		default:
			return true
		}
		// The time left on one side, what it must cover on the other:
		// return time.Until(dl) >= d, or if d > time.Until(dl) { return false }.
		left, right := b.X, b.Y
		if !p.remainingTime(left, decl, 0) {
			left, right = b.Y, b.X
		}
		if !p.remainingTime(left, decl, 0) {
			return true
		}
		need(right, b.Pos())
		return true
	})
	p.guards[fn] = g
	return g, g.pos.IsValid()
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

// guardCall reads a call of a guard helper as the guard it makes: the
// argument the helper compares with the time left is wait + reserve.
func (p *pkgCtx) guardCall(call *ast.CallExpr, wait *types.Var) *Guard {
	g, ok := p.guardOf(typeutil.StaticCallee(p.info, call))
	if !ok || g.need >= len(call.Args) {
		return nil
	}
	return p.newGuard(call, call.Args[g.need], wait, g.reserve)
}

// raisedBase reads a local that starts from a base value and is only ever
// raised (`wait := backoff(i); if ra > wait { wait = ra }`, or
// `wait = max(wait, ra)`): its value is at least the base. It returns the
// base, or nil when v is assigned any other way.
func (p *pkgCtx) raisedBase(v *types.Var) ast.Expr {
	if v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	var base ast.Expr
	bases, other := 0, false
	var conds []ast.Expr // the conditions of the ifs around the node being visited
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if n.Init != nil {
				ast.Inspect(n.Init, visit)
			}
			conds = append(conds, n.Cond)
			ast.Inspect(n.Body, visit)
			conds = conds[:len(conds)-1]
			if n.Else != nil {
				ast.Inspect(n.Else, visit)
			}
			return false
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				id, ok := astutil.Unparen(lhs).(*ast.Ident)
				if !ok || (p.info.Defs[id] != v && p.info.Uses[id] != v) {
					continue
				}
				if len(n.Rhs) != len(n.Lhs) || (n.Tok != token.DEFINE && n.Tok != token.ASSIGN) {
					other = true
					continue
				}
				rhs := n.Rhs[i]
				if p.raises(v, rhs, conds) {
					continue
				}
				bases++
				base = rhs
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if p.info.Defs[id] == v {
					bases++
					if i < len(n.Values) {
						base = n.Values[i]
					}
				}
			}
		case *ast.IncDecStmt, *ast.UnaryExpr:
			var x ast.Expr
			switch n := n.(type) {
			case *ast.IncDecStmt:
				x = n.X
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					x = n.X
				}
			}
			if id, ok := astutil.Unparen(x).(*ast.Ident); ok && p.info.Uses[id] == v {
				other = true
			}
		}
		return true
	}
	for _, f := range p.pass.Files {
		if v.Pos() < f.Pos() || v.Pos() > f.End() {
			continue
		}
		ast.Inspect(p.funcScope(&ast.Ident{NamePos: v.Pos()}), visit)
	}
	if other || bases != 1 {
		return nil
	}
	return base
}

// raises reports an assignment v = rhs that can only make v larger: rhs is
// max(v, x), or x under a condition x > v (v < x).
func (p *pkgCtx) raises(v *types.Var, rhs ast.Expr, conds []ast.Expr) bool {
	isV := func(e ast.Expr) bool {
		id, ok := astutil.Unparen(e).(*ast.Ident)
		return ok && p.info.Uses[id] == v
	}
	if call, ok := astutil.Unparen(rhs).(*ast.CallExpr); ok {
		if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok {
			if b, ok := p.info.Uses[id].(*types.Builtin); ok && b.Name() == "max" {
				for _, a := range call.Args {
					if isV(a) {
						return true
					}
				}
			}
		}
	}
	same := func(a, b ast.Expr) bool {
		return types.ExprString(astutil.Unparen(a)) == types.ExprString(astutil.Unparen(b))
	}
	for _, c := range conds {
		b, ok := astutil.Unparen(c).(*ast.BinaryExpr)
		if !ok {
			continue
		}
		switch {
		case (b.Op == token.GTR || b.Op == token.GEQ) && isV(b.Y) && same(b.X, rhs),
			(b.Op == token.LSS || b.Op == token.LEQ) && isV(b.X) && same(b.Y, rhs):
			return true
		}
	}
	return false
}

// predSummary is what a classifier helper returns on success: called with
// a nil error and a successful response, a retry predicate
// (shouldRetry(resp, err)) returns false, an ok predicate (done(resp,
// err)) true. Unknown when the body does not say.
func (p *pkgCtx) predOnSuccess(fn *types.Func) Tri {
	if fn == nil {
		return Unknown
	}
	fn = fn.Origin()
	if t, ok := p.preds[fn]; ok {
		return t
	}
	if p.preds == nil {
		p.preds = make(map[*types.Func]Tri)
	}
	p.preds[fn] = Unknown
	decl := p.res.decls[fn]
	sig, _ := fn.Type().(*types.Signature)
	if decl == nil || decl.Body == nil || sig == nil || sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
		return Unknown
	}
	s := &loopShape{errs: make(map[*types.Var]*ast.CallExpr), results: make(map[*types.Var]bool)}
	for i := 0; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		if isErrorType(v.Type()) {
			s.errs[v] = nil
		} else {
			s.results[v] = true
		}
	}
	if len(s.errs) == 0 && len(s.results) == 0 {
		return Unknown
	}
	t, _, _ := evalStmts(successEval{p, s}, decl.Body.List)
	p.preds[fn] = t
	return t
}

// errPredOnSuccess is what a predicate handed the loop's error answers
// when the operation succeeded (its error nil): by its body here, by its
// FuncFact for another package's (protocol.IsACK(result), true for nil).
func (p *pkgCtx) errPredOnSuccess(c *ast.CallExpr, s *loopShape) Tri {
	fn := typeutil.StaticCallee(p.info, c)
	if fn == nil || !slices.ContainsFunc(c.Args, func(a ast.Expr) bool { return p.mentionsErr(a, s) }) {
		return Unknown
	}
	if fn.Pkg() == p.pass.Pkg {
		return p.ackPred(fn)
	}
	if ff := p.res.Func(fn); ff != nil {
		return ff.OnSuccess
	}
	return Unknown
}

// ackPred is Yes for a predicate that says a nil error is a success in so
// many words: it tests its error parameter against nil and answers true
// there (IsACK: "nil also means ACK"). A classifier only ever handed a
// failure (retryable(err) = !errors.Is(err, io.ErrUnexpectedEOF)) may
// answer true for nil by accident: that makes it no success test.
func (p *pkgCtx) ackPred(fn *types.Func) Tri {
	fn = fn.Origin()
	decl := p.res.decls[fn]
	if decl == nil || decl.Body == nil || !errPredicate(fn) || p.predOnSuccess(fn) != Yes {
		return Unknown
	}
	sig := fn.Type().(*types.Signature)
	nilTested := contains(decl.Body, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.EQL {
			return false
		}
		for _, side := range []ast.Expr{b.X, b.Y} {
			id, ok := astutil.Unparen(side).(*ast.Ident)
			if !ok || !isNil(p.info, other(b, side)) {
				continue
			}
			for i := 0; i < sig.Params().Len(); i++ {
				if v := sig.Params().At(i); isErrorType(v.Type()) && p.info.Uses[id] == v {
					return true
				}
			}
		}
		return false
	})
	if !nilTested {
		return Unknown
	}
	return Yes
}

// errPredicate reports a function of bool result handed an error: the
// functions whose answer on success a FuncFact carries.
func errPredicate(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
		return false
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if isErrorType(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// successEval reads a classifier on the success path: locals and calls do
// not change the answer's side; an if's init is not followed.
type successEval struct {
	p *pkgCtx
	s *loopShape
}

func (e successEval) cond(x ast.Expr) Tri             { return e.p.holdsOnSuccess(x, e.s) }
func (e successEval) bind(_ ast.Stmt, init bool) bool { return !init }

// holdsOnSuccess says whether a condition holds when the error is nil and
// the response succeeded.
func (p *pkgCtx) holdsOnSuccess(e ast.Expr, s *loopShape) Tri {
	e = astutil.Unparen(e)
	if tv, ok := p.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		if constant.BoolVal(tv.Value) {
			return Yes
		}
		return No
	}
	switch c := e.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			switch p.holdsOnSuccess(c.X, s) {
			case Yes:
				return No
			case No:
				return Yes
			}
			return Unknown
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LOR, token.LAND:
			x, y := p.holdsOnSuccess(c.X, s), p.holdsOnSuccess(c.Y, s)
			if c.Op == token.LOR {
				return x.Or(y)
			}
			return x.And(y)
		case token.EQL, token.NEQ:
			if t := p.absentHeader(c, s); t != Unknown {
				return t
			}
			if t := p.nilResult(c, s); t != Unknown {
				return t
			}
		}
	case *ast.CallExpr:
		// errors.Is(nil, x) and errors.As(nil, &e) are false; another
		// classifier is what its own summary says.
		fn := typeutil.StaticCallee(p.info, c)
		if isFunc(fn, "errors", "Is") || isFunc(fn, "errors", "As") {
			return No
		}
		if fn != nil && fn.Pkg() == p.pass.Pkg {
			return p.predOnSuccess(fn)
		}
		return Unknown
	}
	switch p.condIs(e, s, false) {
	case successPath:
		return Yes
	case failurePath:
		return No
	}
	return Unknown
}

// leavesPred reports `!shouldRetry(resp, err)` (or `done(resp, err)`)
// on the operation's results: it holds on success and on a failure not
// worth retrying, so its branch is where the retry leaves.
func (p *pkgCtx) leavesPred(cond ast.Expr, s *loopShape) bool {
	cond = astutil.Unparen(cond)
	want := Yes
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		cond, want = astutil.Unparen(u.X), No
	}
	if id, ok := cond.(*ast.Ident); ok {
		// retry, delay := classify(err, attempt); if !retry { ... }
		if v := p.identVar(id); v != nil {
			if call := p.verdictCall(v); call != nil {
				// retry := shouldRetry(resp.StatusCode); if !retry { break }
				cond = call
			} else if want == No && p.failureFlag(v, s) {
				return true // if !shouldRetry { break } (failureflag.go)
			}
		}
	}
	if b, ok := cond.(*ast.BinaryExpr); ok && b.Op == token.LOR && want == Yes {
		// !shouldRetry(req, res) || n >= max: holds whenever either side does.
		return p.leavesPred(b.X, s) || p.leavesPred(b.Y, s)
	}
	call, ok := cond.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := typeutil.StaticCallee(p.info, call)
	if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && (fn.Name() == "Is" || fn.Name() == "As") && len(call.Args) == 2 {
		// errors.As(err, &e) is false for a nil error: !errors.As(...)
		// holds on success, as a predicate answering no for it does.
		return want == No && p.mentionsErr(call.Args[0], s)
	}
	if fn == nil || fn.Pkg() != p.pass.Pkg {
		return false
	}
	uses, status := false, false
	for _, a := range call.Args {
		uses = uses || p.mentionsErr(a, s) || p.mentionsResult(a, s)
		status = status || p.mentionsResult(a, s) && p.res.StatusOf(a) != NoStatus
	}
	if !uses {
		return false
	}
	switch p.predOnSuccess(fn) {
	case want:
		return true
	case Unknown:
		// A decision on the answer's status code whose verdict for a
		// success cannot be evaluated (matched against a configured list
		// of code strings): the branch that leaves is the side not retried,
		// as for an inline test of the code.
		return status
	}
	return false
}

// waitHelper summarises a helper that waits a duration it computes: from
// its parameters (time.Second << attempt), its receiver's fields
// (p.base * n) or constants. The helper must do nothing else that can
// fail: a function that also makes calls is not a wait.
func (p *pkgCtx) waitHelper(decl *ast.FuncDecl, sig *types.Signature, w waitSite) (waitInfo, bool) {
	fallible := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && p.fallible(call) {
			fallible = true
		}
		return !fallible
	})
	if fallible {
		return waitInfo{}, false
	}
	return waitInfo{arg: -1, cancellable: w.cancellable == Yes, dur: w.dur, decl: decl}, true
}

// evalWait folds the duration of one wait under bind to an interval (a
// random part spans its range; an exact wait is lo == hi); a helper's
// computed duration is folded with its parameters and receiver bound to
// the call's arguments.
func (p *pkgCtx) evalWait(w *waitSite, bind env) (interval, bool) {
	if w.table != nil {
		i := int64(0)
		if w.tableArg >= 0 {
			if w.tableArg >= len(w.call.Args) {
				return interval{}, false
			}
			c, ok := p.eval(w.call.Args[w.tableArg], bind, 1)
			if !ok {
				return interval{}, false
			}
			if i, ok = toInt64(c); !ok {
				return interval{}, false
			}
		}
		if i < 0 || i >= int64(len(w.table)) {
			return interval{}, false
		}
		d := float64(w.table[i])
		return interval{d, d}, true
	}
	if w.helper != nil && w.call != nil {
		fn, _ := p.info.Defs[w.helper.Name].(*types.Func)
		if fn == nil {
			return interval{}, false
		}
		inner, ok := p.bindParams(fn, w.call.Args, bind, 1)
		if !ok {
			return interval{}, false
		}
		bind = inner
	}
	return p.evalInterval(w.dur, bind, 0)
}

// verdictCall returns the call whose first result is the one value a
// local holds (retry, delay := classify(err); retry := pred(code)): a
// classifier's verdict kept in a variable. Nil otherwise.
func (p *pkgCtx) verdictCall(v *types.Var) *ast.CallExpr {
	if call, i := p.tupleDef(v); call != nil {
		if i == 0 {
			return call
		}
		return nil
	}
	call, _ := astutil.Unparen(p.singleDef(v)).(*ast.CallExpr)
	return call
}

// tupleDef returns the call whose result i is the only value a local is
// ever given (retry, delay := classify(err, attempt)).
func (p *pkgCtx) tupleDef(v *types.Var) (*ast.CallExpr, int) {
	n, i := p.localDef(v, true, false)
	if as, ok := n.(*ast.AssignStmt); ok && len(as.Rhs) == 1 && len(as.Lhs) > 1 {
		if call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
			return call, i
		}
	}
	return nil, 0
}

// evalResult folds result i of a call to a package helper: the value its
// returns give it on the retry path (returns whose first result is not
// false), when they agree.
func (p *pkgCtx) evalResult(call *ast.CallExpr, i int, bind env, depth int) (constant.Value, bool) {
	fn := typeutil.StaticCallee(p.info, call)
	decl := p.res.decls[fn]
	if decl == nil || decl.Body == nil || depth > 16 {
		return nil, false
	}
	sig := fn.Type().(*types.Signature)
	if i >= sig.Results().Len() {
		return nil, false
	}
	inner, ok := p.bindParams(fn, call.Args, bind, depth+1)
	if !ok {
		return nil, false
	}
	var out constant.Value
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit || !ok {
			return false
		}
		ret, isRet := n.(*ast.ReturnStmt)
		if !isRet {
			return true
		}
		if len(ret.Results) != sig.Results().Len() {
			ok = false
			return false
		}
		if isBool(sig.Results().At(0).Type()) {
			if tv, k := p.info.Types[ret.Results[0]]; k && tv.Value != nil && tv.Value.Kind() == constant.Bool && !constant.BoolVal(tv.Value) {
				return false // gives up: its delay is never waited
			}
		}
		v, k := p.eval(ret.Results[i], inner, depth+1)
		if !k || out != nil && !constant.Compare(v, token.EQL, out) {
			ok = false
			return false
		}
		out = v
		return false
	})
	if !ok || out == nil {
		return nil, false
	}
	return out, true
}

// okResult returns the ok variable of an operation with no error result
// whose last result is a bool (v, ok := c.lookup(ctx, key)): an operation,
// not a local lookup, because it takes a context.
func (p *pkgCtx) okResult(call *ast.CallExpr, lhs []ast.Expr) *types.Var {
	t, ok := p.info.TypeOf(call).(*types.Tuple)
	if !ok || t.Len() < 2 || t.Len() != len(lhs) || !isBool(t.At(t.Len()-1).Type()) {
		return nil
	}
	ctxArg := false
	for _, a := range call.Args {
		ctxArg = ctxArg || IsContext(p.info.TypeOf(a))
	}
	if !ctxArg {
		return nil
	}
	id, ok := astutil.Unparen(lhs[len(lhs)-1]).(*ast.Ident)
	if !ok {
		return nil
	}
	return p.identVar(id)
}

// waitTable tabulates a computed wait for the fact: the wait for each value
// of the helper's one integer parameter it depends on (0..maxSchedule-1),
// or the one constant it waits. Nil when the wait depends on anything else.
func (p *pkgCtx) waitTable(fn *types.Func, w waitInfo) ([]time.Duration, int) {
	if w.dur == nil {
		return nil, 0
	}
	sig := fn.Type().(*types.Signature)
	arg := -1
	for i := 0; i < sig.Params().Len(); i++ {
		if isIntegral(sig.Params().At(i).Type()) && mentionsVar(p.info, w.dur, sig.Params().At(i)) {
			if arg >= 0 {
				return nil, 0
			}
			arg = i
		}
	}
	n := 1
	var param *types.Var
	if arg >= 0 {
		n, param = maxSchedule, sig.Params().At(arg)
	}
	out := foldTable(n, param, func(bind env) (constant.Value, bool) { return p.eval(w.dur, bind, 1) })
	if out == nil {
		return nil, 0
	}
	return out, arg
}

// foldTable folds a duration for param = 0 .. n-1 (param nil: once, with
// nothing bound); nil when one of them does not fold.
func foldTable(n int, param *types.Var, fold func(env) (constant.Value, bool)) []time.Duration {
	out := make([]time.Duration, 0, n)
	for k := range n {
		bind := env{}
		if param != nil {
			bind[param] = constant.MakeInt64(int64(k))
		}
		c, ok := fold(bind)
		if !ok {
			return nil
		}
		d, ok := toInt64(c)
		if !ok {
			return nil
		}
		out = append(out, time.Duration(d))
	}
	return out
}

// durTable folds, for an exported function of one integer parameter that
// returns a time.Duration, what it returns for 0 .. maxSchedule-1 (nil
// when any of them does not fold).
func (p *pkgCtx) durTable(fn *types.Func, decl *ast.FuncDecl) []time.Duration {
	sig := fn.Type().(*types.Signature)
	if !fn.Exported() || sig.Recv() != nil || sig.Params().Len() != 1 || sig.Results().Len() != 1 ||
		!isIntegral(sig.Params().At(0).Type()) || !isDuration(sig.Results().At(0).Type()) {
		return nil
	}
	return foldTable(maxSchedule, sig.Params().At(0), func(bind env) (constant.Value, bool) { return p.evalBody(decl.Body, bind, 1) })
}

// iteratorLayer makes the layer of a range over yielded attempts: the body
// tries the operation, its success leaves, and the helper waits before it
// yields the next attempt.
func (p *pkgCtx) iteratorLayer(r *ast.RangeStmt, waits []waitSite, fnNode ast.Node) *Layer {
	if len(p.waitsIn(r.Body)) > 0 {
		return nil
	}
	shape := p.shape(r, r.Body, nil)
	if len(shape.errs) == 0 || !shape.success || shape.again || p.varies(r.Body, shape) {
		return nil
	}
	l := &Layer{Kind: Loop, Name: "retry loop (yielded attempts)", Pos: r.Pos(), Node: r, Body: r.Body, Ops: shape.ops}
	for _, w := range waits {
		l.Waits = append(l.Waits, w.node)
	}
	l.Context = p.opContext(shape.ops)
	p.loopPolicy(l, r, r.Body, nil, waits, shape, fnNode)
	return l
}

// fallbackAfter finds the first fallible call after a loop that can end
// without returning (its condition fails, or it breaks): what the function
// does once the retry gives up.
func (p *pkgCtx) fallbackAfter(loop ast.Node, cond ast.Expr, stack []ast.Node) token.Pos {
	if len(stack) < 2 {
		return token.NoPos
	}
	f, ok := loop.(*ast.ForStmt)
	if !ok {
		return token.NoPos
	}
	ends := cond != nil
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if br, ok := n.(*ast.BranchStmt); ok && br.Tok == token.BREAK && p.branchLeaves(br, loop) {
			ends = true
		}
		_, lit := n.(*ast.FuncLit)
		return !ends && !lit
	})
	if !ends {
		return token.NoPos
	}
	parent := stack[len(stack)-2]
	var node ast.Node = loop
	if ls, ok := parent.(*ast.LabeledStmt); ok && len(stack) >= 3 {
		node, parent = ls, stack[len(stack)-3]
	}
	block, ok := parent.(*ast.BlockStmt)
	if !ok {
		return token.NoPos
	}
	after := false
	var pos token.Pos
	for _, st := range block.List {
		if st == node {
			after = true
			continue
		}
		if !after || pos.IsValid() {
			continue
		}
		ast.Inspect(st, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && p.fallible(call) && !pos.IsValid() {
				pos = call.Pos()
			}
			_, lit := n.(*ast.FuncLit)
			return !pos.IsValid() && !lit
		})
		if _, ret := st.(*ast.ReturnStmt); ret {
			break
		}
	}
	return pos
}

// timeCompare reads a comparison of instants made with time.Time's Before
// or After, between a clock read (plus what must fit) and a deadline:
// c.now().Add(d).Before(dl), dl.After(time.Now().Add(d)). It returns d,
// what the time left must cover for the comparison to hold (nil for a
// bare clock read); ok is false for any other call.
func (p *pkgCtx) timeCompare(call *ast.CallExpr) (ast.Expr, bool) {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) != 1 {
		return nil, false
	}
	fn, _ := p.info.Uses[sel.Sel].(*types.Func)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" || fn.Name() != "Before" && fn.Name() != "After" {
		return nil, false
	}
	// Before: the clock side is the receiver; After: the argument.
	clock, other := sel.X, call.Args[0]
	if fn.Name() == "After" {
		clock, other = other, clock
	}
	if p.clockNow(other, 0) {
		return nil, false
	}
	if p.clockNow(clock, 0) {
		return nil, true
	}
	add, ok := astutil.Unparen(clock).(*ast.CallExpr)
	if !ok || len(add.Args) != 1 {
		return nil, false
	}
	asel, ok := astutil.Unparen(add.Fun).(*ast.SelectorExpr)
	if !ok || !isFunc(typeutil.StaticCallee(p.info, add), "time", "Add") || !p.clockNow(asel.X, 0) {
		return nil, false
	}
	return add.Args[0], true
}

// guardFirstWait folds the guard's own reading of the wait on the first
// turn (schedule's binding). It matters where the guard reads a base wait
// and a pause helper then spreads it (enoughTime(ctx, wait); pause(ctx,
// wait) sleeping wait/2 + rand(wait/2)): the time the guard asks for is
// the base, not the jittered sleep the schedule lists.
func (p *pkgCtx) guardFirstWait(g *Guard) {
	if g == nil || g.WaitExpr == nil || p.firstTurn == nil {
		return
	}
	saved := p.atLeast
	p.atLeast = false
	c, ok := p.eval(g.WaitExpr, p.firstTurn, 0)
	atLeast := p.atLeast
	p.atLeast = saved
	if !ok {
		return
	}
	d, ok := toInt64(c)
	if !ok || d < 0 {
		return
	}
	g.FirstWait = Value{Set: true, Known: true, D: time.Duration(d), Pos: g.WaitExpr.Pos()}
	g.AtLeast = atLeast
}
