package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
)

// This file answers the context-error question (ctxerr.go) for a retry
// loop that classifies inline, with no classifier helper:
//
//	for retries >= 0 {
//		err = c.call(ctx, req)
//		if err == nil {
//			return nil
//		}
//		if _, ok := err.(ServiceError); ok {
//			return err // the server answered: permanent
//		}
//		retries--
//	}
//
// The loop leaves on the error classes it names and goes round on every
// other, so when ctx is done the call's context.Canceled goes round and
// the request is made again, each time on a done context. The statements
// after the call are followed with the call's error bound to the context's
// error and its context done (the evaluation of ctxerr.go); the loop goes
// round when they reach the end of the body or a continue. It is an answer
// only when it is certain, and only for a loop that does classify: one of
// the conditions it passes reads the error's class (not err != nil), so a
// loop that retries every failure alike is the attempt-count question, not
// this one.

// inlineLoop is the outcome of following a loop body.
type inlineLoop int

const (
	loopUnknown inlineLoop = iota
	loopLeaves
	loopRound
)

// inlineCtxErr evaluates l, a loop layer with no classifier helper.
func (p *pkgCtx) inlineCtxErr(l *Layer) (CtxErrAnswer, bool) {
	body, ok := l.Body.(*ast.BlockStmt)
	if !ok {
		return CtxErrAnswer{}, false
	}
	loop, ok := l.Node.(*ast.ForStmt)
	if !ok {
		return CtxErrAnswer{}, false // a range loop walks a list (hosts, models): a fallback's question
	}
	// The context is a variable, or the one a request variable carries
	// (req.Context(), with req handed to the call): the request is then
	// what hands it, and a test of it is req.Context().Err().
	lctx := astutil.Unparen(p.res.layerCtx(l))
	carried := false
	if call, ok := lctx.(*ast.CallExpr); ok && len(call.Args) == 0 {
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" && namedIs(p.info.TypeOf(sel.X), "net/http", "Request") {
			lctx, carried = sel.X, true
		}
	}
	if lctx == nil {
		// no context in the body: the request the call is handed carries
		// the caller's (hc.Do(req) with req made outside the loop)
		lctx, carried = p.sentRequest(l, body), true
	}
	id, ok := lctx.(*ast.Ident)
	if !ok {
		return CtxErrAnswer{}, false
	}
	ctxVar := p.identVar(id)
	if ctxVar == nil || within(&ast.Ident{NamePos: ctxVar.Pos()}, body) {
		return CtxErrAnswer{}, false
	}
	// The loop's own tests of ctx (for ctx.Err() == nil, a check at the top
	// of the body) are read where they are: a mention before the call, or
	// in the loop's header, ends the question.
	for _, op := range l.Ops {
		path, as, errVar := p.opAssign(body, op, ctxVar)
		if as == nil {
			continue
		}
		if headerMentions(p.info, loop, ctxVar) || p.ctxBefore(body, as, ctxVar, carried) {
			return CtxErrAnswer{}, false
		}
		for _, which := range []string{"Canceled", "DeadlineExceeded"} {
			e := &ctxErrEval{p: p, which: which, bound: map[*types.Var]ctxVal{errVar: {isErr: true}, ctxVar: {done: true}}}
			for _, lhs := range as.Lhs {
				if id, ok := lhs.(*ast.Ident); ok {
					if v := p.identVar(id); v != nil && v != errVar && isPointer(v.Type()) {
						e.bound[v] = ctxVal{isNil: true}
					}
				}
			}
			w := &loopWalk{e: e, err: errVar}
			// The rest of each enclosing block, innermost first.
			var rest []ast.Stmt
			for i := len(path) - 1; i >= 0; i-- {
				rest = append(rest, path[i].block.List[path[i].idx+1:]...)
			}
			if w.walk(rest) != loopRound || !w.classified {
				continue
			}
			// Reported at the first test of the error's class: where the
			// context's error is let through, and where its test goes.
			return CtxErrAnswer{Err: "context." + which, Pos: w.tests[0].Pos(), Op: op, Tests: w.tests}, true
		}
		return CtxErrAnswer{}, false
	}
	return CtxErrAnswer{}, false
}

// sentRequest is the *http.Request variable, declared outside body, that
// one of l's operations is handed, or nil.
func (p *pkgCtx) sentRequest(l *Layer, body *ast.BlockStmt) ast.Expr {
	for _, op := range l.Ops {
		for _, a := range op.Args {
			id, ok := astutil.Unparen(a).(*ast.Ident)
			if !ok {
				continue
			}
			v := p.identVar(id)
			if v != nil && !within(&ast.Ident{NamePos: v.Pos()}, body) && namedIs(v.Type(), "net/http", "Request") {
				return id
			}
		}
	}
	return nil
}

// A blockPos is a statement of a block on the way from a loop body down
// to an operation.
type blockPos struct {
	block *ast.BlockStmt
	idx   int
}

// opAssign finds `..., err := op` (or =) with op handed ctxVar, as a
// statement of the body or of an if's branch inside it (not in a switch,
// select, nested loop or function literal, where break and the flow mean
// something else). It returns the blocks on the way, outermost first, the
// assignment and its error variable.
func (p *pkgCtx) opAssign(body *ast.BlockStmt, op *ast.CallExpr, ctxVar *types.Var) ([]blockPos, *ast.AssignStmt, *types.Var) {
	handed := false
	for _, a := range op.Args {
		if id, ok := astutil.Unparen(a).(*ast.Ident); ok && p.info.Uses[id] == ctxVar {
			handed = true
		}
	}
	if !handed {
		return nil, nil, nil
	}
	var find func(b *ast.BlockStmt, path []blockPos) ([]blockPos, *ast.AssignStmt, *types.Var)
	find = func(b *ast.BlockStmt, path []blockPos) ([]blockPos, *ast.AssignStmt, *types.Var) {
		for i, st := range b.List {
			if !spans(st, op) {
				continue
			}
			here := append(path, blockPos{b, i})
			switch st := st.(type) {
			case *ast.AssignStmt:
				if len(st.Rhs) != 1 || astutil.Unparen(st.Rhs[0]) != op {
					return nil, nil, nil
				}
				id, ok := st.Lhs[len(st.Lhs)-1].(*ast.Ident)
				if !ok {
					return nil, nil, nil
				}
				v := p.identVar(id)
				if v == nil || !isErrorType(v.Type()) {
					return nil, nil, nil
				}
				return here, st, v
			case *ast.IfStmt:
				if as, ok := st.Init.(*ast.AssignStmt); ok && spans(as, op) {
					// if err := op(ctx); err != nil { ... }: the walk
					// starts at the if, its init made.
					path, _, v := find(&ast.BlockStmt{List: []ast.Stmt{as}}, here)
					if v == nil {
						return nil, nil, nil
					}
					nif := *st
					nif.Init = nil
					return append(path[:len(path)-1], blockPos{&ast.BlockStmt{List: []ast.Stmt{as, &nif}}, 0}), as, v
				}
				if spans(st.Body, op) {
					return find(st.Body, here)
				}
				if eb, ok := st.Else.(*ast.BlockStmt); ok && spans(eb, op) {
					return find(eb, here)
				}
			case *ast.BlockStmt:
				return find(st, here)
			}
			return nil, nil, nil
		}
		return nil, nil, nil
	}
	return find(body, nil)
}

// ctxBefore reports a mention of ctxVar in the body before the
// assignment other than as an argument of a call (a test of ctx.Err(), a
// select on ctx.Done(): the next turn may leave there). For a request
// that carries the context (carried), only its Context() counts: the
// body may set its URL or Body before each send.
func (p *pkgCtx) ctxBefore(body *ast.BlockStmt, as *ast.AssignStmt, ctxVar *types.Var, carried bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || n.Pos() >= as.Pos() {
			return false
		}
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok && p.info.Uses[id] == ctxVar && (!carried || sel.Sel.Name == "Context") {
				found = true // ctx.Err(), ctx.Done(), req.Context()
			}
		}
		return !found
	})
	return found
}

// headerMentions reports a use of v in a for statement's condition or
// post statement.
func headerMentions(info *types.Info, loop *ast.ForStmt, v *types.Var) bool {
	if loop.Cond != nil && mentionsVar(info, loop.Cond, v) {
		return true
	}
	return loop.Post != nil && contains(loop.Post, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		return ok && info.Uses[id] == v
	})
}

// loopWalk follows a loop body's statements in the context-error state.
type loopWalk struct {
	e   *ctxErrEval
	err *types.Var
	// classified: a decided condition read the error beyond err != nil;
	// tests are those conditions, in order.
	classified bool
	tests      []ast.Expr
	// steps bounds the walk: an undecided if walks both branches, each
	// with the statements after it.
	steps int
}

// maxLoopSteps is the walk's budget; past it the answer is unknown.
const maxLoopSteps = 2000

// walk returns what the statements do: leave the loop, go round, or
// unknown.
func (w *loopWalk) walk(list []ast.Stmt) inlineLoop {
	for i, st := range list {
		if w.steps++; w.steps > maxLoopSteps {
			return loopUnknown
		}
		switch st := st.(type) {
		case *ast.ReturnStmt:
			return loopLeaves
		case *ast.BranchStmt:
			if st.Label != nil {
				return loopUnknown
			}
			switch st.Tok {
			case token.BREAK:
				return loopLeaves
			case token.CONTINUE:
				return loopRound
			}
			return loopUnknown
		case *ast.AssignStmt, *ast.DeclStmt:
			if !w.e.bind(st, false) {
				return loopUnknown
			}
		case *ast.IncDecStmt, *ast.EmptyStmt:
		case *ast.ExprStmt:
			if call, ok := astutil.Unparen(st.X).(*ast.CallExpr); ok {
				if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok && w.e.p.info.Uses[id] == types.Universe.Lookup("panic") {
					return loopLeaves
				}
			}
			// A call for its effect (a log line, a counter) changes no answer.
		case *ast.BlockStmt:
			return w.walk(append(append([]ast.Stmt(nil), st.List...), list[i+1:]...))
		case *ast.IfStmt:
			if st.Init != nil && !w.e.bind(st.Init, true) {
				return loopUnknown
			}
			then, other := ifPaths(st, list[i+1:])
			t := w.e.cond(st.Cond)
			if t != Unknown && w.readsClass(st.Cond) {
				w.classified = true
				if shown := testShown(w.e.p.info, st); !slices.Contains(w.tests, shown) {
					w.tests = append(w.tests, shown)
				}
			}
			switch t {
			case Yes:
				return w.walk(then)
			case No:
				return w.walk(other)
			}
			// Each branch from the state before the if.
			saved := maps.Clone(w.e.bound)
			a := w.walk(then)
			w.e.bound = saved
			if a == w.walk(other) {
				return a
			}
			return loopUnknown
		default:
			// A switch, select, nested loop, goto or label: not followed.
			return loopUnknown
		}
	}
	return loopRound
}

// testShown is what a message shows of an if's test: the assertion its
// init makes when the condition is only that assertion's ok.
func testShown(info *types.Info, st *ast.IfStmt) ast.Expr {
	if as, ok := st.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 && len(as.Lhs) == 2 {
		if ta, ok := astutil.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr); ok {
			if id, ok := astutil.Unparen(st.Cond).(*ast.Ident); ok {
				if okID, _ := as.Lhs[1].(*ast.Ident); okID != nil && info.ObjectOf(okID) != nil && info.ObjectOf(okID) == info.Uses[id] {
					return ta
				}
			}
		}
	}
	return st.Cond
}

// readsClass reports whether cond reads the error beyond comparing it
// with nil: an assertion's ok, errors.Is or As, a comparison with a
// sentinel.
func (w *loopWalk) readsClass(cond ast.Expr) bool {
	info := w.e.p.info
	return contains(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if v, b, ok := w.e.varOf(n); ok && v != w.err && (b.isFalse || b.isTrue) {
				return true // ok of an assertion of the error
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if id, ok := astutil.Unparen(pair[0]).(*ast.Ident); ok && info.Uses[id] == w.err && !isNil(info, pair[1]) {
						return true
					}
				}
			}
		case *ast.CallExpr:
			for _, a := range n.Args {
				if id, ok := astutil.Unparen(a).(*ast.Ident); ok && info.Uses[id] == w.err {
					return true // errors.Is(err, X), errors.As(err, &t)
				}
			}
		}
		return false
	})
}
