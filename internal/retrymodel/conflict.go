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

// A conflict retry is a read-modify-write that lost an optimistic
// concurrency race (HTTP 409, a Kubernetes Conflict, gRPC Aborted, an SQL
// serialization failure 40001) and runs again on fresh state: it does not
// re-send a failed request to a struggling server, so it is no retry layer
// for nesting, and it spreads no crowd of clients that jitter should.
// A reconnect is the same for nesting: database/sql's retry of a query on
// driver.ErrBadConn, which a driver returns only when the server cannot
// have seen the request (a pooled connection found dead), takes another
// connection and sends the request once. A layer is conflict-only when
// its classifier retries conflicts (or unsent requests) and stops on
// every other failure (Policy.ConflictOnly).

const (
	pkgK8sAPIErrors = "k8s.io/apimachinery/pkg/api/errors"
	pkgGRPCCodes    = "google.golang.org/grpc/codes"
)

// conflictPolicy sets Policy.ConflictOnly and Policy.CtxEnds of a layer
// whose operation marks the failures it stops on (backoff.Permanent) or
// of a loop that leaves on every failure but a conflict.
func (p *pkgCtx) conflictPolicy(l *Layer) {
	pol := &l.Policy
	if pol.ConflictOnly.IsValid() {
		return // retry.RetryOnConflict, set where it is read
	}
	switch {
	case l.Kind == Library && l.Name == "retry.OnError":
		// retry.OnError(b, apierrors.IsConflict, fn): the classifier is
		// the predicate.
		if fn := pol.ClassifierFunc; fn != nil && p.conflictFunc(fn, 0) {
			pol.ConflictOnly = pol.Classifier.Pos()
		}
	case l.Kind == Library:
		body := p.opBody(l)
		if body == nil {
			return
		}
		// any cenkalti/backoff major version's Permanent stops the retry
		stop := (&callCtx{pkgCtx: p}).isCall("Permanent", pkgBackoffV2, pkgBackoffV3, pkgBackoffV4, pkgBackoffV5)
		if pos, ok := p.retriesOnlyConflicts(body, stop); ok {
			pol.ConflictOnly = pos
		}
		if l.Context == nil {
			pol.CtxEnds = p.firstCallEndsOnCtx(body, stop)
		}
	case l.Kind == Loop:
		if body, ok := l.Body.(*ast.BlockStmt); ok {
			pol.ConflictOnly = p.loopStopsOnNonConflict(l, body)
			if !pol.ConflictOnly.IsValid() {
				pol.ConflictOnly = p.loopRepairsOnly(l, body) // repair.go
			}
		}
	}
}

// opBody is the body of the operation handed to a library: the literal,
// or the one function of this package handed by name.
func (p *pkgCtx) opBody(l *Layer) *ast.BlockStmt {
	if b, ok := l.Body.(*ast.BlockStmt); ok {
		return b
	}
	if len(l.OpFuncs) == 1 {
		if d := p.res.decls[l.OpFuncs[0]]; d != nil {
			return d.Body
		}
	}
	return nil
}

// retriesOnlyConflicts reports whether every return of body that hands a
// failure back for another attempt (an error that is neither nil nor
// stop(...)) runs only for a conflict: inside `if <conflict> {...}`, or
// after `if <not a conflict> { return stop(err) }` in an enclosing block.
// It returns the conflict test. A body with no retried return retries
// nothing and is not a conflict retry.
func (p *pkgCtx) retriesOnlyConflicts(body *ast.BlockStmt, stop func(*ast.CallExpr) bool) (token.Pos, bool) {
	var test token.Pos
	retried, ok := 0, true
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if _, lit := n.(*ast.FuncLit); lit || !ok {
			return false
		}
		stack = append(stack, n)
		ret, isRet := n.(*ast.ReturnStmt)
		if !isRet || len(ret.Results) == 0 {
			return true
		}
		last := astutil.Unparen(ret.Results[len(ret.Results)-1])
		if isNil(p.info, last) {
			return true
		}
		if call, isCall := last.(*ast.CallExpr); isCall && stop(call) {
			return true
		}
		retried++
		pos, guarded := p.conflictGuard(stack, stop)
		if !guarded {
			ok = false
		} else if !test.IsValid() {
			test = pos
		}
		return true
	})
	return test, ok && retried > 0
}

// conflictGuard finds, among the ancestors on stack of the last node, the
// test that lets it run only for a conflict: an if whose then-branch holds
// it and whose condition is a conflict test, or an earlier statement of an
// enclosing block `if <true on every other failure> { ... leave }`.
func (p *pkgCtx) conflictGuard(stack []ast.Node, stop func(*ast.CallExpr) bool) (token.Pos, bool) {
	for i := len(stack) - 2; i >= 0; i-- {
		child := stack[i+1]
		switch a := stack[i].(type) {
		case *ast.IfStmt:
			if child == a.Body && p.conflictTest(a.Cond, 0) {
				return a.Cond.Pos(), true
			}
		case *ast.BlockStmt:
			for _, s := range a.List {
				if s == child {
					break
				}
				if ifs, ok := s.(*ast.IfStmt); ok && ifs.Else == nil && p.nonConflictTest(ifs.Cond, 0) && leaves(ifs.Body, stop) {
					return ifs.Cond.Pos(), true
				}
			}
		}
	}
	return token.NoPos, false
}

// leaves reports whether a block ends by leaving the retry: a return that
// is not a retried error (stop(err), nil, a value), break or goto.
func leaves(b *ast.BlockStmt, stop func(*ast.CallExpr) bool) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		if stop == nil || len(s.Results) == 0 {
			return true
		}
		call, ok := astutil.Unparen(s.Results[len(s.Results)-1]).(*ast.CallExpr)
		return ok && stop(call)
	case *ast.BranchStmt:
		return s.Tok == token.BREAK || s.Tok == token.GOTO
	}
	return false
}

// loopStopsOnNonConflict returns the test of a retry loop that leaves on
// every failure but a conflict before it waits: `if !apierrors.IsConflict(err)
// { return err }` (or break) ahead of every wait, in the body or in the
// body's failure branch. NoPos otherwise.
func (p *pkgCtx) loopStopsOnNonConflict(l *Layer, body *ast.BlockStmt) token.Pos {
	first := body.End() // no wait: the test must come before the next turn
	for _, w := range l.Waits {
		first = min(first, w.Pos())
	}
	var found token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.IfStmt:
			if found.IsValid() || n.End() > first {
				return n.Pos() < first
			}
			if n.Else == nil && p.nonConflictTest(n.Cond, 0) && leaves(n.Body, nil) && p.onEveryPath(body, n, first) {
				found = n.Cond.Pos()
			}
		}
		return !found.IsValid()
	})
	return found
}

// onEveryPath reports whether the if statement runs on every path from
// the top of body to the wait at pos: it is a statement of body itself, or
// of the then-branch of a failure test (if err != nil {...}) of body that
// also holds the wait.
func (p *pkgCtx) onEveryPath(body *ast.BlockStmt, ifs *ast.IfStmt, wait token.Pos) bool {
	if slices.Contains(body.List, ast.Stmt(ifs)) {
		return true
	}
	for _, s := range body.List {
		outer, ok := s.(*ast.IfStmt)
		if !ok || !within(ifs, outer.Body) || !(outer.Body.Pos() <= wait && wait < outer.Body.End()) {
			continue
		}
		return slices.Contains(outer.Body.List, ast.Stmt(ifs)) && p.failureTest(outer.Cond)
	}
	return false
}

// conflictTest reports whether cond holds for a conflict failure only:
// apierrors.IsConflict(err), a status compared equal to 409, a Kubernetes
// Status reason equal to StatusReasonConflict, a gRPC code equal to
// codes.Aborted, an SQL state equal to 40001; a conjunction with one of
// them; a disjunction of them; a function of this package that returns one.
func (p *pkgCtx) conflictTest(cond ast.Expr, depth int) bool {
	if depth > 3 {
		return false
	}
	switch c := astutil.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			return p.conflictTest(c.X, depth) || p.conflictTest(c.Y, depth)
		case token.LOR:
			return p.conflictTest(c.X, depth) && p.conflictTest(c.Y, depth)
		case token.EQL:
			return p.conflictConst(c.X) || p.conflictConst(c.Y) || p.unsent(c.X) || p.unsent(c.Y)
		}
	case *ast.CallExpr:
		if fn, _ := typeutil.Callee(p.info, c).(*types.Func); fn != nil {
			if fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "Is" && len(c.Args) == 2 {
				return p.unsent(c.Args[1])
			}
			return p.conflictFunc(fn, depth+1)
		}
	}
	return false
}

// unsent reports driver.ErrBadConn: the error a database driver returns
// only when the server cannot have seen the request.
func (p *pkgCtx) unsent(e ast.Expr) bool {
	v := varOf(p.info, e)
	return v != nil && v.Pkg() != nil && v.Pkg().Path() == "database/sql/driver" && v.Name() == "ErrBadConn"
}

// nonConflictTest reports whether cond holds for every failure but a
// conflict: the negation of a conflict test, a status compared unequal to
// 409 (and the like); a disjunction with one of them; a conjunction of
// them and failure tests (err != nil && !apierrors.IsConflict(err)).
func (p *pkgCtx) nonConflictTest(cond ast.Expr, depth int) bool {
	switch c := astutil.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		return c.Op == token.NOT && p.conflictTest(c.X, depth)
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LOR:
			return p.nonConflictTest(c.X, depth) || p.nonConflictTest(c.Y, depth)
		case token.LAND:
			x, y := p.nonConflictTest(c.X, depth), p.nonConflictTest(c.Y, depth)
			return (x || p.failureTest(c.X)) && (y || p.failureTest(c.Y)) && (x || y)
		case token.NEQ:
			return p.conflictConst(c.X) || p.conflictConst(c.Y) || p.unsent(c.X) || p.unsent(c.Y)
		}
	}
	return false
}

// failureTest reports err != nil (either way round) on an error value.
func (p *pkgCtx) failureTest(cond ast.Expr) bool {
	b, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	x, y := astutil.Unparen(b.X), astutil.Unparen(b.Y)
	if isNil(p.info, x) {
		x, y = y, x
	}
	return isNil(p.info, y) && isErrorType(p.info.TypeOf(x))
}

// conflictConst reports a constant that names a conflict: 409 (of an
// integer type), metav1.StatusReasonConflict, codes.Aborted, "40001".
func (p *pkgCtx) conflictConst(e ast.Expr) bool {
	tv, ok := p.info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	named, _ := types.Unalias(tv.Type).(*types.Named)
	switch tv.Value.Kind() {
	case constant.Int:
		n, exact := constant.Int64Val(tv.Value)
		if named != nil && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == pkgGRPCCodes {
			return exact && n == 10 // codes.Aborted
		}
		return exact && n == 409
	case constant.String:
		s := constant.StringVal(tv.Value)
		if named != nil && named.Obj().Name() == "StatusReason" {
			return s == "Conflict" // metav1.StatusReasonConflict
		}
		return s == "40001" // serialization_failure (pgerrcode.SerializationFailure)
	}
	return false
}

// conflictFunc reports a predicate that holds for conflicts only:
// IsConflict of k8s.io/apimachinery/pkg/api/errors, or a function of this
// package whose one statement returns a conflict test of its argument.
func (p *pkgCtx) conflictFunc(fn *types.Func, depth int) bool {
	fn = fn.Origin()
	if fn.Pkg() == nil {
		return false
	}
	if fn.Pkg().Path() == pkgK8sAPIErrors {
		return fn.Name() == "IsConflict"
	}
	d := p.res.decls[fn]
	if d == nil || d.Body == nil || len(d.Body.List) != 1 || depth > 3 {
		return false
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	return ok && len(ret.Results) == 1 && p.conflictTest(ret.Results[0], depth+1)
}

// firstCallEndsOnCtx returns the first call of a library operation when a
// done context ends the retry through it: the body's first statement makes
// a call that takes a context (not Background or TODO), and the next
// statement stops the retry on its failure (if err != nil { return
// backoff.Permanent(err) }). Once the caller's ctx is done that call
// fails, and the retry ends within one wait. NoPos otherwise.
func (p *pkgCtx) firstCallEndsOnCtx(body *ast.BlockStmt, stop func(*ast.CallExpr) bool) token.Pos {
	if len(body.List) < 2 {
		return token.NoPos
	}
	var call *ast.CallExpr
	switch s := body.List[0].(type) {
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			call, _ = astutil.Unparen(s.Rhs[0]).(*ast.CallExpr)
		}
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok && len(g.Specs) == 1 {
			if vs, ok := g.Specs[0].(*ast.ValueSpec); ok && len(vs.Values) == 1 {
				call, _ = astutil.Unparen(vs.Values[0]).(*ast.CallExpr)
			}
		}
	}
	if call == nil || !p.takesLiveCtx(call) {
		return token.NoPos
	}
	ifs, ok := body.List[1].(*ast.IfStmt)
	if !ok || ifs.Init != nil || !p.failureTest(ifs.Cond) || !leaves(ifs.Body, stop) {
		return token.NoPos
	}
	if r, ok := ifs.Body.List[len(ifs.Body.List)-1].(*ast.ReturnStmt); !ok || len(r.Results) == 0 {
		return token.NoPos // a bare return of named results may retry
	}
	return call.Pos()
}

// takesLiveCtx reports a call with a context argument that is not
// context.Background() or context.TODO() written in place.
func (p *pkgCtx) takesLiveCtx(call *ast.CallExpr) bool {
	c := &callCtx{pkgCtx: p}
	for _, a := range call.Args {
		if !namedIs(p.info.TypeOf(a), "context", "Context") {
			continue
		}
		if ac, ok := astutil.Unparen(a).(*ast.CallExpr); ok && (c.calleeIs(ac, "context", "", "Background") || c.calleeIs(ac, "context", "", "TODO")) {
			return false
		}
		return true
	}
	return false
}
