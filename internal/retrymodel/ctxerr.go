package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A CtxErrAnswer says that a retry loop's classifier helper answers
// "retry" when the operation's error is a context's own error: the caller
// cancelled, or its deadline passed, and the loop sends the request again.
type CtxErrAnswer struct {
	Func *types.Func // the classifier helper; nil for a loop that classifies inline
	Err  string      // "context.Canceled" or "context.DeadlineExceeded"
	Pos  token.Pos   // the condition (or return) that answers retry; inline, the first test of the error's class
	// Op and Tests, for an inline loop (ctxerrloop.go): the call whose
	// error goes round, and the tests of its error class it passes.
	Op    *ast.CallExpr
	Tests []ast.Expr
}

// CtxErrRetried reports whether the classifier of loop layer l provably
// answers retry for a context error: called with err = context.Canceled
// (or DeadlineExceeded), no response (pointer parameters nil) and attempts
// left (a comparison of an integer parameter with a bound holds as below
// it), every path the classifier can take returns the opposite of what it
// returns on success. Anything the evaluation cannot decide (a method of
// the error, an interface assertion that a context error may satisfy,
// net.Error) makes the answer unknown, and unknown is no.
func (r *Result) CtxErrRetried(l *Layer) (CtxErrAnswer, bool) {
	a, ok := r.ctxErr[l]
	return a, ok
}

// classifyCtxErrs fills Result.ctxErr for the package's loop layers.
func (p *pkgCtx) classifyCtxErrs() {
	for _, l := range p.res.Layers {
		if l.Kind != Loop {
			continue
		}
		if l.Policy.ClassifierFunc == nil {
			if a, ok := p.inlineCtxErr(l); ok {
				if p.res.ctxErr == nil {
					p.res.ctxErr = make(map[*Layer]CtxErrAnswer)
				}
				p.res.ctxErr[l] = a
			}
			continue
		}
		fn := l.Policy.ClassifierFunc.Origin()
		decl := p.res.decls[fn]
		sig, _ := fn.Type().(*types.Signature)
		if decl == nil || decl.Body == nil || sig == nil || sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
			continue
		}
		// The answer that leaves is the one that makes the loop's give-up
		// condition hold (if !retryable(err) { return err }: false), not
		// what the classifier says for a nil error, which the loop may
		// never ask (isRetryable ending in return true).
		cond, _ := l.Policy.Classifier.(ast.Expr)
		leave := p.leaveAnswer(cond, fn)
		if leave == Unknown {
			continue
		}
		for _, which := range []string{"Canceled", "DeadlineExceeded"} {
			e := &ctxErrEval{p: p, which: which, bound: make(map[*types.Var]ctxVal)}
			hasErr := false
			for i := 0; i < sig.Params().Len(); i++ {
				v := sig.Params().At(i)
				switch {
				case isErrorType(v.Type()):
					e.bound[v], hasErr = ctxVal{isErr: true}, true
				case isPointer(v.Type()):
					e.bound[v] = ctxVal{isNil: true}
				case isIntegral(v.Type()):
					e.bound[v] = ctxVal{counter: true}
				case IsContext(v.Type()):
					e.bound[v] = ctxVal{done: true} // the context whose error err is
				}
			}
			if !hasErr {
				break
			}
			t, pos, _ := evalStmts(e, decl.Body.List)
			if t != Unknown && t != leave && pos.IsValid() {
				if p.res.ctxErr == nil {
					p.res.ctxErr = make(map[*Layer]CtxErrAnswer)
				}
				p.res.ctxErr[l] = CtxErrAnswer{Func: fn, Err: "context." + which, Pos: pos}
				break
			}
		}
	}
}

// leaveAnswer is the result of fn's call in cond, the loop's give-up
// condition, that makes cond hold: Yes under an even number of negations
// in a chain of && and ||, No under an odd one; Unknown when the call sits
// anywhere else.
func (p *pkgCtx) leaveAnswer(cond ast.Expr, fn *types.Func) Tri {
	if cond == nil {
		return Unknown
	}
	switch c := astutil.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return p.leaveAnswer(c.X, fn).Not()
		}
	case *ast.BinaryExpr:
		if c.Op == token.LAND || c.Op == token.LOR {
			if t := p.leaveAnswer(c.X, fn); t != Unknown {
				return t
			}
			return p.leaveAnswer(c.Y, fn)
		}
	case *ast.CallExpr:
		if callee := typeutil.StaticCallee(p.info, c); callee != nil && callee.Origin() == fn {
			return Yes
		}
	}
	return Unknown
}

// ctxVal is what the evaluation knows of a variable.
type ctxVal struct {
	isErr   bool // holds the context error
	isNil   bool // nil (an absent response, a failed assertion's value)
	isFalse bool // a failed assertion's ok
	isTrue  bool // a matching assertion's ok (errtype.go)
	counter bool // an attempt counter: below any bound
	done    bool // a context whose Err is set (attemptctx.go)
}

type ctxErrEval struct {
	p     *pkgCtx
	which string
	// sentinel, when set, is the error evaluated instead of a context's
	// (io.EOF: errclass.go); which is then "".
	sentinel *types.Var
	bound    map[*types.Var]ctxVal
	// liveCtxs: a context not bound done is live (the caller's).
	liveCtxs bool
	// dynType, when set, is the dynamic type of the error evaluated: a
	// value of the package's own error type (errtype.go); which is "".
	dynType types.Type
}

func isPointer(t types.Type) bool {
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// A condEval is the state in which evalStmts reads a bool function: the
// success of the operation (summary.go), a context's error (this file).
type condEval interface {
	cond(ast.Expr) Tri
	bind(st ast.Stmt, init bool) bool // an assignment or var declaration (init: an if's); false: the state is lost
}

// evalStmts follows stmts and returns the answer of the first bool result
// and the position of what decided it; done says every path returned.
func evalStmts(e condEval, list []ast.Stmt) (Tri, token.Pos, bool) {
	for i, st := range list {
		switch st := st.(type) {
		case *ast.ReturnStmt:
			if len(st.Results) == 0 {
				return Unknown, token.NoPos, true
			}
			return e.cond(st.Results[0]), st.Results[0].Pos(), true
		case *ast.AssignStmt, *ast.DeclStmt:
			if !e.bind(st, false) {
				return Unknown, token.NoPos, true
			}
		case *ast.ExprStmt:
			// A call for its effect (a log line) does not change the answer.
		case *ast.IfStmt:
			if st.Init != nil && !e.bind(st.Init, true) {
				return Unknown, token.NoPos, true
			}
			then, other := ifPaths(st, list[i+1:])
			switch e.cond(st.Cond) {
			case Yes:
				t, pos, done := evalStmts(e, then)
				if _, isRet := lastStmt(st.Body).(*ast.ReturnStmt); isRet && t != Unknown {
					pos = st.Cond.Pos() // the test that sends it there
				}
				return t, pos, done
			case No:
				return evalStmts(e, other)
			}
			a, apos, _ := evalStmts(e, then)
			b, _, _ := evalStmts(e, other)
			if a == b {
				return a, apos, true
			}
			return Unknown, token.NoPos, true
		default:
			return Unknown, token.NoPos, true
		}
	}
	return Unknown, token.NoPos, false
}

// bind follows an assignment (assign) and binds the pointers a var
// declaration leaves nil; an if's init must be an assignment.
func (e *ctxErrEval) bind(st ast.Stmt, _ bool) bool {
	switch st := st.(type) {
	case *ast.AssignStmt:
		e.assign(st)
		return true
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, id := range vs.Names {
					if v, ok := e.p.info.Defs[id].(*types.Var); ok && len(vs.Values) == 0 && isPointer(v.Type()) {
						e.bound[v] = ctxVal{isNil: true}
					}
				}
			}
		}
		return true
	}
	return false
}

// ifPaths returns the statements run after the if's condition holds and
// after it fails: each branch followed by rest.
func ifPaths(st *ast.IfStmt, rest []ast.Stmt) (then, other []ast.Stmt) {
	var elseList []ast.Stmt
	switch el := st.Else.(type) {
	case *ast.BlockStmt:
		elseList = el.List
	case *ast.IfStmt:
		elseList = []ast.Stmt{el}
	}
	then = append(append([]ast.Stmt(nil), st.Body.List...), rest...)
	other = append(append([]ast.Stmt(nil), elseList...), rest...)
	return then, other
}

func lastStmt(b *ast.BlockStmt) ast.Stmt {
	if len(b.List) == 0 {
		return nil
	}
	return b.List[len(b.List)-1]
}

// assign binds x, ok := err.(*T) (T a concrete type: a context error is
// none of the package's types, so x is nil and ok false) and drops what
// it cannot follow.
func (e *ctxErrEval) assign(as *ast.AssignStmt) {
	forget := func() {
		for _, lhs := range as.Lhs {
			if id, ok := astutil.Unparen(lhs).(*ast.Ident); ok {
				if v := e.p.identVar(id); v != nil {
					delete(e.bound, v)
				}
			}
		}
	}
	if len(as.Rhs) != 1 {
		forget()
		return
	}
	ta, ok := astutil.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr)
	if !ok || ta.Type == nil || !e.isErr(ta.X) || !e.notCtxErrType(e.p.info.TypeOf(ta.Type)) || len(as.Lhs) != 2 {
		forget()
		return
	}
	if e.dynType != nil && types.Identical(e.p.info.TypeOf(ta.Type), e.dynType) {
		// x, ok := err.(T) on an error of type T: ok holds, x is set.
		forget()
		if id, ok := astutil.Unparen(as.Lhs[1]).(*ast.Ident); ok {
			if v := e.p.identVar(id); v != nil {
				e.bound[v] = ctxVal{isTrue: true}
			}
		}
		return
	}
	for i, lhs := range as.Lhs {
		id, ok := astutil.Unparen(lhs).(*ast.Ident)
		if !ok {
			continue
		}
		v := e.p.identVar(id)
		if v == nil {
			continue
		}
		if i == 0 {
			e.bound[v] = ctxVal{isNil: true}
		} else {
			e.bound[v] = ctxVal{isFalse: true}
		}
	}
}

// notCtxErrType: a concrete type other than the context package's own
// error types; a context error is never one.
func (e *ctxErrEval) notCtxErrType(t types.Type) bool {
	if t == nil || types.IsInterface(t) {
		return false
	}
	n, ok := types.Unalias(deref(t)).(*types.Named)
	if !ok {
		return false
	}
	path := ""
	if n.Obj().Pkg() != nil {
		path = n.Obj().Pkg().Path()
	}
	return path != "context" && path != "errors"
}

func (e *ctxErrEval) varOf(x ast.Expr) (*types.Var, ctxVal, bool) {
	id, ok := astutil.Unparen(x).(*ast.Ident)
	if !ok {
		return nil, ctxVal{}, false
	}
	v := e.p.identVar(id)
	if v == nil {
		return nil, ctxVal{}, false
	}
	b, ok := e.bound[v]
	return v, b, ok
}

func (e *ctxErrEval) isErr(x ast.Expr) bool {
	_, b, ok := e.varOf(x)
	return ok && b.isErr
}

// ctxSentinel reports whether x names context.Canceled or DeadlineExceeded,
// and which.
func (e *ctxErrEval) ctxSentinel(x ast.Expr) (string, bool) { return ctxSentinel(e.p.info, x) }

// ctxSentinel reports whether x names context.Canceled or
// DeadlineExceeded, and which.
func ctxSentinel(info *types.Info, x ast.Expr) (string, bool) {
	sel, ok := astutil.Unparen(x).(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	if !ok || v.Pkg() == nil || v.Pkg().Path() != "context" {
		return "", false
	}
	return v.Name(), v.Name() == "Canceled" || v.Name() == "DeadlineExceeded"
}

// otherSentinel reports a package-level error variable that is not one of
// the context errors (io.EOF, ErrNotFound): a context error is not it.
func (e *ctxErrEval) otherSentinel(x ast.Expr) bool {
	var id *ast.Ident
	switch x := astutil.Unparen(x).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	default:
		return false
	}
	v, ok := e.p.info.Uses[id].(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() || !isErrorType(v.Type()) {
		return false
	}
	if v.Pkg().Path() == "context" || v.Pkg().Path() == "os" {
		return false // os.ErrDeadlineExceeded: a timeout, alike in meaning
	}
	return true
}

// cond evaluates a condition in the state.
func (e *ctxErrEval) cond(x ast.Expr) Tri {
	x = astutil.Unparen(x)
	if tv, ok := e.p.info.Types[x]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		if constant.BoolVal(tv.Value) {
			return Yes
		}
		return No
	}
	switch c := x.(type) {
	case *ast.Ident:
		if _, b, ok := e.varOf(c); ok && b.isFalse {
			return No
		} else if ok && b.isTrue {
			return Yes
		}
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return e.cond(c.X).Not()
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND, token.LOR:
			a, b := e.cond(c.X), e.cond(c.Y)
			if c.Op == token.LAND {
				return a.And(b)
			}
			return a.Or(b)
		case token.EQL, token.NEQ:
			t := e.equal(c.X, c.Y)
			if c.Op == token.NEQ {
				return t.Not()
			}
			return t
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
			// An attempt counter against its bound: attempts are left.
			if _, b, ok := e.varOf(c.X); ok && b.counter {
				return map[token.Token]Tri{token.LSS: Yes, token.LEQ: Yes, token.GTR: No, token.GEQ: No}[c.Op]
			}
			if _, b, ok := e.varOf(c.Y); ok && b.counter {
				return map[token.Token]Tri{token.GTR: Yes, token.GEQ: Yes, token.LSS: No, token.LEQ: No}[c.Op]
			}
		}
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(e.p.info, c)
		if isFunc(fn, "errors", "Is") && len(c.Args) == 2 && e.liveErr(c.Args[0]) {
			if _, ok := e.ctxSentinel(c.Args[1]); ok {
				return No // errors.Is(ctx.Err(), context.Canceled) on a live context
			}
		}
		if isFunc(fn, "errors", "Is") && len(c.Args) == 2 && e.isErr(c.Args[0]) {
			if e.isSentinel(c.Args[1]) {
				return Yes
			}
			if name, ok := e.ctxSentinel(c.Args[1]); ok {
				if name == e.which {
					return Yes
				}
				return No
			}
			if e.otherSentinel(c.Args[1]) {
				return No
			}
		}
		if isFunc(fn, "errors", "As") && len(c.Args) == 2 && e.isErr(c.Args[0]) {
			if u, ok := astutil.Unparen(c.Args[1]).(*ast.UnaryExpr); ok && u.Op == token.AND && e.dynType != nil && types.Identical(e.p.info.TypeOf(u.X), e.dynType) {
				return Yes
			}
			if u, ok := astutil.Unparen(c.Args[1]).(*ast.UnaryExpr); ok && u.Op == token.AND && e.notCtxErrType(e.p.info.TypeOf(u.X)) {
				return No
			}
			if u, ok := astutil.Unparen(c.Args[1]).(*ast.UnaryExpr); ok && u.Op == token.AND && e.sentinel != nil && e.beyondError(e.p.info.TypeOf(u.X)) {
				return No // interface{ Temporary() bool }: an errors.New value has only Error
			}
		}
	}
	return Unknown
}

// equal evaluates a == b.
func (e *ctxErrEval) equal(a, b ast.Expr) Tri {
	for _, pair := range [][2]ast.Expr{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		if t := e.ctxAtom(x, y); t != Unknown {
			return t
		}
		_, bx, ok := e.varOf(x)
		if !ok {
			continue
		}
		switch {
		case isNil(e.p.info, y) && bx.isErr:
			return No // the error is set
		case isNil(e.p.info, y) && bx.isNil:
			return Yes
		case bx.isErr:
			if e.isSentinel(y) {
				return Yes
			}
			if name, ok := e.ctxSentinel(y); ok {
				if name == e.which {
					return Yes
				}
				return No
			}
			if e.otherSentinel(y) {
				return No
			}
		}
	}
	return Unknown
}
