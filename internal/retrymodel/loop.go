package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A hand-rolled retry loop is a loop that
//   - calls a fallible operation (a call with an error result),
//   - leaves the loop when it succeeded (a return, break or goto out on the
//     err == nil path, or a loop condition err != nil),
//   - never runs again after a success (no continue, wait or fall-through
//     on the success path: that is a poller),
//   - waits between attempts (or is bounded by a counter),
//   - and repeats the same request (the operation's arguments do not
//     change with the previous result: that is pagination).
// Tickers, range loops over channels and collections, and worker loops do
// not qualify. A range over a collection that tries each element once
// without waiting is recorded as a Fallback.

// loopShape is what the detector learns of one loop body.
type loopShape struct {
	errs     map[*types.Var]*ast.CallExpr // error variables and the call that set them
	results  map[*types.Var]bool          // other results of those calls (resp)
	resultOf map[*types.Var]*types.Var    // the error variable assigned beside each result
	ops      []*ast.CallExpr
	success  bool // an exit on the success path
	again    bool // the loop runs again after a success
	failWait bool // a wait on the failure path (or before the error is known)
	decide   []ast.Expr
	class    ast.Expr    // first condition that gives up on a failure
	self     *types.Func // for recursion: the function that calls itself again
	// cur is, while walkPaths runs, the call that last set each error
	// variable: `if err != nil` after req, err := http.NewRequest(...)
	// speaks of building the request, not of the retried operation.
	cur map[*types.Var]*ast.CallExpr
	// flags caches failureFlag's answers (failureflag.go).
	flags map[*types.Var]bool
}

func (p *pkgCtx) loopLayer(n ast.Node, fnNode ast.Node, stack []ast.Node) *Layer {
	if fnNode == nil {
		return nil
	}
	var body *ast.BlockStmt
	var cond ast.Expr
	switch n := n.(type) {
	case *ast.ForStmt:
		body, cond = n.Body, n.Cond
		if pb := p.postAttempt(n); pb != nil {
			body = pb
		}
	case *ast.RangeStmt:
		body = n.Body
		if ws := p.attemptSource(n.X); ws != nil {
			return p.iteratorLayer(n, ws, fnNode)
		}
		if !p.rangeCounts(n) {
			if _, ok := p.info.TypeOf(n.X).Underlying().(*types.Chan); !ok {
				p.fallback(n, n.Body)
			}
			return nil
		}
	}
	waits := p.waitsIn(body)
	for _, w := range waits {
		if w.ticker {
			return nil
		}
	}
	if f, ok := n.(*ast.ForStmt); ok && p.walksCollection(f, waits) {
		if len(waits) == 0 {
			p.fallback(f, f.Body)
		}
		return nil
	}
	fw := p.flagWaits(body) // opwait.go: the operation waits and says "again"
	waits = append(waits, fw...)
	if len(waits) == 0 && !p.counted(n) {
		return nil // the common case, decided before the path walk
	}
	shape := p.shape(n, body, cond)
	if len(shape.errs) == 0 || !shape.success || shape.again {
		return nil
	}
	shape.failWait = shape.failWait || len(fw) > 0
	if len(waits) > 0 && !shape.failWait {
		return nil
	}
	if p.varies(body, shape) || len(waits) == 0 && p.drawsCandidates(shape) {
		return nil
	}
	if len(waits) == 0 && p.walksByIndex(n, body, shape) {
		p.fallback(n, body)
		return nil
	}
	if _, isFor := n.(*ast.ForStmt); isFor && p.retryNot(body, shape, waits, fnNode) != "" {
		return nil
	}
	l := &Layer{Kind: Loop, Name: "retry loop", Pos: n.Pos(), Node: n, Body: body, Ops: shape.ops}
	for _, w := range waits {
		l.Waits = append(l.Waits, w.node)
	}
	l.Context = p.opContext(shape.ops)
	p.loopPolicy(l, n, body, cond, waits, shape, fnNode)
	p.flagPolicy(l, fw)
	l.Policy.Fallback = p.fallbackAfter(n, cond, stack)
	return l
}

// postAttempt reads `for err := op(); err != nil; err = op() { wait }`,
// whose attempts are the for clause's init and post statements, as the
// loop `err := op(); for err != nil { wait; err = op() }`: the body with
// the post statement as its last statement, spanning from the post
// statement to the body's end so that the attempt is inside the retried
// region. Nil when the post statement makes no fallible call that sets a
// variable the condition tests.
func (p *pkgCtx) postAttempt(f *ast.ForStmt) *ast.BlockStmt {
	as, ok := f.Post.(*ast.AssignStmt)
	if !ok || f.Cond == nil || len(as.Rhs) != 1 || f.Body == nil {
		return nil
	}
	call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok || !p.fallible(call) {
		return nil
	}
	tested := false
	for _, lhs := range as.Lhs {
		if v := p.varOf(lhs); v != nil && p.mentions(f.Cond, func(w *types.Var) bool { return w == v }) {
			tested = true
		}
	}
	if !tested {
		return nil
	}
	list := append(append([]ast.Stmt(nil), f.Body.List...), as)
	return &ast.BlockStmt{Lbrace: as.Pos(), List: list, Rbrace: f.Body.Rbrace}
}

// rangeCounts reports whether a range loop counts attempts (range n, range
// over an integer) rather than walking a collection or channel.
func (p *pkgCtx) rangeCounts(r *ast.RangeStmt) bool {
	t := p.info.TypeOf(r.X)
	return t != nil && isIntegral(t)
}

// fallback records a walk over a collection (a range, or a for loop that
// indexes it by its counter) that tries each element once and stops at
// the first success, without waiting.
func (p *pkgCtx) fallback(loop ast.Node, body *ast.BlockStmt) {
	if len(p.waitsIn(body)) > 0 {
		return
	}
	shape := p.shape(loop, body, nil)
	if len(shape.errs) == 0 || !shape.success || shape.again {
		return
	}
	p.res.Fallbacks = append(p.res.Fallbacks, &Fallback{Pos: loop.Pos(), Node: loop, Ops: shape.ops})
}

// walksCollection reports a for loop that walks a collection by index,
// for i := 0; i < len(xs); i++, and hands xs[i] to something other than
// its waits: each turn tries another element (servers, endpoints), as a
// range over xs would. A loop that reads its waits from a slice
// (time.Sleep(backoff[i]), d := pauses[i]) still repeats one operation.
// The collection may be an object that counts its own elements and hands
// out the i-th: i < typ.NumField() with typ.Field(i), i < l.Len() with
// l.At(i) (the same receiver in the bound and the read).
func (p *pkgCtx) walksCollection(f *ast.ForStmt, waits []waitSite) bool {
	c, ok := astutil.Unparen(f.Cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.LSS && c.Op != token.LEQ {
		return false
	}
	i, ok := astutil.Unparen(c.X).(*ast.Ident)
	call, isCall := astutil.Unparen(c.Y).(*ast.CallExpr)
	if !ok || !isCall || p.identVar(i) == nil {
		return false
	}
	inWait := func(n ast.Node) bool {
		return slices.ContainsFunc(waits, func(w waitSite) bool { return w.node.Pos() <= n.Pos() && n.End() <= w.node.End() })
	}
	isI := func(e ast.Expr) bool {
		id, ok := astutil.Unparen(e).(*ast.Ident)
		return ok && p.identVar(id) == p.identVar(i)
	}
	// i < obj.Count(): the body reads obj.Elem(i).
	if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && len(call.Args) == 0 {
		if sig, ok := p.info.TypeOf(call.Fun).(*types.Signature); !ok || sig.Results().Len() != 1 || !isIntegral(sig.Results().At(0).Type()) {
			return false
		}
		if p.info.Selections[sel] == nil {
			return false // a package function, not a method of the collection
		}
		obj := types.ExprString(sel.X)
		return contains(f.Body, func(n ast.Node) bool {
			rc, ok := n.(*ast.CallExpr)
			if !ok || inWait(rc) || len(rc.Args) != 1 || !isI(rc.Args[0]) {
				return false
			}
			rs, ok := astutil.Unparen(rc.Fun).(*ast.SelectorExpr)
			return ok && rs != sel && types.ExprString(rs.X) == obj && handsOutElem(p.info.TypeOf(rc))
		})
	}
	if len(call.Args) != 1 {
		return false
	}
	fun, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	if b, ok := p.info.Uses[fun].(*types.Builtin); !ok || b.Name() != "len" {
		return false
	}
	// A slice of durations or numbers is a schedule read by the attempt
	// (waits raised by a hint, a table of pauses), not things to try.
	if t, ok := p.info.TypeOf(call.Args[0]).Underlying().(*types.Slice); !ok {
		if _, isArr := p.info.TypeOf(call.Args[0]).Underlying().(*types.Array); !isArr {
			return false
		}
	} else if b, ok := t.Elem().Underlying().(*types.Basic); ok && b.Info()&types.IsNumeric != 0 {
		return false
	}
	coll := types.ExprString(call.Args[0])
	return contains(f.Body, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		return ok && types.ExprString(ix.X) == coll && !inWait(ix) && isI(ix.Index)
	})
}

// handsOutElem reports the result of an element read, obj.At(i): one
// value that is not a number or a bool. A retry policy object read by the
// attempt (s.Delay(attempt) a duration, s.ShouldRetry(attempt, ...) a
// verdict) hands out no element, though its bound is s.Max() as well.
func handsOutElem(t types.Type) bool {
	if t == nil {
		return false
	}
	if _, isTuple := t.(*types.Tuple); isTuple {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return !ok || b.Info()&(types.IsNumeric|types.IsBoolean) == 0
}

// counted: a loop without a wait is a retry candidate only when a counter
// bounds it (for i := 0; i < n; i++, range n): an uncounted loop that does
// not wait is a worker, a drain or a spin, never a retry of its own.
func (p *pkgCtx) counted(n ast.Node) bool {
	f, ok := n.(*ast.ForStmt)
	if !ok {
		return true // a RangeStmt here ranges over an integer (rangeCounts)
	}
	c, ok := astutil.Unparen(f.Cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch c.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.NEQ:
	default:
		return false
	}
	// The step is the post statement, or a statement of the body's top
	// level that every turn runs: for retries >= 0 { retries--; ... }.
	steps := []ast.Stmt{f.Post}
	if f.Post == nil {
		steps = everyTurn(f.Body)
	}
	stepped := func(v *types.Var) bool {
		return slices.ContainsFunc(steps, func(st ast.Stmt) bool {
			switch m := st.(type) {
			case *ast.IncDecStmt:
				return p.varOf(m.X) == v
			case *ast.AssignStmt:
				return m.Tok != token.DEFINE && slices.ContainsFunc(m.Lhs, func(l ast.Expr) bool { return p.varOf(l) == v })
			}
			return false
		})
	}
	return p.mentions(c, stepped)
}

// everyTurn returns the statements at the top of a loop body that run in
// every turn: those before the first one that can branch or continue.
func everyTurn(body *ast.BlockStmt) []ast.Stmt {
	var out []ast.Stmt
	for _, st := range body.List {
		switch st.(type) {
		case *ast.IncDecStmt, *ast.AssignStmt, *ast.DeclStmt, *ast.ExprStmt:
			out = append(out, st)
		default:
			return out
		}
	}
	return out
}

// shape finds the operation, its error variables, and how the body leaves
// or repeats on success and failure.
func (p *pkgCtx) shape(loop ast.Node, body *ast.BlockStmt, cond ast.Expr) *loopShape {
	s := &loopShape{errs: make(map[*types.Var]*ast.CallExpr), results: make(map[*types.Var]bool), resultOf: make(map[*types.Var]*types.Var)}
	if fd, ok := loop.(*ast.FuncDecl); ok {
		s.self, _ = p.info.Defs[fd.Name].(*types.Func)
	}
	// madeBy: the operation each result of the attempt comes from, a
	// reading of one (body from io.ReadAll(resp.Body)) counted as the
	// operation it reads (interpret.go).
	madeBy := make(map[*types.Var]*ast.CallExpr)
	// Fallible calls whose error lands in a variable, or is tested in place,
	// also inside nested loops: an inner retry loop may set the error the
	// outer one tests.
	p.inspectCalls(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) != 1 {
				return true
			}
			call, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return true
			}
			if !p.fallible(call) {
				// v, ok := c.lookup(ctx, key): a false ok is the failure.
				if v := p.okResult(call, n.Lhs); v != nil {
					s.errs[v] = call
					s.ops = append(s.ops, call)
				}
				return true
			}
			var errVar *types.Var
			var others []*types.Var
			for _, lhs := range n.Lhs {
				id, ok := astutil.Unparen(lhs).(*ast.Ident)
				if !ok {
					continue
				}
				v := p.identVar(id)
				if v == nil {
					continue
				}
				if isErrorType(v.Type()) {
					errVar = v
				} else {
					others = append(others, v)
				}
			}
			if errVar != nil {
				op := call
				if read := p.interpretedOp(call, madeBy); read != nil {
					op = read
				} else {
					s.ops = append(s.ops, call)
				}
				s.errs[errVar] = op
				for _, o := range others {
					s.results[o] = true
					s.resultOf[o] = errVar
					if op != call || isRemoteCall(p.info, call) {
						madeBy[o] = op // an answer: resp of hc.Do, body read from it
					}
				}
			}
		case *ast.BinaryExpr:
			// if op() == nil / if op() != nil
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, side := range []ast.Expr{n.X, n.Y} {
					if call, ok := astutil.Unparen(side).(*ast.CallExpr); ok && p.fallible(call) && isNil(p.info, other(n, side)) {
						s.errs[nil] = call
						s.ops = append(s.ops, call)
					}
				}
			}
		}
		return true
	})
	if len(s.errs) == 0 {
		return s
	}
	p.keepRetried(loop, body, cond, s)
	if len(s.errs) == 0 {
		return s
	}
	// The loop condition err != nil leaves the loop on success.
	if cond != nil && p.condIs(cond, s, true) == failurePath {
		s.success = true
	}
	p.walkPaths(body.List, unknownPath, loop, s)
	return s
}

// afterStatusSwitch returns the path after a status switch: the side of
// the cases that fall out of it, restPath for the statuses no case named.
func (p *pkgCtx) afterStatusSwitch(sw *ast.SwitchStmt, at path, loop ast.Node, s *loopShape) path {
	var outs []path
	hasDefault := false
	for _, cc := range sw.Body.List {
		clause, ok := cc.(*ast.CaseClause)
		if !ok {
			continue
		}
		if clause.List == nil {
			hasDefault = true
		}
		block := &ast.BlockStmt{List: clause.Body}
		if len(clause.Body) > 0 && terminates(clause.Body[len(clause.Body)-1]) {
			continue
		}
		switch {
		case p.continuesOrWaits(block, loop):
			outs = append(outs, failurePath)
		default:
			outs = append(outs, p.casePath(sw.Tag, clause, s))
		}
	}
	if !hasDefault {
		outs = append(outs, restPath)
	}
	if len(outs) == 0 {
		return unknownPath
	}
	for _, o := range outs[1:] {
		if o != outs[0] {
			return unknownPath
		}
	}
	return outs[0]
}

// casePath is the side of a status switch's clause read from its cases:
// case 429, 503 (every status a transient failure: 408, 429, 5xx) is the
// failure path, case 200, 204 the success path; a default, cases of both
// kinds, and other 4xx say nothing (case 401 falling out after a token
// refresh is a handshake, not a retry).
func (p *pkgCtx) casePath(tag ast.Expr, clause *ast.CaseClause, s *loopShape) path {
	if len(clause.List) == 0 {
		return unknownPath
	}
	out := unknownPath
	for i, e := range clause.List {
		var at path
		switch {
		case tag != nil:
			n, ok := p.fold.Int(e)
			switch {
			case !ok:
				return unknownPath
			case n == 408 || n == 429 || n >= 500:
				at = failurePath
			case n < 400:
				at = successPath
			default:
				return unknownPath
			}
		default:
			b, ok := astutil.Unparen(e).(*ast.BinaryExpr)
			if !ok {
				return unknownPath
			}
			at = p.statusPath(b, s)
		}
		if at == unknownPath || i > 0 && at != out {
			return unknownPath
		}
		out = at
	}
	return out
}

func terminates(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return st.Tok != token.FALLTHROUGH
	case *ast.ExprStmt:
		if call, ok := st.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// ifStatusTest reports an if that tests the status, in its condition or
// through its init: if _, ok := retryable[resp.StatusCode]; ok { ... }.
func (p *pkgCtx) ifStatusTest(ifs *ast.IfStmt, s *loopShape) bool {
	if p.statusTest(ifs.Cond, s) {
		return true
	}
	as, ok := ifs.Init.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || !p.statusTest(as.Rhs[0], s) {
		return false
	}
	uses := false
	ast.Inspect(ifs.Cond, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			for _, lhs := range as.Lhs {
				if lid, ok := lhs.(*ast.Ident); ok && lid.Name != "_" && p.identVar(lid) == p.identVar(id) {
					uses = true
				}
			}
		}
		return !uses
	})
	return uses
}

// statusSwitch reports a switch on the status: switch resp.StatusCode, or
// a tagless switch whose cases test it.
func (p *pkgCtx) statusSwitch(sw *ast.SwitchStmt, s *loopShape) bool {
	if sw.Tag != nil {
		return p.statusTest(sw.Tag, s)
	}
	for _, cc := range sw.Body.List {
		if clause, ok := cc.(*ast.CaseClause); ok {
			for _, e := range clause.List {
				if p.statusTest(e, s) {
					return true
				}
			}
		}
	}
	return false
}

// keepRetried keeps the operations whose failure leads to another turn,
// dropping steps whose failure ends the loop at once (building the request,
// a cancellable wait that returns ctx.Err()): their success says nothing
// about the operation's.
func (p *pkgCtx) keepRetried(loop ast.Node, body *ast.BlockStmt, cond ast.Expr, s *loopShape) {
	retried := make(map[*types.Var]bool)
	// Each error variable is judged with the results assigned beside it:
	// a status test of the response says nothing of the error of building
	// the request (req, rerr := http.NewRequest(...); if rerr != nil {
	// return rerr }), whose guard would otherwise count as a retry.
	one := func(v *types.Var) *loopShape {
		return &loopShape{errs: map[*types.Var]*ast.CallExpr{v: s.errs[v]}, results: s.resultsBeside(v), self: s.self}
	}
	after := stmtsAfterIfs(body)
	for v := range s.errs {
		t := one(v)
		if cond != nil && p.condIs(cond, t, false) == failurePath {
			retried[v] = true
			continue
		}
		p.inspectRegion(body, func(n ast.Node) bool {
			if sw, ok := n.(*ast.SwitchStmt); ok && p.statusSwitch(sw, t) {
				// case 429, 503: wait; or case 200: return with case 429,
				// 503 falling out of the switch to go round.
				leavesOnSuccess, failsOn := false, false
				// default: return: the statuses not listed (a 200 among
				// them) leave there
				defaultLeaves := false
				for _, cc := range sw.Body.List {
					clause, ok := cc.(*ast.CaseClause)
					if !ok {
						continue
					}
					block := &ast.BlockStmt{List: clause.Body}
					at := p.casePath(sw.Tag, clause, t)
					if clause.List == nil {
						defaultLeaves = p.blockLeavesAny(block)
					}
					switch {
					case p.continuesOrWaits(block, loop):
						retried[v] = true
					case at == successPath && p.blockLeavesAny(block):
						leavesOnSuccess = true
					case at == failurePath && (len(clause.Body) == 0 || !terminates(clause.Body[len(clause.Body)-1])):
						failsOn = true
					}
				}
				if failsOn && (leavesOnSuccess || defaultLeaves) {
					retried[v] = true
				}
			}
			// A tagless switch decides like an if-else chain: each case is
			// a condition and its clause the branch taken.
			if sw, ok := n.(*ast.SwitchStmt); ok && sw.Tag == nil && !retried[v] {
				for _, cc := range sw.Body.List {
					clause, ok := cc.(*ast.CaseClause)
					if !ok {
						continue
					}
					for _, e := range clause.List {
						if p.condIs(e, t, false) == successPath && p.blockLeavesAny(&ast.BlockStmt{List: clause.Body}) {
							retried[v] = true
						}
					}
				}
			}
			ifs, ok := n.(*ast.IfStmt)
			if !ok || retried[v] {
				return !retried[v]
			}
			if p.leavesPred(ifs.Cond, t) && p.blockLeavesAny(ifs.Body) {
				retried[v] = true // if !shouldRetry(resp, err) { break }
				return false
			}
			c := p.condIs(ifs.Cond, t, false)
			if c == unknownPath && p.ifStatusTest(ifs, t) && (p.continuesOrWaits(ifs.Body, loop) || p.blockLeavesAny(ifs.Body)) {
				retried[v] = true // a status test of no visible direction
				return false
			}
			if c == unknownPath && ifs.Else == nil && p.blockLeavesAny(ifs.Body) && p.resentOnMissing(ifs.Cond, t) {
				retried[v] = true // resend.go: a write answered without what success needs
				return false
			}
			switch c {
			case failurePath:
				if !p.mentionsErr(ifs.Cond, t) && v != nil {
					// A status test: it retries v's call when its branch goes on.
					if (p.statusTest(ifs.Cond, t) || p.flagRetries(ifs.Cond, t) || p.predTest(ifs.Cond, t) || p.directiveTest(ifs.Cond, t)) && p.continuesOrWaits(ifs.Body, loop) {
						retried[v] = true
					}
					return true
				}
				// A failure branch that does not leave goes round, unless
				// the statements after it leave in any case: a test nested
				// in a branch that then returns (if err != nil { if
				// timeout(err) { mark() }; return err }) retries nothing.
				if !p.blockLeaves(ifs.Body, nil) && !p.leavesAfter(after[ifs], loop) || p.callsSelf(ifs.Body, s.self) || p.continuesOrWaits(ifs.Body, loop) {
					retried[v] = true
				}
			case successPath:
				// if err == nil { return }: the failure goes on, unless
				// the statements after the if leave too (`return
				// fallback`): then no path goes round after the call.
				if (p.blockLeavesAny(ifs.Body) || p.endsInGoto(ifs.Body)) && !p.leavesAfter(after[ifs], loop) {
					retried[v] = true
				}
			}
			return true
		})
		if v == nil && !retried[v] {
			retried[v] = true // op() == nil tested in place
		}
	}
	for v := range s.errs {
		if !retried[v] {
			delete(s.errs, v)
		}
	}
	all := slices.Clone(s.ops)
	ops := s.ops[:0]
	for _, op := range s.ops {
		for _, call := range s.errs {
			if call == op {
				ops = append(ops, op)
				break
			}
		}
	}
	s.ops = p.withReusedErrOps(loop, body, all, ops, s) // loop_ops.go
}

func (p *pkgCtx) callsSelf(b ast.Node, self *types.Func) bool {
	return self != nil && contains(b, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		return ok && typeutil.StaticCallee(p.info, c) == self
	})
}

// continuesOrWaits reports a failure branch that goes on to another turn
// somewhere inside, even if it ends by giving up: if retry { wait; continue }; return err.
func (p *pkgCtx) continuesOrWaits(b *ast.BlockStmt, loop ast.Node) bool {
	if len(p.waitsIn(b)) > 0 {
		return true
	}
	found := false
	p.inspectRegion(b, func(n ast.Node) bool {
		if br, ok := n.(*ast.BranchStmt); ok && br.Tok == token.CONTINUE && (loop == nil || p.branchTargets(br, loop)) {
			found = true
		}
		return !found
	})
	return found
}

func (p *pkgCtx) endsInGoto(b *ast.BlockStmt) bool { return endsIn(b, token.GOTO) }

// endsIn reports whether a block's last statement is a tok branch.
func endsIn(b *ast.BlockStmt, tok token.Token) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	br, ok := b.List[len(b.List)-1].(*ast.BranchStmt)
	return ok && br.Tok == tok
}

// fallible reports whether call returns an error and is not a log, wait or
// formatting call.
func (p *pkgCtx) fallible(call *ast.CallExpr) bool {
	t := p.info.TypeOf(call)
	if t == nil {
		return false
	}
	hasErr := false
	switch t := t.(type) {
	case *types.Tuple:
		if t.Len() > 0 {
			hasErr = isErrorType(t.At(t.Len() - 1).Type())
		}
	default:
		hasErr = isErrorType(t)
	}
	if !hasErr {
		return false
	}
	fn, _ := typeutil.Callee(p.info, call).(*types.Func) // also interface methods: ctx.Err()
	if fn != nil {
		if _, ok := p.waiterOf(fn); ok {
			return false
		}
	}
	if fn != nil && fn.Pkg() != nil {
		switch fn.Pkg().Path() {
		case "fmt", "errors", "strconv", "encoding/json", "io", "bytes", "strings", "log", "log/slog", "time", "context":
			return false
		}
	}
	return true
}

type path int

const (
	unknownPath path = iota
	successPath
	failurePath
	// restPath follows a status switch without a default: the statuses no
	// case named. What the code does with them says which side they are:
	// a return leaves (success side), a wait retries.
	restPath
)

// condIs classifies a condition: successPath when it holds only if the
// operation succeeded (err == nil), failurePath when it holds on failure
// (err != nil, a status check, a classifier call on err), else unknownPath.
func (p *pkgCtx) condIs(cond ast.Expr, s *loopShape, _ bool) path {
	cond = astutil.Unparen(cond)
	switch c := cond.(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			x, y := p.condIs(c.X, s, false), p.condIs(c.Y, s, false)
			if x == successPath && y == failurePath || y == successPath && x == failurePath {
				// err == nil && resp.StatusCode == 503: answered, with a failure.
				return failurePath
			}
			if x == successPath || y == successPath {
				// err == nil && resp.StatusCode < 500 is still success; but
				// err == nil && resp.Done is a poll condition.
				if x == successPath && (y == successPath || p.statusTest(c.Y, s) || p.nonEmpty(c.Y, s)) ||
					y == successPath && (x == successPath || p.statusTest(c.X, s) || p.nonEmpty(c.X, s)) {
					return successPath
				}
				return unknownPath
			}
			if x == failurePath || y == failurePath {
				return failurePath
			}
		case token.LOR:
			x, y := p.condIs(c.X, s, false), p.condIs(c.Y, s, false)
			if x == successPath || y == successPath {
				// err == nil || !retryable(err): the side that leaves.
				return successPath
			}
			if x == failurePath || y == failurePath {
				return failurePath
			}
		case token.EQL, token.NEQ:
			if _, ok := p.errOperand(c, s); ok {
				if c.Op == token.EQL {
					return successPath
				}
				return failurePath
			}
			if c.Op == token.EQL && p.isSentinelTest(c, s) {
				return failurePath // err == io.ErrUnexpectedEOF, as errors.Is
			}
			if pt := p.retryDirective(c, s); pt != unknownPath {
				return pt // resp.Header.Get("x-should-retry") == "true" (header.go)
			}
			return p.statusPath(c, s)
		default:
			return p.statusPath(c, s)
		}
	case *ast.Ident:
		// The ok of an operation with no error result.
		if v := p.identVar(c); v != nil && isBool(v.Type()) {
			if _, ok := s.errs[v]; ok {
				return successPath
			}
			if p.isRetryFlag(v) || p.failureFlag(v, s) { // opwait.go, failureflag.go
				return failurePath
			}
			// retryable, throttle := evaluate(err): the verdict of a call
			// handed the error, read as the call in place.
			if call, i := p.tupleDef(v); call != nil && i == 0 {
				for _, a := range call.Args {
					if p.mentionsErr(a, s) {
						return failurePath
					}
				}
			}
		}
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			if call, ok := astutil.Unparen(c.X).(*ast.CallExpr); ok && p.resultPred(call, s) {
				// !transient(resp) holds for a success; !done(resp) for a failure.
				switch p.condIs(call, s, false) {
				case failurePath:
					return successPath
				case successPath:
					return failurePath
				}
				return unknownPath
			}
			switch p.condIs(c.X, s, false) {
			case successPath:
				return failurePath
			case failurePath:
				// !isRetryable(err): still a failure path (the error is set).
				return failurePath
			}
		}
	case *ast.CallExpr:
		// isACK(err): a predicate whose summary answers true for a nil
		// error holds when the operation succeeded.
		if p.errPredOnSuccess(c, s) == Yes {
			return successPath
		}
		// isRetryable(err), errors.Is(err, ...), errors.As(err, &e)
		for _, a := range c.Args {
			if p.mentionsErr(a, s) {
				return failurePath
			}
		}
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && p.mentionsErr(sel.X, s) {
			return failurePath
		}
		// transient(resp), done(resp): a classifier of this package handed
		// the response, by what it answers for a successful one.
		if p.resultPred(c, s) {
			switch p.predOnSuccess(typeutil.StaticCallee(p.info, c)) {
			case No:
				return failurePath
			case Yes:
				return successPath
			}
		}
	}
	return unknownPath
}

// predTest reports a condition that is a result classifier's answer,
// negated or not, alone or in a conjunction: transient(resp),
// !answered(resp), transient(resp) && attempt < max.
func (p *pkgCtx) predTest(cond ast.Expr, s *loopShape) bool {
	cond = astutil.Unparen(cond)
	// transient(resp) && attempt < max: the branch is taken only when
	// the predicate says so.
	if b, ok := cond.(*ast.BinaryExpr); ok && b.Op == token.LAND {
		return p.predTest(b.X, s) || p.predTest(b.Y, s)
	}
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		cond = astutil.Unparen(u.X)
	}
	c, ok := cond.(*ast.CallExpr)
	return ok && p.resultPred(c, s)
}

// resultPred reports a call of a function of this package handed the
// operation's results but not its error.
func (p *pkgCtx) resultPred(c *ast.CallExpr, s *loopShape) bool {
	fn := typeutil.StaticCallee(p.info, c)
	if fn == nil || fn.Pkg() != p.pass.Pkg {
		return false
	}
	res := false
	for _, a := range c.Args {
		if p.mentionsErr(a, s) {
			return false
		}
		res = res || p.mentionsResult(a, s)
	}
	return res
}

// nonEmpty reports a test that a result is not empty: out != "",
// resp != nil, len(items) > 0. An empty answer counts as a failure to
// retry; a test of a particular state (job.Done, status == "ready") makes
// the loop a poll instead.
func (p *pkgCtx) nonEmpty(e ast.Expr, s *loopShape) bool {
	b, ok := astutil.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	isResult := func(x ast.Expr) bool {
		x = astutil.Unparen(x)
		if c, ok := x.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "len" && len(c.Args) == 1 {
				x = astutil.Unparen(c.Args[0])
			}
		}
		id, ok := x.(*ast.Ident)
		return ok && s.results[p.identVar(id)]
	}
	zero := p.zeroValue
	switch b.Op {
	case token.NEQ:
		return isResult(b.X) && zero(b.Y) || isResult(b.Y) && zero(b.X)
	case token.GTR:
		return isResult(b.X) && zero(b.Y)
	}
	return false
}

// statusPath classifies a comparison of the response status with a code:
// resp.StatusCode == 200 or < 400 holds on success, >= 500, == 429 or
// != 200 on failure.
func (p *pkgCtx) statusPath(c *ast.BinaryExpr, s *loopShape) path {
	if !p.statusTest(c, s) {
		return unknownPath
	}
	op, lit := c.Op, c.Y
	if _, ok := p.fold.Int(c.X); ok {
		lit, op = c.X, Flip(op) // 500 <= code is code >= 500
	}
	n, ok := p.fold.Int(lit)
	if !ok {
		if op == token.GEQ || op == token.GTR {
			return failurePath
		}
		return unknownPath
	}
	switch op {
	case token.EQL:
		if n < 400 {
			return successPath
		}
		return failurePath
	case token.NEQ:
		if n < 400 {
			return failurePath
		}
		// resp.StatusCode != 429 { return resp }: every status but the
		// retried one leaves.
		return successPath
	case token.LSS, token.LEQ:
		if n < 200 || op == token.LSS && n == 200 {
			// code < 200: the low half of "not 2xx" (code < 200 || code > 299);
			// net/http hands no 1xx to its caller as the final answer.
			return failurePath
		}
		if n <= 500 {
			return successPath
		}
	case token.GEQ, token.GTR:
		if n >= 399 {
			return failurePath
		}
	}
	return unknownPath
}

// statusTest reports a comparison that reads the status of the operation's
// response or error (resp.StatusCode >= 500, code == 429 with code copied
// from one, status.Code(err) == codes.Unavailable): a value StatusOf says
// is a status, read from the operation's results.
func (p *pkgCtx) statusTest(e ast.Expr, s *loopShape) bool {
	of := func(x ast.Expr) bool { return x != nil && (p.mentionsResult(x, s) || p.mentionsErr(x, s)) }
	return contains(e, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		if !ok || p.res.StatusOf(x) == NoStatus {
			return false
		}
		if id, ok := x.(*ast.Ident); ok {
			if s.results[p.identVar(id)] {
				return true // code, err := c.do(req): the operation's own result
			}
			vals, _ := p.res.Writes(p.identVar(id))
			return slices.ContainsFunc(vals, of)
		}
		return of(x)
	})
}

// asStatusTest reports a condition that takes the operation's error
// apart with errors.As and tests a status of what it took:
// errors.As(err, &e) && retryable[e.Code].
func (p *pkgCtx) asStatusTest(cond ast.Expr, s *loopShape) bool {
	targets := map[*types.Var]bool{}
	ast.Inspect(cond, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 || !p.mentionsErr(call.Args[0], s) {
			return true
		}
		if fn := typeutil.StaticCallee(p.info, call); fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "As" {
			return true
		}
		if u, ok := astutil.Unparen(call.Args[1]).(*ast.UnaryExpr); ok && u.Op == token.AND {
			if id, ok := astutil.Unparen(u.X).(*ast.Ident); ok {
				if v := p.identVar(id); v != nil {
					targets[v] = true
				}
			}
		}
		return true
	})
	if len(targets) == 0 {
		return false
	}
	return contains(cond, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || p.res.StatusOf(sel) == NoStatus {
			return false
		}
		id, ok := astutil.Unparen(sel.X).(*ast.Ident)
		return ok && targets[p.identVar(id)]
	})
}

func (p *pkgCtx) errOperand(c *ast.BinaryExpr, s *loopShape) (*types.Var, bool) {
	for _, pair := range [][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		if !isNil(p.info, pair[1]) {
			continue
		}
		switch x := astutil.Unparen(pair[0]).(type) {
		case *ast.Ident:
			if v := p.identVar(x); v != nil {
				if _, ok := s.errs[v]; ok {
					// An error set last by a step that is not an operation says
					// nothing of the operation's, unless the step reads the
					// operation's result: io.ReadAll(resp.Body) failing is the
					// response failing to arrive.
					if c, seen := s.cur[v]; seen && !s.isOp(c) && (c == nil || !p.mentionsResult(c, s)) {
						return nil, false
					}
					return v, true
				}
			}
		case *ast.CallExpr:
			if s.errs[nil] == x {
				return nil, true
			}
		}
	}
	return nil, false
}

// isSentinelTest reports err == X for an error variable of the shape and a
// non-nil error value X: it holds only on a failure.
func (p *pkgCtx) isSentinelTest(c *ast.BinaryExpr, s *loopShape) bool {
	for _, pair := range [][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		id, ok := astutil.Unparen(pair[0]).(*ast.Ident)
		if !ok || isNil(p.info, pair[1]) || !isErrorType(p.info.TypeOf(pair[1])) && !types.Implements(p.info.TypeOf(pair[1]), errorIface) {
			continue
		}
		if v := p.identVar(id); v != nil && isErrorType(v.Type()) {
			if _, ok := s.errs[v]; ok {
				return true
			}
		}
	}
	return false
}

// resultsBeside is the shape's results judged with error variable v: those
// assigned beside it, or beside no error at all.
func (s *loopShape) resultsBeside(v *types.Var) map[*types.Var]bool {
	if v == nil || len(s.resultOf) == 0 {
		return s.results
	}
	out := make(map[*types.Var]bool)
	for o := range s.results {
		if e, ok := s.resultOf[o]; !ok || e == v {
			out[o] = true
		}
	}
	return out
}

func (s *loopShape) isOp(c *ast.CallExpr) bool {
	for _, op := range s.ops {
		if op == c {
			return true
		}
	}
	return false
}

// track records which call last set each error variable.
func (p *pkgCtx) track(st ast.Stmt, s *loopShape) {
	as, ok := st.(*ast.AssignStmt)
	if !ok {
		return
	}
	for _, lhs := range as.Lhs {
		id, ok := astutil.Unparen(lhs).(*ast.Ident)
		if !ok {
			continue
		}
		v := p.identVar(id)
		if _, isErr := s.errs[v]; !isErr || v == nil {
			continue
		}
		if s.cur == nil {
			s.cur = make(map[*types.Var]*ast.CallExpr)
		}
		call, _ := astutil.Unparen(as.Rhs[len(as.Rhs)-1]).(*ast.CallExpr)
		if len(as.Rhs) != 1 {
			call = nil
		}
		s.cur[v] = call
	}
}

func (p *pkgCtx) mentionsErr(e ast.Expr, s *loopShape) bool {
	return p.mentions(e, func(v *types.Var) bool { _, ok := s.errs[v]; return ok })
}

func (p *pkgCtx) mentionsResult(e ast.Expr, s *loopShape) bool {
	return p.mentions(e, func(v *types.Var) bool { return s.results[v] })
}

// walkPaths follows the statements of a block, knowing on which path
// (success or failure of the operation) each one runs, and records exits,
// repeats and waits. It returns whether the block always leaves (return,
// break, continue, goto, panic).
func (p *pkgCtx) walkPaths(stmts []ast.Stmt, at path, loop ast.Node, s *loopShape) (terminates bool) {
	for i, st := range stmts {
		switch st := st.(type) {
		case *ast.IfStmt:
			if st.Init != nil {
				p.track(st.Init, s)
				p.walkPaths([]ast.Stmt{st.Init}, at, loop, s)
			}
			// if !sleepCtx(ctx, d) { return }: the wait is the condition
			p.noteWait(&ast.ExprStmt{X: st.Cond}, at, s)
			if at != failurePath && st.Else == nil && p.leavesPred(st.Cond, s) && p.blockLeaves(st.Body, loop) {
				// if !shouldRetry(resp, err) { break }: the branch leaves on
				// success and on a failure not worth retrying; past it only
				// retried failures remain.
				s.decide = append(s.decide, st.Cond)
				s.success = true
				if s.class == nil {
					s.class = st.Cond
				}
				at = failurePath
				continue
			}
			c := p.condIs(st.Cond, s, false)
			if c == unknownPath && at == successPath && st.Else == nil && p.blockLeaves(st.Body, loop) && p.resentOnMissing(st.Cond, s) {
				c = successPath // resend.go: a write answered without what success needs
			}
			if c == unknownPath && at != failurePath && p.ifStatusTest(st, s) {
				// A status test of no known direction (slices.Contains(retryable,
				// code), !isRetryable(resp.StatusCode), m[code]): the branch
				// says which side it is on. Leaving is the success side; a
				// wait or continue retries.
				if p.continuesOrWaits(st.Body, loop) {
					c = failurePath
				} else if p.blockLeavesAny(st.Body) {
					c = successPath
				}
			}
			if c != unknownPath || p.ifStatusTest(st, s) {
				s.decide = append(s.decide, st.Cond)
			}
			thenAt, elseAt := at, at
			switch c {
			case successPath:
				thenAt, elseAt = successPath, failurePath
			case failurePath:
				thenAt = failurePath
				if _, ok := p.errOperandOf(st.Cond, s); ok {
					elseAt = successPath
				}
			}
			thenTerm := p.walkPaths(st.Body.List, thenAt, loop, s)
			if c == failurePath && thenTerm && s.class == nil && !p.blockWaits(st.Body) && p.blockLeaves(st.Body, loop) {
				s.class = st.Cond
			}
			elseTerm := false
			switch e := st.Else.(type) {
			case *ast.BlockStmt:
				elseTerm = p.walkPaths(e.List, elseAt, loop, s)
			case *ast.IfStmt:
				elseTerm = p.walkPaths([]ast.Stmt{e}, elseAt, loop, s)
			}
			if thenTerm && elseTerm {
				return true
			}
			if thenTerm && st.Else == nil && c != unknownPath && (c == successPath || elseAt == successPath) {
				// Past `if err == nil { return }` only failures remain, and
				// past `if err != nil { continue }` only successes.
				if thenAt == successPath {
					at = failurePath
				} else {
					at = successPath
				}
			} else if thenTerm && st.Else == nil && c == failurePath && at == unknownPath && p.continuesOrWaits(st.Body, loop) && (p.statusTest(st.Cond, s) || p.asStatusTest(st.Cond, s)) {
				// Past `if errors.As(err, &e) && retryable[e.Code] { wait;
				// continue }` remain success and the failures not retried:
				// what leaves there is the loop's way out. Only for a
				// status test: past `if errors.Is(err, errNotYet) {
				// continue }` a poll's answers remain.
				at = restPath
			}
		case *ast.ReturnStmt:
			if at == successPath || at == restPath {
				s.success = true
			}
			return true
		case *ast.BranchStmt:
			switch st.Tok {
			case token.BREAK:
				if p.branchLeaves(st, loop) && at == successPath {
					s.success = true
				}
			case token.GOTO:
				if at == successPath && p.gotoLeaves(st, loop) {
					s.success = true
				}
			case token.CONTINUE:
				if at == successPath && p.branchTargets(st, loop) {
					s.again = true
				}
			}
			return true
		case *ast.BlockStmt:
			if p.walkPaths(st.List, at, loop, s) {
				return true
			}
		case *ast.SelectStmt:
			// select { case <-tick.C: op... }: the wait is the select, the
			// attempt runs in a case.
			p.noteWait(&ast.SelectStmt{Select: st.Select, Body: &ast.BlockStmt{}}, at, s)
			if len(p.waitsIn(st)) > 0 && at != successPath {
				s.failWait = true
			}
			for _, cc := range st.Body.List {
				if comm, ok := cc.(*ast.CommClause); ok {
					p.walkPaths(comm.Body, at, loop, s)
				}
			}
		case *ast.SwitchStmt:
			for _, cc := range st.Body.List {
				p.walkSwitchClause(st.Tag, cc, at, loop, s)
			}
			if p.statusSwitch(st, s) {
				at = p.afterStatusSwitch(st, at, loop, s)
			}
			if switchLeaves(st.Body) {
				return true
			}
		case *ast.TypeSwitchStmt:
			for _, cc := range st.Body.List {
				p.walkSwitchClause(nil, cc, at, loop, s)
			}
			if switchLeaves(st.Body) {
				return true
			}
		case *ast.RangeStmt:
			if ifs := p.statusMembership(st, s); ifs != nil && at != failurePath {
				s.decide = append(s.decide, ifs.Cond)
				p.walkPaths(ifs.Body.List, successPath, loop, s)
				at = failurePath
				break
			}
			p.track(st, s)
			p.noteWait(st, at, s)
		case *ast.ExprStmt:
			if call, ok := st.X.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
					return true
				}
			}
			p.noteWait(st, at, s)
		default:
			p.track(st, s)
			p.noteWait(st, at, s)
		}
		if i == len(stmts)-1 && at == successPath && stmtsBelongToBody(stmts, loop) {
			s.again = true // falls off the end of the body after a success
		}
	}
	return false
}

func (p *pkgCtx) walkSwitchClause(tag ast.Expr, cc ast.Stmt, at path, loop ast.Node, s *loopShape) {
	clause, ok := cc.(*ast.CaseClause)
	if !ok {
		return
	}
	status := tag != nil && p.statusTest(tag, s)
	for _, e := range clause.List {
		if status || p.statusTest(e, s) || p.mentionsErr(e, s) {
			s.decide = append(s.decide, e)
			status = true
		}
	}
	if status && at != failurePath {
		// switch resp.StatusCode { case 200: return; case 429, 503: wait }
		block := &ast.BlockStmt{List: clause.Body}
		if p.continuesOrWaits(block, loop) {
			at = failurePath
		} else if p.blockLeavesAny(block) {
			at = successPath
		}
	}
	p.walkPaths(clause.Body, at, loop, s)
}

// switchLeaves reports a switch that every path leaves the turn from: it
// has a default, and each clause ends in return, continue or goto (a
// break there leaves only the switch), so code after it runs on no path
// through the switch:
//
//	if err != nil {
//		switch { case transient(err): continue; default: return }
//	}
//	return resp // reached on success only
func switchLeaves(body *ast.BlockStmt) bool {
	hasDefault := false
	for _, cc := range body.List {
		clause, ok := cc.(*ast.CaseClause)
		if !ok || len(clause.Body) == 0 {
			return false
		}
		if clause.List == nil {
			hasDefault = true
		}
		if !clauseLeaves(clause.Body) {
			return false
		}
	}
	return hasDefault
}

// clauseLeaves reports a case or select clause body that ends in a return,
// a continue or a goto (a break only leaves the switch or select).
func clauseLeaves(body []ast.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	switch last := body[len(body)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return last.Tok == token.CONTINUE || last.Tok == token.GOTO
	}
	return false
}

// stmtsBelongToBody reports whether stmts is the loop body's own list.
func stmtsBelongToBody(stmts []ast.Stmt, loop ast.Node) bool {
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.ForStmt:
		body = l.Body
	case *ast.RangeStmt:
		body = l.Body
	default:
		return false
	}
	return len(body.List) > 0 && len(stmts) > 0 && &body.List[0] == &stmts[0]
}

func (p *pkgCtx) errOperandOf(e ast.Expr, s *loopShape) (*types.Var, bool) {
	if b, ok := astutil.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.NEQ {
		return p.errOperand(b, s)
	}
	return nil, false
}

func (p *pkgCtx) noteWait(st ast.Stmt, at path, s *loopShape) {
	if at == successPath {
		if len(p.waitsIn(st)) > 0 {
			s.again = true
		}
		return
	}
	if len(p.waitsIn(st)) > 0 {
		s.failWait = true
	}
}

func (p *pkgCtx) blockWaits(b *ast.BlockStmt) bool { return len(p.waitsIn(b)) > 0 }

// blockLeaves reports whether a block ends the retry (return or break).
func (p *pkgCtx) blockLeaves(b *ast.BlockStmt, loop ast.Node) bool {
	if len(b.List) == 0 {
		return false
	}
	switch st := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		if loop == nil {
			return st.Tok == token.BREAK
		}
		return st.Tok == token.BREAK && p.branchLeaves(st, loop) || st.Tok == token.GOTO
	}
	return false
}

// stmtsAfterIfs maps each if statement in body to the statements that
// follow it in its block.
func stmtsAfterIfs(body ast.Node) map[*ast.IfStmt][]ast.Stmt {
	out := map[*ast.IfStmt][]ast.Stmt{}
	ast.Inspect(body, func(n ast.Node) bool {
		var list []ast.Stmt
		switch b := n.(type) {
		case *ast.BlockStmt:
			list = b.List
		case *ast.CaseClause:
			list = b.Body
		case *ast.CommClause:
			list = b.Body
		case *ast.FuncLit:
			return false
		}
		for i, st := range list {
			if ifs, ok := st.(*ast.IfStmt); ok {
				out[ifs] = list[i+1:]
			}
		}
		return true
	})
	return out
}

// leavesAfter reports whether statements, run in order, leave the loop
// for certain before its turn ends: a return, a panic or a break out of
// the loop, with no continue or goto before it, at any depth.
func (p *pkgCtx) leavesAfter(stmts []ast.Stmt, loop ast.Node) bool {
	for _, st := range stmts {
		// a branch on the way may go round (if retry { wait; continue })
		if contains(st, func(n ast.Node) bool {
			br, ok := n.(*ast.BranchStmt)
			return ok && (br.Tok == token.CONTINUE || br.Tok == token.GOTO)
		}) {
			return false
		}
		if br, ok := st.(*ast.BranchStmt); ok {
			// a break out of the loop leaves; a continue or goto may not
			return br.Tok == token.BREAK && loop != nil && p.branchLeaves(br, loop)
		}
		if terminates(st) { // a return or a panic
			return true
		}
	}
	return false
}

// branchLeaves reports whether a break statement leaves loop (and not an
// inner switch, select or loop).
func (p *pkgCtx) branchLeaves(br *ast.BranchStmt, loop ast.Node) bool {
	return p.branchTo(br, loop, true)
}

// branchTargets reports whether a continue statement goes round loop (and
// not an inner loop).
func (p *pkgCtx) branchTargets(br *ast.BranchStmt, loop ast.Node) bool {
	return p.branchTo(br, loop, false)
}

// branchTo reports whether br's target is loop: its label, or else loop is
// the innermost loop (with breaks, also switch or select) around br.
func (p *pkgCtx) branchTo(br *ast.BranchStmt, loop ast.Node, isBreak bool) bool {
	if loop == nil {
		return false
	}
	if br.Label != nil {
		return p.labelOf(loop) != nil && p.labelOf(loop).Name == br.Label.Name
	}
	best := loop
	ast.Inspect(loop, func(n ast.Node) bool {
		if n == nil || !within(br, n) {
			return false
		}
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			best = n
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if isBreak {
				best = n
			}
		}
		return true
	})
	return best == loop
}

// gotoLeaves reports whether a goto jumps to a label outside loop.
func (p *pkgCtx) gotoLeaves(br *ast.BranchStmt, loop ast.Node) bool {
	if br.Label == nil || loop == nil {
		return false
	}
	obj := p.info.Uses[br.Label]
	return obj != nil && !within(&ast.Ident{NamePos: obj.Pos()}, loop)
}

// labelOf finds the label of a labeled loop.
func (p *pkgCtx) labelOf(loop ast.Node) *ast.Ident {
	for _, f := range p.pass.Files {
		if f.Pos() > loop.Pos() || loop.Pos() > f.End() {
			continue
		}
		var id *ast.Ident
		ast.Inspect(f, func(n ast.Node) bool {
			if id != nil {
				return false
			}
			if ls, ok := n.(*ast.LabeledStmt); ok && ls.Stmt == loop {
				id = ls.Label
			}
			return n == nil || n.Pos() <= loop.Pos() && loop.End() <= n.End() || n == f
		})
		return id
	}
	return nil
}

// drawsCandidates reports a search, not a retry: every retried operation
// is handed a value drawn at random in each turn (a port to listen on, an
// identifier to insert), so a failure is answered by trying another
// candidate, not by sending the same request again. A random source that
// reaches the wait is jitter; one that reaches the operation's arguments
// makes each attempt a different request. The caller asks only for loops
// that never wait: a loop that backs off between random replicas is a
// retry that spreads its attempts.
func (p *pkgCtx) drawsCandidates(s *loopShape) bool {
	if len(s.ops) == 0 {
		return false
	}
	for _, op := range s.ops {
		drawn := false
		for _, a := range op.Args {
			if p.randomReach(a) == Yes {
				drawn = true
				break
			}
		}
		if !drawn {
			return false
		}
	}
	return true
}

// walksByIndex reports a loop whose every operation is handed an element
// of a collection at an index that moves each turn: addrs[idx%n] with
// idx++ in the body, hosts[(start+i)%len(hosts)] with i the loop's
// counter. Each turn tries another element (a dialer walking the resolved
// addresses), as a range over the collection would: a fallback, not a
// retry of one operation. A slice of numbers or durations is a schedule,
// not candidates.
func (p *pkgCtx) walksByIndex(loop ast.Node, body *ast.BlockStmt, s *loopShape) bool {
	if len(s.ops) == 0 {
		return false
	}
	moving := map[*types.Var]bool{}
	switch l := loop.(type) {
	case *ast.ForStmt:
		if inc, ok := l.Post.(*ast.IncDecStmt); ok {
			if v := p.varOf(inc.X); v != nil {
				moving[v] = true
			}
		}
	case *ast.RangeStmt:
		if l.Key != nil {
			if v := p.varOf(l.Key); v != nil {
				moving[v] = true
			}
		}
	}
	p.inspectRegion(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IncDecStmt:
			if v := p.varOf(n.X); v != nil {
				moving[v] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN {
				if v := p.varOf(n.Lhs[0]); v != nil {
					moving[v] = true
				}
			}
		}
		return true
	})
	if len(moving) == 0 {
		return false
	}
	candidates := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok || found {
				return !found
			}
			var elem types.Type
			switch t := p.info.TypeOf(ix.X).Underlying().(type) {
			case *types.Slice:
				elem = t.Elem()
			case *types.Array:
				elem = t.Elem()
			default:
				return true
			}
			if b, ok := elem.Underlying().(*types.Basic); ok && b.Info()&types.IsNumeric != 0 {
				return true
			}
			found = p.mentions(ix.Index, func(v *types.Var) bool { return moving[v] })
			return !found
		})
		return found
	}
	for _, op := range s.ops {
		if !slices.ContainsFunc(op.Args, candidates) {
			return false
		}
	}
	return true
}

// varies reports pagination: an argument of the operation depends on a
// variable that the body sets from the operation's own results.
func (p *pkgCtx) varies(body *ast.BlockStmt, s *loopShape) bool {
	// Variables set in the body from a result of an operation, with where.
	fromResult := make(map[*types.Var][]token.Pos)
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Tok == token.DEFINE {
			return true
		}
		for i, lhs := range as.Lhs {
			id, ok := astutil.Unparen(lhs).(*ast.Ident)
			if !ok {
				continue
			}
			v := p.identVar(id)
			if v == nil || body.Pos() <= v.Pos() && v.Pos() < body.End() {
				continue
			}
			rhs := as.Rhs[0]
			if len(as.Rhs) == len(as.Lhs) {
				rhs = as.Rhs[i]
			}
			if p.mentionsResult(rhs, s) {
				fromResult[v] = append(fromResult[v], as.Pos())
			}
		}
		return true
	})
	if len(fromResult) == 0 {
		return false
	}
	for _, op := range s.ops {
		// Only a value set after the op reaches it from the turn before
		// (token = resp.Next); one set before it in the same turn (body, _
		// := io.ReadAll(resp.Body); toError(resp, body)) reads this
		// attempt's result.
		if p.mentions(op, func(v *types.Var) bool {
			return slices.ContainsFunc(fromResult[v], func(at token.Pos) bool { return at > op.End() })
		}) {
			return true
		}
	}
	return false
}

// opContext returns the context passed to the first operation that takes one.
func (p *pkgCtx) opContext(ops []*ast.CallExpr) ast.Expr {
	for _, op := range ops {
		for _, a := range op.Args {
			if IsContext(p.info.TypeOf(a)) {
				return a
			}
		}
	}
	return nil
}

func (p *pkgCtx) identVar(id *ast.Ident) *types.Var {
	if v, ok := p.info.Uses[id].(*types.Var); ok {
		return v
	}
	v, _ := p.info.Defs[id].(*types.Var)
	return v
}

// isErrorType reports an error result: error itself, or an interface type
// that is one by its methods (type Result error, interface{ error;
// Temporary() bool }), nil when the call succeeded all the same.
func isErrorType(t types.Type) bool {
	if t == nil {
		return false
	}
	if types.Identical(t, errorType) {
		return true
	}
	if _, ok := t.Underlying().(*types.Interface); ok {
		return types.Implements(t, errorType.Underlying().(*types.Interface))
	}
	return false
}

var errorType = types.Universe.Lookup("error").Type()

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

func other(b *ast.BinaryExpr, side ast.Expr) ast.Expr {
	if b.X == side {
		return b.Y
	}
	return b.X
}

// gotoLayer recognises `label: ...op...; if err != nil { wait; goto label }`.
func (p *pkgCtx) gotoLayer(ls *ast.LabeledStmt, fnNode ast.Node, stack []ast.Node) *Layer {
	if fnNode == nil || len(stack) < 2 {
		return nil
	}
	block, ok := stack[len(stack)-2].(*ast.BlockStmt)
	if !ok {
		return nil
	}
	idx := -1
	for i, st := range block.List {
		if st == ls {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	rest := block.List[idx:]
	region := &ast.BlockStmt{Lbrace: ls.Pos(), List: rest, Rbrace: rest[len(rest)-1].End()}
	var back *ast.BranchStmt
	ast.Inspect(region, func(n ast.Node) bool {
		if br, ok := n.(*ast.BranchStmt); ok && br.Tok == token.GOTO && br.Label != nil && br.Label.Name == ls.Label.Name && br.Pos() > ls.Pos() {
			back = br
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	if back == nil {
		return nil
	}
	s := p.shape(ls, region, nil)
	if len(s.errs) == 0 {
		return nil
	}
	// The goto must sit in a failure branch that waits.
	var branch *ast.IfStmt
	ast.Inspect(region, func(n ast.Node) bool {
		if ifs, ok := n.(*ast.IfStmt); ok && within(back, ifs.Body) && p.condIs(ifs.Cond, s, false) == failurePath {
			branch = ifs
		}
		return true
	})
	if branch == nil {
		return nil
	}
	waits := p.waitsIn(branch)
	if len(waits) == 0 {
		return nil
	}
	l := &Layer{Kind: Loop, Name: "retry loop (goto)", Pos: ls.Pos(), Node: ls, Body: region, Ops: s.ops}
	for _, w := range waits {
		l.Waits = append(l.Waits, w.node)
	}
	l.Context = p.opContext(s.ops)
	p.loopPolicy(l, ls, region, nil, waits, s, fnNode)
	return l
}

// recursionLayer recognises a function that calls itself again on its
// failure path (recursion.go): after a wait, or stepping a parameter that
// only counts the attempts.
func (p *pkgCtx) recursionLayer(fd *ast.FuncDecl) *Layer {
	if fd.Body == nil {
		return nil
	}
	self, _ := p.info.Defs[fd.Name].(*types.Func)
	if self == nil {
		return nil
	}
	// Most functions never call themselves: decide that before reading
	// the body's shape.
	if !p.callsSelf(fd.Body, self) {
		return nil
	}
	s := p.shape(fd, fd.Body, nil)
	if len(s.errs) == 0 {
		return nil
	}
	branches := p.retryRecursions(fd, self, s)
	if len(branches) == 0 {
		return nil
	}
	var waits []waitSite
	selfCalls := map[*ast.CallExpr]bool{}
	for _, b := range branches {
		waits = append(waits, p.waitsIn(b.region)...)
		selfCalls[b.call] = true
	}
	ops := make([]*ast.CallExpr, 0, len(s.ops))
	for _, op := range s.ops {
		if !selfCalls[op] {
			ops = append(ops, op)
		}
	}
	l := &Layer{Kind: Loop, Name: "retry by recursion", Pos: fd.Name.Pos(), Node: fd, Body: fd.Body, Ops: ops}
	for _, w := range waits {
		l.Waits = append(l.Waits, w.node)
	}
	l.Context = p.opContext(ops)
	p.loopPolicy(l, fd, fd.Body, nil, waits, s, fd)
	return l
}
