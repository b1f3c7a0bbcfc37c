package retrymodel

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/durconst"
)

// maxSchedule bounds how many waits of an unbounded or long schedule are listed.
const maxSchedule = 8

// counter is the attempt counter of a loop: its variable, its value on the
// first turn, and whether it is stepped before the waits of a turn.
type counter struct {
	v        *types.Var
	start    int64
	startOK  bool
	stepPos  token.Pos // the increment (NoPos: the for statement's post)
	inHeader bool
	down     bool // stepped by attempts-- (a count-down from the budget)
}

// at is the counter's value k steps after its start.
func (c *counter) at(k int64) int64 {
	if c.down {
		return c.start - k
	}
	return c.start + k
}

// defaultWaits folds the loop's attempts and waits a second time with the
// package's defaults for exported config fields (durconst Folder.Defaults):
// the schedule a client built by the package's own constructor runs.
// A func field's default (fieldfunc.go) is folded here too; at is where
// it is set, spread says the default waits have a random part, and more
// that the attempts have no bound even by default (ws is the first few).
func (p *pkgCtx) defaultWaits(n ast.Node, body *ast.BlockStmt, cond ast.Expr, s *loopShape, wait *waitSite, waitFirst bool) (ws []time.Duration, at token.Pos, spread, more bool) {
	p.fold.Defaults, p.defaultAt = true, token.NoPos
	defer func() { p.fold.Defaults, p.defaultAt = false, token.NoPos }()
	var pol Policy
	ctr := p.attempts(&pol, n, body, cond, s)
	p.schedule(&pol, wait, body, ctr, waitFirst)
	if !pol.WaitsKnown {
		return nil, token.NoPos, false, false
	}
	return pol.Waits, p.defaultAt, pol.WaitsUpTo != nil, !(pol.Attempts.Known && pol.Attempts.N > 0)
}

// loopPolicy fills l.Policy for a hand-rolled loop, goto loop or recursion.
func (p *pkgCtx) loopPolicy(l *Layer, n ast.Node, body *ast.BlockStmt, cond ast.Expr, waits []waitSite, s *loopShape, fnNode ast.Node) {
	p.firstTurn = nil
	pol := &l.Policy
	ctr := p.attempts(pol, n, body, cond, s)

	// Waits: fold the first wait's duration for each turn.
	var wait *waitSite
	for i := range waits {
		if waits[i].dur != nil {
			wait = &waits[i]
			break
		}
	}
	if wait != nil {
		pol.WaitPos = wait.node.Pos()
		// A wait written before the attempt in the body runs, on turn k+1,
		// between attempts k+1 and k+2 — unless the first attempt runs
		// before the loop (err := op(); for err != nil ...).
		waitFirst := len(l.Ops) > 0 && wait.node.Pos() < l.Ops[0].Pos() && within(l.Ops[0], body) &&
			!(cond != nil && p.mentionsErr(cond, s))
		if f, ok := n.(*ast.ForStmt); ok && waitFirst && p.opBeforeLoop(f, nil) {
			waitFirst = false // the first wait follows the attempt before the loop
		}
		pol.WaitsAfterLast = p.waitsAfterLast(body, ctr, wait, l.Ops, waitFirst)
		pol.ProdWaits, pol.ProdLastWait = p.prodWaits(l, n, ctr)
		p.schedule(pol, wait, body, ctr, waitFirst)
		p.hintlessWaits(pol, wait, body, ctr, waitFirst)
		pol.Jitter = p.waitJitter(wait)
		if len(pol.Waits) == 0 {
			pol.FixedWait, _ = p.fixedWait(wait, body)
		}
		if pol.Jitter == Unknown && pol.WaitsKnown {
			pol.Jitter = No
		}
		if !pol.WaitsKnown {
			pol.DefaultWaits, pol.DefaultFuncAt, pol.DefaultSpread, pol.DefaultMore = p.defaultWaits(n, body, cond, s, wait, waitFirst)
		}
	} else if bt := tickerWait(waits); bt != nil {
		// A backoff.Ticker: the schedule is the backoff's.
		c := &callCtx{pkgCtx: p}
		b := c.resolveBackoff(bt.backoff, bt.backoffPkg, 0)
		lib := "backoff v4"
		if bt.backoffPkg == pkgBackoffV5 {
			lib = "backoff v5"
		}
		c.boSchedule(l, b, lib)
		c.fillWaits(l)
		pol.WaitPos = bt.node.Pos()
	} else if len(waits) == 0 {
		pol.Schedule = "no wait between attempts"
		pol.WaitsKnown = true
		pol.Jitter = No
	}

	// Cancellation and the deadline.
	pol.WaitCancellable = Yes
	for _, w := range waits {
		switch {
		case w.cancellable == Yes:
		case w.funcValue && w.cancellable == Unknown: // funcwait.go: a sleeper not seen here
			if pol.WaitCancellable == Yes {
				pol.WaitCancellable = Unknown
			}
		default:
			pol.WaitCancellable = No
		}
	}
	if len(waits) == 0 {
		pol.WaitCancellable = Unknown
	}
	pol.DeadlineAware = No
	check := func(root ast.Node) {
		if root == nil {
			return
		}
		if pos := p.deadlineCheck(root); pos.IsValid() && !pol.DeadlinePos.IsValid() {
			pol.DeadlineAware, pol.DeadlinePos = Yes, pos
		}
	}
	if cond != nil {
		check(cond)
	}
	check(body)
	pol.Guard = p.guard(body, wait)
	p.guardFirstWait(pol.Guard)
	if pol.Guard != nil && pol.DeadlineAware != Yes {
		// A guard helper reads the deadline itself: it is the check.
		pol.DeadlineAware, pol.DeadlinePos = Yes, pol.Guard.Pos
	}

	// The retry's own overall limit: a context.WithTimeout in the function
	// before the loop, whose context the loop uses.
	pol.MaxElapsed = p.enclosingTimeout(l, fnNode)
	if !pol.MaxElapsed.Set {
		pol.MaxElapsed = p.wallClockBound(n, cond, body, fnNode)
	}
	pol.PerAttempt = p.bodyTimeout(body)
	if pol.AttemptDeadline = p.attemptDeadline(body); pol.AttemptDeadline != nil {
		pol.AttemptCtxEnds = pol.AttemptDeadline.Cond
	}

	if pos := p.retryAfterPos(body); pos.IsValid() {
		pol.RetryAfter, pol.RetryAfterPos = Yes, pos
	} else {
		pol.RetryAfter = No
	}
	pol.Decisions = s.decide
	if s.class != nil {
		pol.Classifier = s.class
		ast.Inspect(s.class, func(m ast.Node) bool {
			if call, ok := m.(*ast.CallExpr); ok && pol.ClassifierFunc == nil {
				if fn := typeutil.StaticCallee(p.info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() != "errors" {
					pol.ClassifierFunc = fn
				}
			}
			return pol.ClassifierFunc == nil
		})
	}
}

// tickerWait returns the backoff-ticker wait among waits, if any.
func tickerWait(waits []waitSite) *waitSite {
	for i := range waits {
		if waits[i].backoff != nil {
			return &waits[i]
		}
	}
	return nil
}

// attempts finds the attempt bound: the for clause, range n, or a counter
// test in the body that gives up.
func (p *pkgCtx) attempts(pol *Policy, n ast.Node, body *ast.BlockStmt, cond ast.Expr, s *loopShape) *counter {
	switch n := n.(type) {
	case *ast.RangeStmt:
		c := &counter{start: 0, startOK: true, inHeader: true}
		if id, ok := n.Key.(*ast.Ident); ok {
			c.v = p.identVar(id)
		}
		if v, ok := p.fold.Int(n.X); ok {
			pol.Attempts = Value{Set: true, Known: true, N: max(v, 1), Pos: n.X.Pos()} // range 0: no retry, not unbounded
		} else {
			pol.Attempts = Value{Set: true, Pos: n.X.Pos()}
		}
		return c
	case *ast.ForStmt:
		if c, ok := p.headerCounter(pol, n); ok {
			return c
		}
	}
	// for {} / for err != nil / goto / recursion: a counter tested in the
	// body, stepped in the body or in the for clause's post statement.
	if f, ok := n.(*ast.ForStmt); ok {
		p.post = f.Post
		defer func() { p.post = nil }()
	}
	if c, ok := p.bodyCounter(pol, body, cond, s); ok {
		return c
	}
	if c := p.helperCounter(pol, body); c != nil {
		return c
	}
	if call := p.policyExit(body); call != nil {
		// Bounded by a retry policy the model does not read: unknown.
		pol.Attempts = Value{Set: true, Pos: call.Pos()}
		return nil
	}
	pol.Attempts = Value{Set: true, Known: true, N: 0} // unbounded
	return nil
}

// policyExit finds a call that hands the loop its next wait and a stop:
// `interval, err := retrier.Next(err); if err != nil { return ... }` (a
// duration and an error or bool, the second tested where the loop is
// left). Such a loop ends when its policy says so, not never.
func (p *pkgCtx) policyExit(body *ast.BlockStmt) *ast.CallExpr {
	stops := map[*types.Var]*ast.CallExpr{}
	var found *ast.CallExpr
	record := func(n *ast.AssignStmt) {
		if len(n.Lhs) != 2 || len(n.Rhs) != 1 {
			return
		}
		call, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return
		}
		tup, ok := p.info.TypeOf(call).(*types.Tuple)
		if !ok || tup.Len() != 2 || !isDuration(tup.At(0).Type()) {
			return
		}
		second := tup.At(1).Type()
		if !isErrorType(second) && !types.Identical(second.Underlying(), types.Typ[types.Bool]) {
			return
		}
		if id, ok := n.Lhs[1].(*ast.Ident); ok {
			if v := p.identVar(id); v != nil {
				stops[v] = call
			}
		}
	}
	p.inspectRegion(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			record(n)
		case *ast.IfStmt:
			// if d, ok := retryer.Retry(err); !ok { return err }: the
			// init runs before the condition is read.
			if as, ok := n.Init.(*ast.AssignStmt); ok {
				record(as)
			}
			if !p.blockLeavesAny(n.Body) {
				return true
			}
			ast.Inspect(n.Cond, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && found == nil {
					if v := p.identVar(id); v != nil && stops[v] != nil {
						found = stops[v]
					}
				}
				return found == nil
			})
		}
		return true
	})
	return found
}

// headerCounter reads `for i := a; i < N; i++` (also <=, and N > i).
func (p *pkgCtx) headerCounter(pol *Policy, f *ast.ForStmt) (*counter, bool) {
	if f.Cond == nil {
		return nil, false
	}
	var cmp *ast.BinaryExpr
	ast.Inspect(f.Cond, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && cmp == nil {
			switch b.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				cmp = b
				return false
			}
		}
		return true
	})
	if cmp == nil {
		cmp = p.unitStepNEQ(f)
	}
	if cmp == nil {
		return nil, false
	}
	id, bound, op := counterSide(cmp)
	if id == nil {
		return nil, false
	}
	v := p.identVar(id)
	if v == nil {
		return nil, false
	}
	// A count the function never changes after declaring it (retries :=
	// 0; for retries < 5 { ... } with no retries++) does not bound the
	// loop: only a break or a return ends it. The bound is read from the
	// body instead, and the test is kept for the finding.
	if def, _ := p.localDef(v, true, true); def != nil && !within(def, f) {
		if _, ok := p.fold.Int(bound); ok && isIntegral(v.Type()) {
			pol.StillCounter = cmp
			return nil, false
		}
	}
	c := &counter{v: v, inHeader: true, down: p.stepsDown(f.Post, v)}
	if f.Post == nil || !p.mentions(f.Post, func(w *types.Var) bool { return w == v }) {
		// for retries < n { ...; retries++; wait } steps in the body: a
		// wait after the step sees the count of the next attempt.
		if step, down := p.stepOf(v, f.Body); step.IsValid() {
			c.inHeader, c.stepPos, c.down = false, step, down
		}
	}
	c.start, c.startOK = p.initialValue(v, f.Init)
	pol.Attempts = Value{Set: true, Pos: bound.Pos()}
	if n, ok := p.fold.Int(bound); ok && c.startOK {
		var total int64
		if op == token.NEQ { // for i := 0; i != n; i++: one step at a time, it stops at n
			op = token.LSS
			if c.down {
				op = token.GTR
			}
		}
		switch {
		case !c.down && (op == token.LSS || op == token.LEQ):
			total = n - c.start // for i := 0; i < n; i++
		case c.down && (op == token.GTR || op == token.GEQ):
			total = c.start - n // for left := n; left > 0; left--
		default:
			return c, true // a loop that never ends on its counter: not read
		}
		if op == token.LEQ || op == token.GEQ {
			total++
		}
		if total > 0 && p.opBeforeLoop(f, v) {
			total++ // err := op(); for err != nil && i < n { ... }
		}
		// A bound of 0 turns (maxRetries = 0) retries nothing: at most the
		// one attempt, never the N == 0 that stands for unbounded.
		pol.Attempts.Known, pol.Attempts.N = true, max(total, 1)
	}
	return c, true
}

// unitStepNEQ returns the test i != n of a for clause whose post
// statement steps the integer i by one (i++ or i--): with no ordered
// comparison in the condition, it is the loop's counter test, and it
// ends the loop when i reaches n as i < n (or i > n) would.
func (p *pkgCtx) unitStepNEQ(f *ast.ForStmt) *ast.BinaryExpr {
	inc, ok := f.Post.(*ast.IncDecStmt)
	if !ok {
		return nil
	}
	v := p.varOf(inc.X)
	if v == nil || !isIntegral(v.Type()) {
		return nil
	}
	var cmp *ast.BinaryExpr
	ast.Inspect(f.Cond, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && cmp == nil && b.Op == token.NEQ {
			for _, side := range []ast.Expr{b.X, b.Y} {
				if id, ok := astutil.Unparen(side).(*ast.Ident); ok && p.identVar(id) == v {
					cmp = b
				}
			}
		}
		return cmp == nil
	})
	if cmp == nil {
		return nil
	}
	if id, ok := astutil.Unparen(cmp.X).(*ast.Ident); !ok || p.identVar(id) != v {
		// n != i: put the counter on the left for counterSide.
		cmp = &ast.BinaryExpr{X: cmp.Y, OpPos: cmp.OpPos, Op: token.NEQ, Y: cmp.X}
	}
	return cmp
}

// stepsDown reports a for clause's post statement that steps v down by
// one: v-- or v -= 1.
func (p *pkgCtx) stepsDown(post ast.Stmt, v *types.Var) bool {
	switch st := post.(type) {
	case *ast.IncDecStmt:
		return st.Tok == token.DEC && p.varOf(st.X) == v
	case *ast.AssignStmt:
		if st.Tok != token.SUB_ASSIGN || len(st.Lhs) != 1 || p.varOf(st.Lhs[0]) != v {
			return false
		}
		n, ok := p.fold.Int(st.Rhs[0])
		return ok && n == 1
	}
	return false
}

// counterSide returns the counter, the bound and the comparison with the
// counter on the left (i < N).
func counterSide(b *ast.BinaryExpr) (*ast.Ident, ast.Expr, token.Token) {
	if id, ok := astutil.Unparen(b.X).(*ast.Ident); ok {
		return id, b.Y, b.Op
	}
	if id, ok := astutil.Unparen(b.Y).(*ast.Ident); ok && (b.Op == token.GTR || b.Op == token.GEQ) {
		return id, b.X, Flip(b.Op)
	}
	return nil, nil, 0
}

// initialValue finds the counter's value before the first turn: in the
// for clause's init, or its declaration.
func (p *pkgCtx) initialValue(v *types.Var, init ast.Stmt) (int64, bool) {
	if as, ok := init.(*ast.AssignStmt); ok {
		for i, lhs := range as.Lhs {
			if id, ok := lhs.(*ast.Ident); ok && p.identVar(id) == v && i < len(as.Rhs) {
				return p.fold.Int(as.Rhs[i])
			}
		}
	}
	return p.declValue(v)
}

// declValue folds the value a local is declared with (attempt := 0).
func (p *pkgCtx) declValue(v *types.Var) (int64, bool) {
	var val ast.Expr
	for _, f := range p.pass.Files {
		if v.Pos() < f.Pos() || v.Pos() > f.End() {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(f, v.Pos(), v.Pos())
		for _, n := range path {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && p.info.Defs[id] == v && i < len(n.Rhs) && len(n.Rhs) == len(n.Lhs) {
						val = n.Rhs[i]
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if p.info.Defs[id] == v {
						if i < len(n.Values) {
							val = n.Values[i]
						} else {
							return 0, true // var attempt int
						}
					}
				}
			}
			if val != nil {
				break
			}
		}
	}
	if val == nil {
		return 0, false
	}
	return p.fold.Int(val)
}

// opBeforeLoop reports `err := op(); for err != nil ...`: the first attempt
// runs before the loop, which then counts only retries.
func (p *pkgCtx) opBeforeLoop(f *ast.ForStmt, ctr *types.Var) bool {
	isErr := func(v *types.Var) bool { return isErrorType(v.Type()) }
	if f.Cond != nil && p.mentions(f.Cond, isErr) {
		return true
	}
	// resp, err := op(); for i := 0; i < n; i++ { if err == nil { break };
	// wait; resp, err = op() }: the body first tests the attempt made
	// before the loop (or in the turn before) and leaves on its outcome.
	if f.Body == nil || len(f.Body.List) == 0 {
		return false
	}
	ifs, ok := f.Body.List[0].(*ast.IfStmt)
	return ok && ifs.Init == nil && p.mentions(ifs.Cond, isErr) && leaves(ifs.Body, nil)
}

// bodyCounter reads `if attempt >= max { return err }` in the body, with
// attempt stepped once a turn.
func (p *pkgCtx) bodyCounter(pol *Policy, body *ast.BlockStmt, cond ast.Expr, s *loopShape) (*counter, bool) {
	var found *counter
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		b, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
		if !ok {
			return true
		}
		if b.Op == token.LAND || b.Op == token.LOR {
			// `err != nil && attempt < max` in a goto loop: look inside.
			for _, side := range []ast.Expr{b.X, b.Y} {
				if sb, ok := astutil.Unparen(side).(*ast.BinaryExpr); ok {
					if c := p.counterTest(pol, sb, ifs, body); c != nil {
						found = c
						return false
					}
				}
			}
			return true
		}
		if c := p.counterTest(pol, b, ifs, body); c != nil {
			found = c
		}
		return true
	})
	return found, found != nil
}

func (p *pkgCtx) counterTest(pol *Policy, b *ast.BinaryExpr, ifs *ast.IfStmt, body *ast.BlockStmt) *counter {
	id, bound, op := counterSide(b)
	if id == nil {
		return nil
	}
	v := p.identVar(id)
	if v == nil || !isIntegral(v.Type()) {
		return nil
	}
	step, down := p.stepOf(v, body)
	if !step.IsValid() {
		return nil
	}
	if !p.blockLeavesAny(ifs.Body) && !p.endsInGoto(ifs.Body) && !onlyWayRound(ifs, body) {
		// `if verbose && attempt > 0 { log }` neither gives up nor retries.
		return nil
	}
	c := &counter{v: v, stepPos: step, down: down}
	c.start, c.startOK = p.declValue(v)
	inPost := p.post != nil && step == p.post.Pos()
	c.inHeader = inPost // stepped after the body, like a counted for clause
	p.attemptsFromTest(pol, c, bound, op, step < ifs.Pos() && !inPost, p.blockLeavesAny(ifs.Body))
	return c
}

// onlyWayRound reports an if of the loop's body whose branch is the one
// way round: it ends in continue, the body ends in break or return after
// it, and no other continue of the loop is in the body.
//
//	for {
//		resp, err = do()
//		if retryable(resp) && retries < max { retries++; wait; continue }
//		break
//	}
//
// The loop goes round while the test holds, like a goto retry's branch.
func onlyWayRound(ifs *ast.IfStmt, body *ast.BlockStmt) bool {
	if !endsIn(ifs.Body, token.CONTINUE) || len(body.List) == 0 || !slices.Contains(body.List, ast.Stmt(ifs)) {
		return false
	}
	switch last := body.List[len(body.List)-1].(type) {
	case *ast.ReturnStmt:
	case *ast.BranchStmt:
		if last.Tok != token.BREAK || last.Label != nil {
			return false
		}
	default:
		return false
	}
	others := 0
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false // their continues are their own
		case *ast.BranchStmt:
			if n.Tok == token.CONTINUE && (n.Pos() < ifs.Body.Pos() || n.Pos() >= ifs.Body.End()) {
				others++
			}
		}
		return true
	})
	return others == 0
}

// helperCounter reads the bound from a classifier helper the body hands the
// counter to: retry, after, err := a.shouldRetry(attempts, err), where
// shouldRetry starts with `if attempts > maxRetries { return false, 0, err }`.
func (p *pkgCtx) helperCounter(pol *Policy, body *ast.BlockStmt) *counter {
	var found *counter
	p.inspectRegion(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found != nil {
			return found == nil
		}
		fn := typeutil.StaticCallee(p.info, call)
		decl := p.res.decls[fn]
		if decl == nil || decl.Body == nil {
			return true
		}
		sig := fn.Type().(*types.Signature)
		for i, a := range call.Args {
			id, ok := astutil.Unparen(a).(*ast.Ident)
			if !ok || i >= sig.Params().Len() {
				continue
			}
			v := p.identVar(id)
			if v == nil || !isIntegral(v.Type()) {
				continue
			}
			step, down := p.stepOf(v, body)
			if !step.IsValid() || down {
				continue // a helper's `attempts > max` reads a count up
			}
			param := sig.Params().At(i)
			for _, st := range decl.Body.List {
				ifs, ok := st.(*ast.IfStmt)
				if !ok || !p.blockLeavesAny(ifs.Body) {
					continue
				}
				b, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
				if !ok {
					continue
				}
				pid, bound, op := counterSide(b)
				if pid == nil || p.identVar(pid) != param {
					continue
				}
				c := &counter{v: v, stepPos: step}
				c.start, c.startOK = p.declValue(v)
				p.attemptsFromTest(pol, c, bound, op, step < call.Pos(), true)
				found = c
				return false
			}
		}
		return true
	})
	return found
}

// attemptsFromTest finds the first turn on which a counter test gives up
// (leaves) or stops letting the retry go on (a goto guard), given the
// counter's start and whether it is stepped before the test.
func (p *pkgCtx) attemptsFromTest(pol *Policy, c *counter, bound ast.Expr, op token.Token, stepBefore, leaves bool) {
	pol.Attempts = Value{Set: true, Pos: bound.Pos()}
	n, ok := p.fold.Int(bound)
	if !ok || !c.startOK {
		return
	}
	at := func(k int64) int64 {
		if stepBefore {
			return c.at(k)
		}
		return c.at(k - 1)
	}
	for k := int64(1); k <= 10000; k++ {
		x := at(k)
		var holds bool
		switch op {
		case token.LSS:
			holds = x < n
		case token.LEQ:
			holds = x <= n
		case token.GTR:
			holds = x > n
		case token.GEQ:
			holds = x >= n
		case token.EQL:
			holds = x == n
		}
		if leaves && holds || !leaves && !holds {
			pol.Attempts.Known, pol.Attempts.N = true, k
			return
		}
	}
}

// stepOf finds the statement that steps the counter once a turn, and
// whether it steps it down (attempts--, left -= 1: a count-down from the
// budget).
func (p *pkgCtx) stepOf(v *types.Var, body *ast.BlockStmt) (pos token.Pos, down bool) {
	if inc, ok := p.post.(*ast.IncDecStmt); ok && p.varOf(inc.X) == v {
		return inc.Pos(), inc.Tok == token.DEC // for ...; ; attempt++: after the body
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IncDecStmt:
			if p.varOf(n.X) == v {
				pos, down = n.Pos(), n.Tok == token.DEC
			}
		case *ast.AssignStmt:
			if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Lhs) == 1 && p.varOf(n.Lhs[0]) == v {
				if k, ok := p.fold.Int(n.Rhs[0]); ok && k == 1 || n.Tok == token.ADD_ASSIGN {
					pos, down = n.Pos(), n.Tok == token.SUB_ASSIGN
				}
			}
		case *ast.CallExpr:
			// recursion: f(ctx, attempt+1), where f holds the body
			fn := typeutil.StaticCallee(p.info, n)
			if d := p.res.decls[fn]; d == nil || !within(body, d) {
				return true
			}
			for _, a := range n.Args {
				if b, ok := a.(*ast.BinaryExpr); ok && (b.Op == token.ADD || b.Op == token.SUB) {
					if id, ok := b.X.(*ast.Ident); ok && p.identVar(id) == v {
						pos, down = n.Pos(), b.Op == token.SUB
					}
				}
			}
		}
		return !pos.IsValid()
	})
	return pos, down
}

// blockLeavesAny: the block ends in a return or any break.
func (p *pkgCtx) blockLeavesAny(b *ast.BlockStmt) bool { return p.blockLeaves(b, nil) }

// schedule folds the wait for each turn between attempts.
func (p *pkgCtx) schedule(pol *Policy, w *waitSite, body *ast.BlockStmt, ctr *counter, waitFirst bool) {
	nwaits := maxSchedule
	if pol.Attempts.Known && pol.Attempts.N > 0 {
		nwaits = int(min(pol.Attempts.N-1, maxSchedule))
	}
	// The wait after the last attempt is folded as one more turn.
	turns := nwaits
	if pol.WaitsAfterLast && pol.Attempts.Known && pol.Attempts.N > 0 && pol.Attempts.N-1 < maxSchedule {
		turns++
	}
	// Variables the body grows each turn: delay *= 2, delay = min(delay*2, max).
	grow := p.growingVars(body)
	state := env{}
	for v, g := range grow {
		init, ok := p.declValue(v)
		if !ok {
			if d, ok := p.fold.Duration(g.initExpr); ok && g.initExpr != nil {
				init = int64(d)
			} else {
				return
			}
		}
		state[v] = constant.MakeInt64(init)
	}
	var waits, his []time.Duration
	spread := false
	p.atLeast = false
	defer func() { pol.WaitsAtLeast = len(pol.Waits) > 0 && p.atLeast }()
	for k := 0; k < turns; k++ {
		bind := env{}
		for v, c := range state {
			bind[v] = c
		}
		// Updates that run before the wait in the body take effect first.
		for v, g := range grow {
			if g.pos < w.node.Pos() {
				nv, ok := p.eval(g.expr, bind, 0)
				if !ok {
					return
				}
				bind[v] = nv
			}
		}
		if ctr != nil && ctr.v != nil && ctr.startOK {
			steps := int64(k)
			if !ctr.inHeader && ctr.stepPos.IsValid() && ctr.stepPos < w.node.Pos() {
				steps++
			}
			if waitFirst {
				steps++ // the wait precedes the attempt in the body: turn k+1 waits before attempt k+2
			}
			bind[ctr.v] = constant.MakeInt64(ctr.at(steps))
		}
		if k == 0 {
			p.firstTurn = bind
		}
		iv, ok := p.evalWait(w, bind)
		if !ok || iv.hi > iv.lo && iv.lo <= 0 {
			break
		}
		if iv.hi > iv.lo {
			// A random part: the least the wait can be is still a result,
			// and the most it can be says how far the jitter spreads it.
			p.atLeast, spread = true, true
		}
		waits, his = append(waits, time.Duration(iv.lo)), append(his, time.Duration(iv.hi))
		// advance the growing variables for the next turn
		for v, g := range grow {
			if g.pos < w.node.Pos() {
				state[v] = bind[v]
				continue
			}
			nv, ok := p.eval(g.expr, bind, 0)
			if !ok {
				return
			}
			state[v] = nv
		}
	}
	if turns > nwaits && len(waits) == turns {
		pol.LastWait = waits[nwaits]
		waits, his = waits[:nwaits], his[:nwaits]
	}
	if len(waits) == 0 {
		pol.Schedule = "waits " + types.ExprString(w.dur)
		return
	}
	pol.Waits = waits
	if spread {
		pol.WaitsUpTo = his
	}
	pol.WaitsKnown = len(waits) == nwaits
	pol.Schedule = describeSchedule(waits)
}

func describeSchedule(ws []time.Duration) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, durconst.Format(w))
	}
	if len(ws) > 1 && allSame(ws) {
		return "constant " + durconst.Format(ws[0])
	}
	return "waits " + strings.Join(parts, ", ")
}

func allSame(ws []time.Duration) bool {
	for _, w := range ws[1:] {
		if w != ws[0] {
			return false
		}
	}
	return true
}

type growth struct {
	expr     ast.Expr // the new value in terms of the old
	pos      token.Pos
	initExpr ast.Expr
}

// growingVars finds variables declared outside the body that the body
// updates from themselves: d *= 2, d = d * 2, d = min(d*2, max), d += step,
// and a count n++ that no header or bound steps (an unbounded loop's
// retries counter, which the wait may read).
// The answer is kept per body: the readiness test asks it again for
// every variable a wait mentions, and each answer holds nodes it builds.
func (p *pkgCtx) growingVars(body *ast.BlockStmt) map[*types.Var]growth {
	if g, ok := p.grown[body]; ok {
		return g
	}
	out := make(map[*types.Var]growth)
	if p.grown == nil {
		p.grown = make(map[*ast.BlockStmt]map[*types.Var]growth)
	}
	p.grown[body] = out
	p.inspectRegion(body, func(n ast.Node) bool {
		if inc, ok := n.(*ast.IncDecStmt); ok {
			id, ok := astutil.Unparen(inc.X).(*ast.Ident)
			if !ok {
				return true
			}
			v := p.identVar(id)
			if v == nil || (body.Pos() <= v.Pos() && v.Pos() < body.End()) || !isIntegral(v.Type()) {
				return true
			}
			op := token.ADD
			if inc.Tok == token.DEC {
				op = token.SUB
			}
			expr := &ast.BinaryExpr{X: id, Op: op, Y: &ast.BasicLit{Kind: token.INT, Value: "1", ValuePos: inc.TokPos}, OpPos: inc.TokPos}
			if p.synth == nil {
				p.synth = make(map[ast.Expr]types.Type)
			}
			p.synth[expr] = v.Type()
			out[v] = growth{expr: expr, pos: inc.Pos()}
			return true
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return true
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok {
			return true
		}
		v := p.identVar(id)
		if v == nil || (body.Pos() <= v.Pos() && v.Pos() < body.End()) {
			return true
		}
		if _, ok := v.Type().Underlying().(*types.Basic); !ok {
			return true
		}
		var expr ast.Expr
		switch as.Tok {
		case token.MUL_ASSIGN, token.ADD_ASSIGN, token.SHL_ASSIGN:
			op := map[token.Token]token.Token{token.MUL_ASSIGN: token.MUL, token.ADD_ASSIGN: token.ADD, token.SHL_ASSIGN: token.SHL}[as.Tok]
			expr = &ast.BinaryExpr{X: id, Op: op, Y: as.Rhs[0], OpPos: as.TokPos}
			// eval needs the synthetic node's type; pass.TypesInfo is
			// shared with concurrent analyzers, so it goes in p.synth.
			if p.synth == nil {
				p.synth = make(map[ast.Expr]types.Type)
			}
			p.synth[expr] = v.Type()
		case token.ASSIGN:
			uses := false
			ast.Inspect(as.Rhs[0], func(m ast.Node) bool {
				if mid, ok := m.(*ast.Ident); ok && p.identVar(mid) == v {
					uses = true
				}
				return true
			})
			if !uses {
				return true
			}
			expr = as.Rhs[0]
		default:
			return true
		}
		out[v] = growth{expr: expr, pos: as.Pos()}
		return true
	})
	return out
}

// assignmentsTo returns the values assigned to a local in fn.
func (p *pkgCtx) assignmentsTo(v *types.Var, fn ast.Node) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(fn, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			if id, ok := lhs.(*ast.Ident); ok && p.identVar(id) == v {
				if len(as.Rhs) == len(as.Lhs) {
					out = append(out, as.Rhs[i])
				} else if len(as.Rhs) == 1 {
					out = append(out, as.Rhs[0])
				}
			}
		}
		return true
	})
	return out
}

// deadlineCheck finds a test of the caller's deadline or cancellation:
// ctx.Err(), ctx.Done(), ctx.Deadline(), time.Until, or a cancellable wait
// helper.
func (p *pkgCtx) deadlineCheck(root ast.Node) token.Pos {
	var pos token.Pos
	ast.Inspect(root, func(n ast.Node) bool {
		if pos.IsValid() {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && IsContext(p.info.TypeOf(sel.X)) {
			switch sel.Sel.Name {
			case "Err", "Done", "Deadline":
				pos = call.Pos()
				return false
			}
		}
		fn := typeutil.StaticCallee(p.info, call)
		if isFunc(fn, "time", "Until") {
			pos = call.Pos()
			return false
		}
		if fn != nil {
			if w, ok := p.waiterOf(fn); ok && w.cancellable {
				pos = call.Pos()
			}
		} else if w, ok := p.funcValueWait(call); ok && w.cancellable == Yes {
			pos = call.Pos() // r.sleep(ctx, d) given only sleepers that honour ctx
		}
		return true
	})
	return pos
}

// guard finds `if remaining < wait + reserve { give up }`, where remaining
// comes from ctx.Deadline / time.Until, in the body or in a package helper
// the body calls with the wait.
func (p *pkgCtx) guard(body *ast.BlockStmt, wait *waitSite) *Guard {
	var g *Guard
	var top ast.Node // the body's node that holds the guard
	var waitVar *types.Var
	if wait != nil {
		if id, ok := astutil.Unparen(wait.dur).(*ast.Ident); ok {
			waitVar = p.identVar(id)
		}
	}
	var search func(root ast.Node, fnScope ast.Node, wv *types.Var, depth int)
	search = func(root ast.Node, fnScope ast.Node, wv *types.Var, depth int) {
		ast.Inspect(root, func(n ast.Node) bool {
			if g != nil || n == nil {
				return false
			}
			switch n := n.(type) {
			case *ast.BinaryExpr:
				switch n.Op {
				case token.LSS, token.LEQ, token.GTR, token.GEQ:
				default:
					return true
				}
				left, right := n.X, n.Y
				if n.Op == token.GTR || n.Op == token.GEQ {
					left, right = n.Y, n.X
				}
				if !p.remainingTime(left, fnScope, 0) {
					return true
				}
				g = p.newGuard(n, right, wv, 0)
				return false
			case *ast.CallExpr:
				if gd := p.guardCall(n, wv); gd != nil {
					g = gd
					return false
				}
				// now.Add(wait + reserve).Before(dl), written in place.
				if need, ok := p.timeCompare(n); ok && need != nil {
					g = p.newGuard(n, need, wv, 0)
					return false
				}
				if depth > 0 {
					return true
				}
				fn := typeutil.StaticCallee(p.info, n)
				decl := p.res.decls[fn]
				if decl == nil || decl.Body == nil {
					return true
				}
				// Map the wait argument to the helper's parameter.
				var pv *types.Var
				sig := fn.Type().(*types.Signature)
				for i, a := range n.Args {
					if id, ok := astutil.Unparen(a).(*ast.Ident); ok && wv != nil && p.identVar(id) == wv && i < sig.Params().Len() {
						pv = sig.Params().At(i)
					}
				}
				search(decl.Body, decl, pv, depth+1)
				if g != nil && top == nil {
					top = n
				}
			}
			return true
		})
	}
	search(body, body, waitVar, 0)
	if g == nil {
		// The guard may sit in the enclosing function, before the wait but
		// outside the body (rare); not searched.
		return nil
	}
	if top == nil {
		top = g.Expr
	}
	if !p.guardDecides(body, top) {
		return nil
	}
	return g
}

// remainingTime reports whether e is the time left before a deadline:
// time.Until(d), d.Sub(time.Now()), or a local assigned one of those.
func (p *pkgCtx) remainingTime(e ast.Expr, scope ast.Node, depth int) bool {
	if depth > 3 {
		return false
	}
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(p.info, e)
		if isFunc(fn, "time", "Until") {
			return true
		}
		if fn != nil && fn.Name() == "Sub" && len(e.Args) == 1 && p.clockNow(e.Args[0], 0) {
			return true
		}
	case *ast.Ident:
		v := p.identVar(e)
		if v == nil {
			return false
		}
		for _, rhs := range p.assignmentsTo(v, p.funcScope(scope)) {
			if p.remainingTime(rhs, scope, depth+1) {
				return true
			}
		}
	}
	return false
}

// clockNow reports whether e reads the current time: time.Now(), a call
// of a package function or method that returns such a read, or of a func
// value (a clock the code holds so tests can replace it: c.now()) whose
// every value the package's code gives it is one of those.
func (p *pkgCtx) clockNow(e ast.Expr, depth int) bool {
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 || depth > 3 {
		return false
	}
	if fn := typeutil.StaticCallee(p.info, call); fn != nil {
		return p.clockFunc(fn, depth)
	}
	v := varOf(p.info, call.Fun)
	if v == nil {
		return false
	}
	vals, known := p.res.Writes(v)
	clocks := 0
	for _, val := range vals {
		if val != nil && p.res.inTestFile(val.Pos()) && !p.res.inTestFile(call.Pos()) {
			continue // a test's fake clock
		}
		var fn *types.Func
		switch x := astutil.Unparen(val).(type) {
		case *ast.Ident:
			fn, _ = p.info.Uses[x].(*types.Func)
		case *ast.SelectorExpr:
			fn, _ = p.info.Uses[x.Sel].(*types.Func)
		case *ast.FuncLit:
			if r := singleReturn(x.Body); r != nil && p.clockNow(r, depth+1) {
				clocks++
				continue
			}
		}
		if fn == nil || !p.clockFunc(fn, depth+1) {
			return false
		}
		clocks++
	}
	return known && clocks > 0
}

// clockFunc: time.Now, or a function of this package whose body returns
// a clock read.
func (p *pkgCtx) clockFunc(fn *types.Func, depth int) bool {
	if isFunc(fn, "time", "Now") {
		return true
	}
	if decl := p.res.decls[fn.Origin()]; decl != nil && decl.Body != nil {
		r := singleReturn(decl.Body)
		return r != nil && p.clockNow(r, depth+1)
	}
	return false
}

// singleReturn is the result of a body that is one return of one value.
func singleReturn(b *ast.BlockStmt) ast.Expr {
	if b == nil || len(b.List) != 1 {
		return nil
	}
	if r, ok := b.List[0].(*ast.ReturnStmt); ok && len(r.Results) == 1 {
		return r.Results[0]
	}
	return nil
}

// funcScope widens a region to its enclosing function declaration (n
// itself outside any). The declarations are sorted once: the model asks
// for every condition it reads, and generated code has thousands.
func (p *pkgCtx) funcScope(n ast.Node) ast.Node {
	if p.declsByPos == nil {
		for _, f := range p.pass.Files {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					p.declsByPos = append(p.declsByPos, fd)
				}
			}
		}
		slices.SortFunc(p.declsByPos, func(a, b *ast.FuncDecl) int { return cmp.Compare(a.Pos(), b.Pos()) })
	}
	i, _ := slices.BinarySearchFunc(p.declsByPos, n.Pos()+1, func(fd *ast.FuncDecl, pos token.Pos) int { return cmp.Compare(fd.Pos(), pos) })
	if i > 0 {
		if fd := p.declsByPos[i-1]; fd.Pos() <= n.Pos() && n.End() <= fd.End() {
			return fd
		}
	}
	return n
}

// newGuard is the guard at expression at whose need (what the time left
// must cover) is need, with extra added inside a guard helper.
func (p *pkgCtx) newGuard(at, need ast.Expr, wait *types.Var, extra time.Duration) *Guard {
	reserve, w, ok := p.reserveOf(need, wait)
	gd := &Guard{Pos: at.Pos(), Expr: at, IncludesWait: w != nil, WaitExpr: w, Text: types.ExprString(at)}
	if ok {
		gd.Reserve = Value{Set: true, Known: true, D: reserve + extra, Pos: need.Pos()}
	} else {
		gd.Reserve = Value{Set: true, Pos: need.Pos()}
	}
	return gd
}

// reserveOf splits `wait + reserve` into its constant part, and returns
// the term that is the wait variable (nil when it is not one of them).
func (p *pkgCtx) reserveOf(e ast.Expr, wait *types.Var) (time.Duration, ast.Expr, bool) {
	if d, ok := p.fold.Duration(e); ok {
		return d, nil, true
	}
	isWait := func(x ast.Expr) bool {
		id, ok := astutil.Unparen(x).(*ast.Ident)
		if !ok {
			return false
		}
		v := p.identVar(id)
		return v != nil && (v == wait || wait == nil && isDuration(v.Type()))
	}
	if isWait(e) {
		return 0, e, true // the wait alone: no reserve of its own
	}
	b, ok := astutil.Unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != token.ADD {
		return 0, nil, false
	}
	if isWait(b.X) {
		d, ok := p.fold.Duration(b.Y)
		return d, b.X, ok
	}
	if isWait(b.Y) {
		d, ok := p.fold.Duration(b.X)
		return d, b.Y, ok
	}
	return 0, nil, false
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}

// enclosingTimeout finds ctx, cancel := context.WithTimeout(parent, d) in
// the layer's function before the layer, when the layer's context is ctx.
func (p *pkgCtx) enclosingTimeout(l *Layer, fnNode ast.Node) Value {
	id, ok := astutil.Unparen(l.Context).(*ast.Ident)
	if !ok || fnNode == nil {
		return Value{}
	}
	v := p.identVar(id)
	// A per-attempt context made in the body: look at its parent.
	if l.Body != nil {
		ast.Inspect(l.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
				return true
			}
			if lid, ok := as.Lhs[0].(*ast.Ident); ok && p.identVar(lid) == v {
				if call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && len(call.Args) > 0 && IsContext(p.info.TypeOf(call.Args[0])) {
					if pid, ok := astutil.Unparen(call.Args[0]).(*ast.Ident); ok {
						v = p.identVar(pid)
					}
				}
			}
			return true
		})
	}
	var out Value
	ast.Inspect(fnNode, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() > l.Pos || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
			return true
		}
		lid, ok := as.Lhs[0].(*ast.Ident)
		if !ok || p.identVar(lid) != v {
			return true
		}
		if d, pos, ok := p.timeoutCall(as.Rhs[0]); ok {
			out = d
			out.Pos = pos
		}
		return true
	})
	return out
}

// timeoutCall reads context.WithTimeout(parent, d) and
// context.WithDeadline(parent, time.Now().Add(d)).
func (p *pkgCtx) timeoutCall(e ast.Expr) (Value, token.Pos, bool) {
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok {
		return Value{}, token.NoPos, false
	}
	dur, ok := timeoutArg(p.info, call)
	if !ok {
		return Value{}, token.NoPos, false
	}
	if dur == nil {
		return Value{Set: true}, call.Pos(), true
	}
	if d, ok := p.fold.Duration(dur); ok {
		return Value{Set: true, Known: true, D: d}, call.Pos(), true
	}
	return Value{Set: true}, call.Pos(), true
}

// wallClockBound finds a loop bounded by the clock rather than a context:
// for time.Now().Before(deadline), time.Since(start) < d, time.Until(d) > 0,
// in the loop condition or in a test in the body. The limit is folded when
// deadline := time.Now().Add(d) or d is constant.
func (p *pkgCtx) wallClockBound(loop ast.Node, cond ast.Expr, body *ast.BlockStmt, fnNode ast.Node) Value {
	var out Value
	look := func(root ast.Node) {
		if root == nil || out.Set {
			return
		}
		ast.Inspect(root, func(n ast.Node) bool {
			if out.Set {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := typeutil.StaticCallee(p.info, call)
			if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "time" {
				return true
			}
			var limit ast.Expr
			switch fn.Name() {
			case "Before", "After":
				if len(call.Args) == 1 {
					limit = call.Args[0]
				}
			case "Since", "Until":
				if len(call.Args) == 1 {
					limit = call.Args[0]
				}
			default:
				return true
			}
			out = Value{Set: true, Pos: call.Pos()}
			// deadline := time.Now().Add(d)
			if id, ok := astutil.Unparen(limit).(*ast.Ident); ok && fnNode != nil {
				if v := p.identVar(id); v != nil {
					for _, rhs := range p.assignmentsTo(v, fnNode) {
						if c, ok := astutil.Unparen(rhs).(*ast.CallExpr); ok {
							if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" && len(c.Args) == 1 {
								if d, ok := p.fold.Duration(c.Args[0]); ok {
									out.Known, out.D = true, d
								}
							}
						}
					}
				}
			}
			return false
		})
	}
	look(cond)
	if body != nil {
		for _, st := range body.List {
			if ifs, ok := st.(*ast.IfStmt); ok && p.blockLeavesAny(ifs.Body) {
				look(ifs.Cond)
			}
		}
	}
	return out
}

// bodyTimeout finds a per-attempt context.WithTimeout inside the body.
func (p *pkgCtx) bodyTimeout(body *ast.BlockStmt) Value {
	var out Value
	p.inspectRegion(body, func(n ast.Node) bool {
		if out.Set {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if v, pos, ok := p.timeoutCall(call); ok {
				out = v
				out.Pos = pos
			}
		}
		return true
	})
	return out
}

// String renders a policy for tests and debugging.
func (pol *Policy) String() string {
	var parts []string
	a := pol.Attempts
	switch {
	case a.Known && a.N == 0:
		parts = append(parts, "attempts=unbounded")
	case a.Known:
		parts = append(parts, fmt.Sprintf("attempts=%d", a.N))
	case a.Set:
		parts = append(parts, "attempts=?")
	}
	if len(pol.Waits) > 0 {
		var ws []string
		for _, w := range pol.Waits {
			ws = append(ws, durconst.Format(w))
		}
		if pol.WaitsAtLeast {
			parts = append(parts, "waits>="+strings.Join(ws, ","))
		} else {
			parts = append(parts, "waits="+strings.Join(ws, ","))
		}
	}
	parts = append(parts, "jitter="+pol.Jitter.String(), "deadline="+pol.DeadlineAware.String(), "cancellable="+pol.WaitCancellable.String(), "retryafter="+pol.RetryAfter.String())
	if pol.Guard != nil {
		if pol.Guard.Reserve.Known {
			r := "guard=" + durconst.Format(pol.Guard.Reserve.D)
			if pol.Guard.IncludesWait {
				r = "guard=wait+" + durconst.Format(pol.Guard.Reserve.D)
			}
			parts = append(parts, r)
		} else {
			parts = append(parts, "guard=?")
		}
	}
	if pol.MaxElapsed.Known {
		parts = append(parts, "maxelapsed="+durconst.Format(pol.MaxElapsed.D))
	}
	if pol.PerAttempt.Known {
		parts = append(parts, "perattempt="+durconst.Format(pol.PerAttempt.D))
	}
	if pol.Fallback.IsValid() {
		parts = append(parts, "fallback")
	}
	if pol.AttemptCtxEnds.IsValid() {
		parts = append(parts, "attemptctx-ends")
	}
	if len(pol.HintlessWaits) > 0 {
		var ws []string
		for _, w := range pol.HintlessWaits {
			ws = append(ws, durconst.Format(w))
		}
		parts = append(parts, "waits-without-retry-after="+strings.Join(ws, ","))
	}
	if pol.Classifier != nil {
		parts = append(parts, "classifier")
	}
	if pol.Assumed {
		parts = append(parts, "assumed")
	}
	return strings.Join(parts, " ")
}
