package retrystatus

import (
	"cmp"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// A val is what a condition can be for one status code: a subset of
// {true, false}, or vN when the condition says nothing about the status
// (err != nil, a timeout check, an attempt counter). vN is the identity of
// && and ||: a condition is projected onto its status comparisons.
type val uint8

const (
	vN val = 0
	vT val = 1
	vF val = 2
)

func vnot(v val) val { return (v&vT)<<1 | (v&vF)>>1 }

func vand(a, b val) val {
	if a == vN {
		return b
	}
	if b == vN {
		return a
	}
	var r val
	if a&vT != 0 && b&vT != 0 {
		r |= vT
	}
	if a&vF != 0 || b&vF != 0 {
		r |= vF
	}
	return r
}

func vor(a, b val) val { return vnot(vand(vnot(a), vnot(b))) }

// pathState is what a path through a decision has seen: a status
// comparison (dep), and a read of the error's code, type or body (body).
type pathState struct {
	dep, body bool
	// changes: the path changes the request before another attempt
	// (refreshes a token, truncates the input), so a 401 or 413 retried
	// on it is not the same request again.
	changes bool
	// bodyWhen: the condition just evaluated called a predicate that
	// reads the error's code or text and that no status decides; its
	// branch taken on yes (1: the condition true, -1: false) is decided
	// by the error, not by the status. 0 otherwise.
	bodyWhen int8
	// final: the path told the library that the error it returns ends
	// the retry (roko's r.Break()).
	final bool
	// gated: the path was taken because a setting said so as well as the
	// status (if cfg.DropRateLimited && code == 429 { return }): a give-up
	// there is the setting's choice, not the classifier's blindness.
	// gateWhen says which branch of the condition just evaluated the
	// setting gates (1: true, -1: false), as bodyWhen does.
	gated    bool
	gateWhen int8
	// failed: the path knows whether the net/http send of this attempt
	// failed (1: its error is non-nil, so there is no status; -1: it
	// succeeded; 0: not known). failT and failE say what the condition
	// just evaluated implies on its true and false branch.
	failed, failT, failE int8
	// locals: bool variables assigned more than once, with the value the
	// path gave them last (retry := code/100 == 5; ...; retry = true).
	locals [4]local
	// waited: the path went through a wait (modeLoop, nowait.go). A
	// wait under a condition the status does not decide counts on every
	// path through it (if attempt > 0 { sleep }).
	waited bool
}

// A local is a bool variable's value on one path.
type local struct {
	v   *types.Var
	val val
}

func (st *pathState) local(v *types.Var) (val, bool) {
	for _, l := range st.locals {
		if l.v == v {
			return l.val, true
		}
	}
	return vN, false
}

// setLocal records v's value; with no slot free it is not recorded, and a
// read of v is then unknown (Written fails for it).
func (st *pathState) setLocal(v *types.Var, x val) {
	for i, l := range st.locals {
		if l.v == v || l.v == nil {
			st.locals[i] = local{v, x}
			return
		}
	}
}

// flow kinds.
type flowKind int8

const (
	fNext     flowKind = iota // falls through to the next statement
	fBreak                    // break (label in flow.label)
	fContinue                 // continue
	fRetry                    // the decision retries
	fStop                     // the decision gives up (or succeeds)
	fValue                    // a bool classifier returns flow.v
	fUnknown                  // cannot tell
)

type flow struct {
	kind  flowKind
	label string
	v     val
	st    pathState
	at    token.Pos // a recursion's call of itself (fRetry)
}

// mode says what the statements of a decision mean.
type mode int8

const (
	modeBool      mode = iota // a predicate: the first (bool) result, true = retry
	modeLoop                  // a retry loop body: continue / fall through = retry
	modeErrOp                 // a retried operation returning error: non-nil = retry, permanent marker = give up
	modeRetryable             // sethvargo/go-retry: RetryableError = retry, other errors = give up
	modeWaitCond              // wait.ConditionFunc: (false, nil) = retry, (true, _) or an error = give up
	modeReissue               // a retry without a loop: returning the request again = retry (reissue.go)
)

// atomKind is how an atom names codes.
type atomKind int8

const (
	atomList  atomKind = iota // codes enumerated: ==, !=, a case, a set, a list
	atomRange                 // code >= K with K a 4xx code
	atomFact                  // a classifier or list from another package
)

// An atom is a status test of a decision: where it is and what it names.
type atom struct {
	kind    atomKind
	pos     token.Pos
	codes   []int // listed codes (atomList, atomFact)
	covered []int // codes covered by ranges (atomRange, atomFact)
	operand string
	via     string // "a.IsTransient at a/classify.go:60" for facts and foreign lists
	home    bool   // a fact of a classifier reported in its own package
	chain   *ast.BinaryExpr
	chainOr bool
	leaves  []ast.Expr
}

func (a *atom) lists(c int) bool  { return slices.Contains(a.codes, c) }
func (a *atom) covers(c int) bool { return slices.Contains(a.covered, c) }

// collector gathers the atoms of one decision, once each.
type collector struct {
	seen     map[token.Pos]bool
	atoms    []*atom
	funcs    map[*types.Func]bool // package functions consulted
	provider bool                 // a classifier of another package talks to an LLM API
}

func newCollector() *collector {
	return &collector{seen: map[token.Pos]bool{}, funcs: map[*types.Func]bool{}}
}

func (c *collector) add(a *atom) {
	if c == nil {
		return
	}
	key := a.pos
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.atoms = append(c.atoms, a)
}

// walker evaluates a decision for one status code.
type walker struct {
	ck     *checker
	code   int
	mode   mode
	col    *collector
	label  string               // the retry loop's label (modeLoop)
	ranges map[*types.Var][]int // range variables over a code set
	active map[*types.Var]bool  // bindings being evaluated (cycles)
	depth  int
	// reissue says which returned values send the request again (modeReissue).
	reissue *retrymodel.Reissue
	// marker, in modeRetryable, is the package's own error type the
	// classifier retries (retrymodel.LayerErrorType); nil for go-retry.
	marker types.Type
	// region is the retried region walked (a loop body, an operation);
	// nil in a classifier's summary, where a parameter is the error.
	region ast.Node
	// sendErrs are the error variables assigned beside a net/http send
	// in region (resp, err := hc.Do(req)): non-nil, there is no status.
	sendErrs map[*types.Var]bool
	// inlined are the error helpers being walked in place (errHelper).
	inlined map[*types.Func]bool
	// self is the function of a retry by recursion (modeLoop): a
	// statement that calls it is the next attempt.
	self *types.Func
	// layerWaits are the model's waits of the layer, which a statement
	// that holds one does (beside what mayWait sees).
	layerWaits []ast.Node
}

func (w *walker) stmts(list []ast.Stmt, st pathState) []flow {
	states := []pathState{st}
	var out []flow
	for _, s := range list {
		var next []pathState
		for _, st := range states {
			for _, f := range w.stmt(s, st) {
				if f.kind == fNext {
					if !slices.Contains(next, f.st) {
						next = append(next, f.st)
					}
				} else {
					out = append(out, f)
				}
			}
		}
		states = next
		if len(states) == 0 {
			return out
		}
	}
	for _, st := range states {
		out = append(out, flow{kind: fNext, st: st})
	}
	return out
}

func next(st pathState) []flow { return []flow{{kind: fNext, st: st}} }

func (w *walker) stmt(s ast.Stmt, st pathState) []flow {
	if w.mode == modeLoop && !st.waited {
		switch s.(type) {
		case *ast.IfStmt, *ast.SwitchStmt, *ast.BlockStmt, *ast.LabeledStmt:
			// walked statement by statement: a wait counts on its own paths
		default:
			st.waited = w.waits(s)
		}
	}
	// A recursion's call of itself is the next attempt. waits does not
	// look into it: what it waits for before its operation is walked
	// already, at the top of the body.
	if w.self != nil && callsSelf(w.ck.info, s, w.self) {
		return []flow{{kind: fRetry, st: st, at: s.Pos()}}
	}
	switch s := s.(type) {
	case *ast.BlockStmt:
		return w.stmts(s.List, st)
	case *ast.LabeledStmt:
		return w.stmt(s.Stmt, st)
	case *ast.IfStmt:
		st = w.init(s.Init, st)
		st.bodyWhen, st.gateWhen = 0, 0
		st.failT, st.failE = 0, 0
		v := w.cond(s.Cond, &st)
		t, e := st, st
		if v != vN {
			t.dep, e.dep = true, true
		}
		if w.mode == modeLoop && !st.waited && (v == vN && w.waits(s) || w.waits(s.Init) || w.waits(s.Cond)) {
			t.waited, e.waited = true, true // not a branch the status takes
		}
		// A test of the send's error the path has already decided takes
		// one branch only (if err == nil && code < 400 after if err != nil).
		tOK, eOK := t.implies(st.failT), e.implies(st.failE)
		t.failT, t.failE, e.failT, e.failE = 0, 0, 0, 0
		switch st.bodyWhen {
		case 1:
			t.body = true
		case -1:
			e.body = true
		}
		switch st.gateWhen {
		case 1:
			t.gated = true
		case -1:
			e.gated = true
		}
		t.bodyWhen, e.bodyWhen = 0, 0
		t.gateWhen, e.gateWhen = 0, 0
		var out []flow
		if (v == vN || v&vT != 0) && tOK {
			fs := w.stmts(s.Body.List, t)
			if v == vN && w.ck.res.WhileLive(s.Cond) == retrymodel.No {
				// if ctx.Err() != nil { return }: the context ends the
				// retry, not the status.
				fs = cancelled(fs)
			}
			out = append(out, fs...)
		}
		if (v == vN || v&vF != 0) && eOK {
			if s.Else != nil {
				out = append(out, w.stmt(s.Else, e)...)
			} else {
				out = append(out, flow{kind: fNext, st: e})
			}
		}
		return out
	case *ast.SwitchStmt:
		return w.switchStmt(s, st)
	case *ast.TypeSwitchStmt:
		return w.clauses(s.Body, st, true)
	case *ast.SelectStmt:
		return w.clauses(s.Body, st, false)
	case *ast.ForStmt:
		return w.loop(s.Body, nil, st)
	case *ast.RangeStmt:
		return w.loop(s.Body, s, st)
	case *ast.ReturnStmt:
		return w.ret(s, st)
	case *ast.BranchStmt:
		label := ""
		if s.Label != nil {
			label = s.Label.Name
		}
		switch s.Tok {
		case token.BREAK:
			return []flow{{kind: fBreak, label: label, st: st}}
		case token.CONTINUE:
			return []flow{{kind: fContinue, label: label, st: st}}
		case token.GOTO:
			return []flow{{kind: fUnknown, st: st}}
		}
		return next(st)
	case *ast.DeclStmt:
		return next(w.declLocals(s, st))
	case *ast.AssignStmt:
		st = w.assignLocals(s, st)
		for _, lhs := range s.Lhs {
			if id, ok := ast.Unparen(lhs).(*ast.Ident); ok {
				if v, ok := w.ck.info.ObjectOf(id).(*types.Var); ok && w.sendErrs[v] {
					st.failed = 0 // a new send, or another error: not known
				}
			}
		}
		if w.mode == modeReissue && changesState(s) {
			st.changes = true
		}
		for _, r := range s.Rhs {
			if call, ok := ast.Unparen(r).(*ast.CallExpr); ok && w.ck.changesRequest(call) {
				st.changes = true
			}
		}
		return next(st)
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok && w.ck.changesRequest(call) {
			st.changes = true
		}
		if call, ok := s.X.(*ast.CallExpr); ok && w.mode == modeErrOp && retrymodel.EndsRetry(w.ck.info, call) {
			st.final = true
		}
		if call, ok := s.X.(*ast.CallExpr); ok && w.ck.noReturn(call) {
			if w.mode == modeBool {
				return []flow{{kind: fUnknown, st: st}}
			}
			return []flow{{kind: fStop, st: st}}
		}
		return next(st)
	}
	return next(st)
}

// waits reports whether n may wait: what mayWait sees, or one of the
// model's waits of the layer.
func (w *walker) waits(n ast.Node) bool {
	if n == nil {
		return false
	}
	key := waitKey{n, w.self}
	if v, ok := w.ck.waitMemo[key]; ok {
		return v
	}
	v := w.ck.mayWait(n, 0, w.self)
	for _, x := range w.layerWaits {
		v = v || n.Pos() <= x.Pos() && x.End() <= n.End()
	}
	w.ck.waitMemo[key] = v
	return v
}

// callsSelf reports whether s is a simple statement (an expression, an
// assignment, a return) that calls self, outside closures.
func callsSelf(info *types.Info, s ast.Stmt, self *types.Func) bool {
	switch s.(type) {
	case *ast.ExprStmt, *ast.AssignStmt, *ast.ReturnStmt, *ast.DeclStmt:
		return retrymodel.SelfCall(info, s, self) != nil
	}
	return false
}

// clauses explores the clauses of a type switch or select, none of which
// says anything about the status.
func (w *walker) clauses(body *ast.BlockStmt, st pathState, mayMiss bool) []flow {
	var out []flow
	hasDefault := false
	for _, cl := range body.List {
		var list []ast.Stmt
		switch cl := cl.(type) {
		case *ast.CaseClause:
			list = cl.Body
			hasDefault = hasDefault || cl.List == nil
		case *ast.CommClause:
			list = cl.Body
			if w.ck.receivesDone(cl.Comm) {
				// case <-ctx.Done(): return: a cancel ends the retry, not
				// the status.
				out = append(out, cancelled(breakToNext(w.stmts(list, st)))...)
				continue
			}
		}
		out = append(out, breakToNext(w.stmts(list, st))...)
	}
	if mayMiss && !hasDefault {
		out = append(out, flow{kind: fNext, st: st})
	}
	return out
}

// cancelled turns the give-ups of a branch that only a cancel takes into
// unknowns: it decides nothing about a status.
func cancelled(fs []flow) []flow {
	for i := range fs {
		if fs[i].kind == fStop {
			fs[i].kind = fUnknown
		}
	}
	return fs
}

// receivesDone reports a select case that receives from a done channel (a
// chan struct{}: ctx.Done(), a stop channel), not from a timer.
func (ck *checker) receivesDone(comm ast.Stmt) bool {
	var x ast.Expr
	switch c := comm.(type) {
	case *ast.ExprStmt:
		x = c.X
	case *ast.AssignStmt:
		if len(c.Rhs) == 1 {
			x = c.Rhs[0]
		}
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return false
	}
	ch, ok := ck.info.TypeOf(u.X).Underlying().(*types.Chan)
	if !ok {
		return false
	}
	st, ok := ch.Elem().Underlying().(*types.Struct)
	return ok && st.NumFields() == 0
}

func breakToNext(fs []flow) []flow {
	for i := range fs {
		if fs[i].kind == fBreak && fs[i].label == "" {
			fs[i].kind = fNext
		}
	}
	return fs
}

// init runs the init statement of an if or switch.
func (w *walker) init(s ast.Stmt, st pathState) pathState {
	if s == nil {
		return st
	}
	for _, f := range w.stmt(s, st) {
		if f.kind == fNext {
			return f.st
		}
	}
	return st
}

func (w *walker) switchStmt(s *ast.SwitchStmt, st pathState) []flow {
	st = w.init(s.Init, st)
	if w.mode == modeLoop && (w.waits(s.Init) || w.waits(s.Tag)) {
		st.waited = true
	}
	var tagOperand ast.Expr
	tagStatus, tagString := false, false
	if s.Tag != nil {
		tagOperand = s.Tag
		if w.ck.isInt(s.Tag) {
			tagStatus = true
		} else if w.ck.isString(s.Tag) || w.ck.readsBody(s.Tag) {
			tagString = true
		}
	}
	var out []flow
	remaining := []pathState{st}
	var def *ast.CaseClause
	for _, c := range s.Body.List {
		cl := c.(*ast.CaseClause)
		if cl.List == nil {
			def = cl
			continue
		}
		var rest []pathState
		for _, st := range remaining {
			st := st
			var v val
			switch {
			case s.Tag == nil:
				for _, e := range cl.List {
					v = vor(v, w.cond(e, &st))
				}
			case tagStatus:
				v = w.caseList(tagOperand, cl)
			case tagString:
				st.body = true
			}
			if v != vN {
				st.dep = true
			}
			if v == vN && w.mode == modeLoop && w.waits(cl) {
				st.waited = true // a wait in a case the status does not choose
			}
			if v == vN || v&vT != 0 {
				out = append(out, breakToNext(w.stmts(cl.Body, st))...)
			}
			if v == vN || v&vF != 0 {
				rest = append(rest, st)
			}
		}
		remaining = rest
	}
	if def != nil && tagStatus && w.mode == modeReissue {
		w.col.add(defaultAtom(s, def, tagOperand, w))
	}
	for _, st := range remaining {
		if def != nil {
			out = append(out, breakToNext(w.stmts(def.Body, st))...)
		} else {
			out = append(out, flow{kind: fNext, st: st})
		}
	}
	return out
}

// caseList evaluates `case k1, k2:` of a switch on an integer tag.
func (w *walker) caseList(tag ast.Expr, cl *ast.CaseClause) val {
	var codes []int
	for _, e := range cl.List {
		k, ok := w.ck.intConst(e)
		if !ok {
			return vN // a case on a variable: not a code list
		}
		if c, ok := w.ck.codeOf(tag, k); ok {
			codes = append(codes, c)
		}
	}
	if len(codes) == 0 {
		return vN
	}
	w.col.add(&atom{kind: atomList, pos: cl.Pos(), codes: codes, operand: w.ck.text(tag)})
	if isGRPC(codes[0]) != isGRPC(w.code) {
		return vN
	}
	if slices.Contains(codes, w.code) {
		return vT
	}
	return vF
}

// loop explores a loop nested in a decision: its unlabeled break and
// continue end it; a range over a code set binds its variable to the set.
func (w *walker) loop(body *ast.BlockStmt, rs *ast.RangeStmt, st pathState) []flow {
	if w.depth > 8 {
		return []flow{{kind: fUnknown, st: st}}
	}
	if rs != nil && rs.Value != nil {
		if id, ok := rs.Value.(*ast.Ident); ok {
			if v, ok := w.ck.info.Defs[id].(*types.Var); ok {
				if codes, _, ok := w.ck.res.CodeSetVia(rs.X); ok {
					if w.ranges == nil {
						w.ranges = map[*types.Var][]int{}
					}
					w.ranges[v] = codes
				}
			}
		}
	}
	w.depth++
	fs := w.stmts(body.List, st)
	w.depth--

	out := []flow{{kind: fNext, st: st}} // the loop may not run
	for _, f := range fs {
		if (f.kind == fBreak || f.kind == fContinue) && f.label == "" {
			f.kind = fNext
		}
		out = append(out, f)
	}
	return out
}

func (w *walker) ret(s *ast.ReturnStmt, st pathState) []flow {
	n := len(s.Results)
	switch w.mode {
	case modeLoop:
		return []flow{{kind: fStop, st: st}}
	case modeBool:
		if n == 0 {
			return []flow{{kind: fUnknown, st: st}}
		}
		e := s.Results[0]
		if b, ok := w.ck.boolConst(e); ok {
			v := vF
			if b {
				v = vT
			}
			return []flow{{kind: fValue, v: v, st: st}}
		}
		v := w.cond(e, &st)
		if st.bodyWhen != 0 {
			st.body = true // the answer is a predicate's that reads the error
		}
		if v == vN {
			return []flow{{kind: fUnknown, st: st}}
		}
		st.dep = true
		return []flow{{kind: fValue, v: v, st: st}}
	case modeErrOp, modeRetryable:
		if n == 0 {
			return []flow{{kind: fUnknown, st: st}}
		}
		e := ast.Unparen(s.Results[n-1])
		if w.ck.isNil(e) {
			return []flow{{kind: fStop, st: st}}
		}
		marked := w.ck.isMarker(e, w.mode) || w.marker != nil && w.ck.res.OfType(e, w.marker) || st.final
		if !marked && w.mode == modeErrOp {
			if fs, ok := w.errHelper(e, st); ok {
				return fs // return c.report(resp): the helper's returns decide
			}
		}
		if w.mode == modeErrOp && !marked || w.mode == modeRetryable && marked {
			return []flow{{kind: fRetry, st: st}}
		}
		return []flow{{kind: fStop, st: st}}
	case modeReissue:
		if n == 0 {
			return []flow{{kind: fUnknown, st: st}}
		}
		if w.reissue.Retries(s.Results[n-1]) {
			return []flow{{kind: fRetry, st: st}}
		}
		return []flow{{kind: fStop, st: st}}
	case modeWaitCond:
		if n != 2 {
			return []flow{{kind: fUnknown, st: st}}
		}
		if !w.ck.isNil(ast.Unparen(s.Results[1])) {
			return []flow{{kind: fStop, st: st}}
		}
		if b, ok := w.ck.boolConst(s.Results[0]); ok {
			if b {
				return []flow{{kind: fStop, st: st}}
			}
			return []flow{{kind: fRetry, st: st}}
		}
		v := w.cond(s.Results[0], &st)
		var out []flow
		if v != vN {
			st.dep = true
		}
		if v == vN || v&vT != 0 {
			out = append(out, flow{kind: fStop, st: st})
		}
		if v == vN || v&vF != 0 {
			out = append(out, flow{kind: fRetry, st: st})
		}
		return out
	}
	return []flow{{kind: fUnknown, st: st}}
}

// errHelper walks the body of a function of the package whose error a
// retried operation returns (return c.report(resp)), as if its returns
// were the operation's: a helper that turns the status into an error
// decides the retry as the operation would written out.
func (w *walker) errHelper(e ast.Expr, st pathState) ([]flow, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || w.depth > 8 {
		return nil, false
	}
	fn, _ := typeutil.Callee(w.ck.info, call).(*types.Func)
	if fn == nil || fn.Pkg() != w.ck.pass.Pkg || !returnsError(fn) {
		return nil, false
	}
	fn = fn.Origin()
	d := w.ck.decls[fn]
	if d == nil || d.Body == nil || w.inlined[fn] {
		return nil, false
	}
	if w.inlined == nil {
		w.inlined = make(map[*types.Func]bool)
	}
	w.inlined[fn] = true
	w.depth++
	fs := w.stmts(d.Body.List, st)
	w.depth--
	delete(w.inlined, fn)
	var out []flow
	for _, f := range fs {
		switch f.kind {
		case fStop, fRetry:
			out = append(out, f)
		default:
			out = append(out, flow{kind: fUnknown, st: f.st})
		}
	}
	w.col.funcs[fn] = true
	return out, true
}

// cond evaluates a boolean expression for w.code.
func (w *walker) cond(e ast.Expr, st *pathState) val {
	e = ast.Unparen(e)
	if w.ck.readsBodyShallow(e) {
		st.body = true
	}
	switch e := e.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			v := vnot(w.cond(e.X, st))
			st.bodyWhen, st.gateWhen = -st.bodyWhen, -st.gateWhen
			st.failT, st.failE = st.failE, st.failT
			return v
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LOR, token.LAND:
			if a := w.chain(e); a != nil {
				w.col.add(a)
				if isGRPC(a.codes[0]) != isGRPC(w.code) {
					return vN
				}
				in := a.lists(w.code)
				if a.chainOr == in {
					return vT
				}
				return vF
			}
			st.failT, st.failE = 0, 0
			x := w.cond(e.X, st)
			xt, xe := st.failT, st.failE
			st.failT, st.failE = 0, 0
			y := w.cond(e.Y, st)
			yt, ye := st.failT, st.failE
			if e.Op == token.LOR {
				// Both false on the false branch; either on the true one.
				st.failT, st.failE = 0, cmp.Or(xe, ye)
				return vor(x, y)
			}
			st.failT, st.failE = cmp.Or(xt, yt), 0
			if w.mode == modeLoop && (x == vN && w.setting(e.X) && y != vN || y == vN && w.setting(e.Y) && x != vN) {
				st.gateWhen = 1 // setting && status: the setting gates the true branch
			}
			return vand(x, y)
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return w.compare(e, st)
		}
	case *ast.Ident:
		return w.ident(e, st)
	case *ast.IndexExpr:
		return w.index(e, true)
	case *ast.CallExpr:
		return w.call(e, st)
	}
	return vN
}

// chain recognises a flat || chain of == (or && chain of !=) comparing one
// operand with constant codes: the simple boolean form a fix can rewrite.
func (w *walker) chain(e *ast.BinaryExpr) *atom {
	var leaves []ast.Expr
	var flat func(x ast.Expr) bool
	flat = func(x ast.Expr) bool {
		x = ast.Unparen(x)
		if b, ok := x.(*ast.BinaryExpr); ok && b.Op == e.Op {
			return flat(b.X) && flat(b.Y)
		}
		leaves = append(leaves, x)
		return true
	}
	flat(e)
	want := token.EQL
	if e.Op == token.LAND {
		want = token.NEQ
	}
	operand := ""
	var codes []int
	for _, l := range leaves {
		b, ok := l.(*ast.BinaryExpr)
		if !ok || b.Op != want {
			return nil
		}
		x, k, ok := w.ck.constSide(b)
		if !ok {
			return nil
		}
		c, ok := w.ck.codeOf(x, k)
		if !ok {
			return nil
		}
		t := w.ck.text(x)
		if operand != "" && t != operand {
			return nil
		}
		operand = t
		codes = append(codes, c)
	}
	return &atom{kind: atomList, pos: e.Pos(), codes: codes, operand: operand,
		chain: e, chainOr: e.Op == token.LOR, leaves: leaves}
}

// fixed reports operands that have one value for the whole retried
// region (retrymodel.FixedIn).
func (w *walker) fixed(xs ...ast.Expr) bool {
	if w.region == nil {
		return false
	}
	for _, x := range xs {
		if !w.ck.res.FixedIn(x, w.region) {
			return false
		}
	}
	return true
}

func (w *walker) compare(e *ast.BinaryExpr, st *pathState) val {
	if f, ok := w.sendTest(e); ok {
		st.failT, st.failE = f, -f
		return vN
	}
	x, k, ok := w.ck.constSide(e)
	if !ok {
		// v == code with v ranging over a code set.
		if e.Op == token.EQL || e.Op == token.NEQ {
			for _, pair := range [][2]ast.Expr{{e.X, e.Y}, {e.Y, e.X}} {
				if id, ok := ast.Unparen(pair[0]).(*ast.Ident); ok {
					if v, ok := w.ck.info.Uses[id].(*types.Var); ok && w.ranges[v] != nil {
						codes := w.ck.setCodes(w.ranges[v], pair[1])
						w.col.add(&atom{kind: atomList, pos: e.Pos(), codes: codes, operand: w.ck.text(pair[1])})
						if len(codes) == 0 || isGRPC(codes[0]) != isGRPC(w.code) {
							return vN
						}
						in := slices.Contains(codes, w.code)
						if in == (e.Op == token.EQL) {
							return vT
						}
						return vF
					}
				}
			}
		}
		// A string compared reads the error's text or the response,
		// unless neither side can change in the retried region and the
		// path has not yet tested the status (if contentType != "" on a
		// parameter: a header, not an answer). Once the status is known, a
		// fixed string splits the codes by the kind of request (404
		// retried only for a PUT): a choice, not a blind retry.
		if (w.ck.isString(e.X) || w.ck.isString(e.Y)) && (st.dep || !w.fixed(e.X, e.Y)) {
			st.body = true
		}
		return vN
	}
	if cls, ok := w.ck.statusClass(x, k, e.Op); ok && !isGRPC(w.code) {
		// code/100 == 5: the class of the code. As the ranges read:
		// code/100 == 2 is a test for success (a cut that names no
		// code), code/100 == 4 names the 4xx range, and the 5xx class,
		// like code >= 500, is no list.
		switch cls {
		case 2, 3:
			w.col.add(&atom{kind: atomRange, pos: e.Pos(), operand: w.ck.text(x)})
		case 4:
			var cov []int
			for _, u := range universe {
				if u/100 == 4 {
					cov = append(cov, u)
				}
			}
			w.col.add(&atom{kind: atomRange, pos: e.Pos(), covered: cov, operand: w.ck.text(x)})
		}
		if (w.code/100 == cls) == (e.Op == token.EQL) {
			return vT
		}
		return vF
	}
	code, ok := w.ck.codeOf(x, k)
	if !ok || isGRPC(code) != isGRPC(w.code) || isGRPC(code) && e.Op != token.EQL && e.Op != token.NEQ {
		return vN
	}
	k = int64(code)
	op := e.Op
	if ast.Unparen(e.X) != ast.Unparen(x) { // constant on the left: flip
		op = retrymodel.Flip(op)
	}
	c := int64(w.code)
	var r bool
	switch op {
	case token.EQL:
		r = c == k
	case token.NEQ:
		r = c != k
	case token.LSS:
		r = c < k
	case token.LEQ:
		r = c <= k
	case token.GTR:
		r = c > k
	case token.GEQ:
		r = c >= k
	}
	switch op {
	case token.EQL, token.NEQ:
		w.col.add(&atom{kind: atomList, pos: e.Pos(), codes: []int{int(k)}, operand: w.ck.text(x)})
	case token.GEQ, token.GTR, token.LSS, token.LEQ:
		// code >= 4xx names the range from there up; code < 4xx, the
		// success side of the same cut, names it too (its other side).
		lo := int(k)
		if op == token.GTR || op == token.LEQ {
			lo++
		}
		if lo >= 400 && lo < 500 {
			var cov []int
			for _, u := range universe {
				if u >= lo {
					cov = append(cov, u)
				}
			}
			w.col.add(&atom{kind: atomRange, pos: e.Pos(), covered: cov, operand: w.ck.text(x)})
		} else if lo > 200 && lo < 400 {
			// code < 300: the cut between success and failure, a test for
			// success like code == 200. It names no code: the statuses
			// are tested, and every failing one falls on the same side.
			w.col.add(&atom{kind: atomRange, pos: e.Pos(), operand: w.ck.text(x)})
		}
		// code <= 504 (code < 505) cuts the 5xx range short: with code >=
		// 500 it lists 500 to 504, an enumeration that leaves out the
		// 5xx codes above the cut (529 among them) as == would.
		hi := int(k)
		if op == token.LSS {
			hi--
		}
		if (op == token.LSS || op == token.LEQ) && hi >= 500 && hi < 599 {
			var cs []int
			for _, u := range universe {
				if u >= 500 && u <= hi {
					cs = append(cs, u)
				}
			}
			w.col.add(&atom{kind: atomList, pos: e.Pos(), codes: cs, operand: w.ck.text(x)})
		}
	}
	if r {
		return vT
	}
	return vF
}

func (w *walker) ident(id *ast.Ident, st *pathState) val {
	v, ok := w.ck.info.Uses[id].(*types.Var)
	if !ok {
		return vN
	}
	if x, ok := st.local(v); ok {
		return x
	}
	b, ok := w.ck.res.Written(v)
	if !ok || w.active[v] {
		return vN
	}
	if w.active == nil {
		w.active = map[*types.Var]bool{}
	}
	w.active[v] = true
	defer delete(w.active, v)
	if b.CommaOK != nil {
		return w.index(b.CommaOK, false)
	}
	if b.First != nil && w.ck.isBool(id) {
		// retry, delay, err := classify(err): the classifier's first result.
		return w.call(b.First, st)
	}
	if b.Value == nil || !w.ck.isBool(b.Value) {
		return vN
	}
	return w.cond(b.Value, st)
}

// pathLocal returns the variable id declares or assigns when the path
// tracks it: a bool variable of a function, written more than once (one
// written once is read through its one value).
func (w *walker) pathLocal(id *ast.Ident) *types.Var {
	v, ok := w.ck.info.ObjectOf(id).(*types.Var)
	if !ok || v.IsField() || v.Pkg() != w.ck.pass.Pkg || v.Parent() == v.Pkg().Scope() || !isBoolType(v.Type()) {
		return nil
	}
	if _, once := w.ck.res.Written(v); once {
		return nil
	}
	return v
}

// assignLocals records the values an assignment gives tracked locals.
func (w *walker) assignLocals(s *ast.AssignStmt, st pathState) pathState {
	for i, lhs := range s.Lhs {
		id, ok := ast.Unparen(lhs).(*ast.Ident)
		if !ok {
			continue
		}
		v := w.pathLocal(id)
		if v == nil {
			continue
		}
		x := vN
		if (s.Tok == token.ASSIGN || s.Tok == token.DEFINE) && len(s.Lhs) == len(s.Rhs) {
			x = w.boolValue(s.Rhs[i], &st)
		}
		st.setLocal(v, x)
	}
	return st
}

// declLocals records `var retry bool` (false) and `var retry = cond`.
func (w *walker) declLocals(s *ast.DeclStmt, st pathState) pathState {
	gd, ok := s.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return st
	}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, id := range vs.Names {
			v := w.pathLocal(id)
			if v == nil {
				continue
			}
			x := vN
			switch {
			case len(vs.Values) == 0:
				x = vF
			case len(vs.Values) == len(vs.Names):
				x = w.boolValue(vs.Values[i], &st)
			}
			st.setLocal(v, x)
		}
	}
	return st
}

// boolValue is cond that also folds the constants true and false.
func (w *walker) boolValue(e ast.Expr, st *pathState) val {
	if b, ok := w.ck.boolConst(e); ok {
		if b {
			return vT
		}
		return vF
	}
	return w.cond(e, st)
}

func isBoolType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// index evaluates m[code] (a bool map when value is set) or the ok of
// `_, ok := m[code]`.
func (w *walker) index(e *ast.IndexExpr, value bool) val {
	if value && !w.ck.isBool(e) {
		return vN
	}
	if !w.ck.isInt(e.Index) {
		return vN
	}
	codes, via, ok := w.ck.res.CodeSetVia(e.X)
	return w.member(codes, ok, e.Index, e.Pos(), via)
}

// member evaluates the membership of key in a code set.
func (w *walker) member(set []int, ok bool, key ast.Expr, pos token.Pos, via string) val {
	codes := w.ck.setCodes(set, key)
	if !ok || len(codes) == 0 {
		return vN
	}
	w.col.add(&atom{kind: atomList, pos: pos, codes: codes, operand: w.ck.text(key), via: via})
	if isGRPC(codes[0]) != isGRPC(w.code) {
		return vN
	}
	if slices.Contains(codes, w.code) {
		return vT
	}
	return vF
}

// grpcBase offsets gRPC codes in the universe: codes.InvalidArgument (3)
// is grpcBase+3, apart from every HTTP status.
const grpcBase = 1000

func isGRPC(c int) bool { return c >= grpcBase }

// namesGRPC reports whether any atom lists or covers a gRPC code.
func namesGRPC(atoms []*atom) bool {
	for _, a := range atoms {
		for _, c := range append(slices.Clip(a.codes), a.covered...) {
			if isGRPC(c) {
				return true
			}
		}
	}
	return false
}

// codeOf maps a constant k compared with x to a code of the universe: a
// gRPC code when the model says x is one (status.Code(err)), else an HTTP
// status when k is one and x an integer.
func (ck *checker) codeOf(x ast.Expr, k int64) (int, bool) {
	if ck.res.StatusOf(x) == retrymodel.GRPCCode {
		return grpcBase + int(k), k > 0 && k <= 16
	}
	return int(k), ck.isInt(x) && isStatus(k)
}

// setCodes maps the codes of a set tested with key to the universe,
// dropping those that are no status.
func (ck *checker) setCodes(set []int, key ast.Expr) []int {
	var out []int
	for _, k := range set {
		if c, ok := ck.codeOf(key, int64(k)); ok {
			out = append(out, c)
		}
	}
	return out
}

func anyStatus(cs []int) bool {
	for _, c := range cs {
		if isStatus(int64(c)) {
			return true
		}
	}
	return false
}

func (w *walker) call(e *ast.CallExpr, st *pathState) val {
	ck := w.ck
	fn, _ := typeutil.Callee(ck.info, e).(*types.Func)
	if set, key, ok := ck.res.Membership(e); ok {
		// slices.Contains(set, code), or the package's own contains helper
		if !ck.isInt(key) {
			return vN
		}
		codes, via, ok := ck.res.CodeSetVia(set)
		return w.member(codes, ok, key, e.Pos(), via)
	}
	// set.Contains(code), sets.Has(code): a method on a code set.
	if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok && len(e.Args) == 1 && ck.isInt(e.Args[0]) {
		switch sel.Sel.Name {
		case "Contains", "Has", "Includes", "Exists":
			if codes, via, ok := ck.res.CodeSetVia(sel.X); ok && len(ck.setCodes(codes, e.Args[0])) > 0 {
				return w.member(codes, ok, e.Args[0], e.Pos(), via)
			}
		}
	}
	if ck.readsBody(e) {
		st.body = true
	}
	// A function value bound to a literal, or a declared function.
	var node ast.Node
	byDefault := "" // the classifier a func field holds unless replaced
	if fn == nil {
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			if v, ok := ck.info.Uses[id].(*types.Var); ok {
				if value, ok := ck.res.WrittenOnce(v); ok {
					if lit, ok := ast.Unparen(value).(*ast.FuncLit); ok {
						node = lit
					}
				}
			}
		} else if def, dfn, ok := ck.res.FuncFieldDefault(e); ok {
			// p.isRetriable(code): the classifier the constructor sets
			// unless an option replaces it.
			node, fn = def, dfn
			byDefault = ck.text(e.Fun) + " by default"
			if dfn != nil {
				byDefault = retrymodel.FuncName(dfn) + ", " + byDefault
			}
		}
	} else if fn.Pkg() == ck.pass.Pkg {
		if d := ck.decls[fn.Origin()]; d != nil {
			node = d
		}
	}
	if node != nil {
		s := ck.summary(node)
		if s == nil {
			return vN
		}
		if fn != nil {
			w.col.funcs[fn.Origin()] = true
		}
		for f := range s.funcs {
			w.col.funcs[f] = true
		}
		for _, a := range s.atoms {
			if byDefault != "" && a.via == "" {
				c := *a
				c.via = byDefault
				a = &c
			}
			w.col.add(a)
		}
		r := s.codes[w.code]
		// A predicate the status does not decide but the error's code or
		// text does (retryable(err) comparing err.Code with "conflict"):
		// the branch its yes takes was chosen by the error, not the
		// status. Its no only says "not that class" (a context-overflow
		// test before the status switch) and decides nothing.
		if r.body {
			st.body = true
		} else if s.body && !s.dep {
			st.bodyWhen = 1
		}
		return r.v
	}
	if fn == nil || fn.Pkg() == ck.pass.Pkg {
		return vN
	}
	var f ClassifierFact
	if !ck.pass.ImportObjectFact(fn.Origin(), &f) {
		return vN
	}
	a := &atom{kind: atomFact, pos: e.Pos(), operand: "code", via: f.Name + " at " + f.Posn, home: f.Home}
	for _, c := range f.Codes {
		if c.Listed {
			a.codes = append(a.codes, c.Code)
		}
		if c.Covered {
			a.covered = append(a.covered, c.Code)
		}
	}
	w.col.add(a)
	if f.Provider {
		w.col.provider = true
	}
	r, ok := f.lookup(w.code)
	if !ok {
		return vN
	}
	if r.BodyRead {
		st.body = true
	}
	var v val
	if r.True {
		v |= vT
	}
	if r.False {
		v |= vF
	}
	return v
}

// summary of a function used as a predicate.
type summary struct {
	codes    map[int]codeVal
	atoms    []*atom
	funcs    map[*types.Func]bool
	dep      bool // some code decides its result
	provider bool // consults a classifier of another package that talks to an LLM API
	body     bool // reads the error's code, type or body somewhere
}

type codeVal struct {
	v    val
	body bool
}

// summary evaluates a predicate (a FuncDecl or FuncLit with a bool first
// result) for every code of the universe.
func (ck *checker) summary(node ast.Node) *summary {
	if s, ok := ck.sums[node]; ok {
		return s
	}
	ck.sums[node] = nil // cycles
	var body *ast.BlockStmt
	var ft *ast.FuncType
	switch n := node.(type) {
	case *ast.FuncDecl:
		body, ft = n.Body, n.Type
	case *ast.FuncLit:
		body, ft = n.Body, n.Type
	}
	if body == nil || ft.Results == nil || len(ft.Results.List) == 0 || !ck.isBool(ft.Results.List[0].Type) {
		return nil
	}
	s := &summary{codes: map[int]codeVal{}}
	col := newCollector()
	for _, c := range universe {
		w := &walker{ck: ck, code: c, mode: modeBool, col: col}
		var cv codeVal
		for _, f := range w.stmts(body.List, pathState{}) {
			if f.st.body {
				s.body = true
			}
			if f.kind != fValue || !f.st.dep {
				continue
			}
			cv.v |= f.v
			cv.body = cv.body || f.st.body
		}
		if cv.v != vN {
			s.dep = true
		}
		s.codes[c] = cv
		if c == universe[0] && !s.dep && len(col.atoms) == 0 {
			// The first code's walk met no status test: the first test
			// in the body is reached whatever the code, so there is none,
			// and every other code would answer the same nothing.
			break
		}
	}
	s.atoms, s.funcs, s.provider = col.atoms, col.funcs, col.provider
	if !namesGRPC(col.atoms) {
		// A predicate that names no gRPC code tests an HTTP status: what it
		// answers for a gRPC code (1003 > 400) means nothing.
		for c := range s.codes {
			if isGRPC(c) {
				delete(s.codes, c)
			}
		}
	}
	ck.sums[node] = s
	return s
}

// ---- helpers on expressions ----

func (ck *checker) text(e ast.Expr) string { return types.ExprString(e) }

func (ck *checker) isInt(e ast.Expr) bool {
	t := ck.info.TypeOf(e)
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func (ck *checker) isString(e ast.Expr) bool {
	t := ck.info.TypeOf(e)
	if t == nil {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	}
	return false
}

func (ck *checker) isBool(e ast.Expr) bool {
	t := ck.info.TypeOf(e)
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

func (ck *checker) intConst(e ast.Expr) (int64, bool) {
	tv, ok := ck.info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(tv.Value)
}

// statusClass recognises code/100 == K (or !=) for a class K of 1 to 5.
func (ck *checker) statusClass(x ast.Expr, k int64, op token.Token) (int, bool) {
	q, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || q.Op != token.QUO || (op != token.EQL && op != token.NEQ) || k < 1 || k > 5 || !ck.isInt(q.X) {
		return 0, false
	}
	if d, ok := ck.intConst(q.Y); !ok || d != 100 {
		return 0, false
	}
	return int(k), true
}

func (ck *checker) boolConst(e ast.Expr) (bool, bool) {
	tv, ok := ck.info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Bool {
		return false, false
	}
	return constant.BoolVal(tv.Value), true
}

func (ck *checker) isNil(e ast.Expr) bool {
	tv, ok := ck.info.Types[e]
	return ok && tv.IsNil()
}

// constSide splits a comparison into its non-constant operand and its
// integer constant.
func (ck *checker) constSide(b *ast.BinaryExpr) (ast.Expr, int64, bool) {
	if k, ok := ck.intConst(b.Y); ok {
		if _, isK := ck.intConst(b.X); !isK {
			return b.X, k, true
		}
	}
	if k, ok := ck.intConst(b.X); ok {
		if _, isK := ck.intConst(b.Y); !isK {
			return b.Y, k, true
		}
	}
	return nil, 0, false
}

// noReturn reports calls that end the path: panic, log.Fatal, os.Exit.
func (ck *checker) noReturn(call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" {
		_, builtin := ck.info.Uses[id].(*types.Builtin)
		return builtin
	}
	fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "log":
		return strings.HasPrefix(fn.Name(), "Fatal") || strings.HasPrefix(fn.Name(), "Panic")
	case "os":
		return fn.Name() == "Exit"
	}
	return false
}

// isMarker reports the error wrapper that changes a retried operation's
// verdict: backoff.Permanent, retry-go Unrecoverable (give up), go-retry
// RetryableError (retry).
func (ck *checker) isMarker(e ast.Expr, m mode) bool {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		if cl, ok := u.X.(*ast.CompositeLit); ok {
			if n, ok := types.Unalias(ck.info.TypeOf(cl)).(*types.Named); ok {
				return m == modeErrOp && n.Obj().Name() == "PermanentError"
			}
		}
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	switch m {
	case modeErrOp:
		return strings.HasPrefix(path, "github.com/cenkalti/backoff") && fn.Name() == "Permanent" ||
			strings.HasPrefix(path, "github.com/avast/retry-go") && fn.Name() == "Unrecoverable"
	case modeRetryable:
		return path == "github.com/sethvargo/go-retry" && fn.Name() == "RetryableError"
	}
	return false
}

// readsBodyShallow reports a condition that reads the error's code, type or
// body at its top: a name that says quota or billing.
func (ck *checker) readsBodyShallow(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return bodyName(e.Sel.Name)
	case *ast.Ident:
		return bodyName(e.Name)
	}
	return false
}

// readsBody reports an expression that reads the error's code, type or
// body: a strings/bytes/regexp/json call, a method Type/Code/RawJSON of an
// SDK error, a name that says quota or billing.
func (ck *checker) readsBody(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			if bodyName(n.Name) {
				found = true
			}
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(ck.info, n).(*types.Func)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			switch fn.Pkg().Path() {
			case "strings", "bytes", "regexp", "encoding/json", "io":
				found = true
			}
			if recvPkg := fn.Pkg().Path(); strings.Contains(recvPkg, "openai") || strings.Contains(recvPkg, "anthropic") {
				switch fn.Name() {
				case "Type", "Code", "RawJSON":
					found = true
				}
			}
		}
		return true
	})
	return found
}

func bodyName(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "quota") || strings.Contains(l, "billing") || strings.Contains(l, "insufficient")
}

// changeName matches calls that change the request before another attempt.
var changeName = regexp.MustCompile(`(?i)refresh|reauth|login|token|truncat|shrink|trim|split|compact|summari|reduce`)

func (ck *checker) changesRequest(call *ast.CallExpr) bool {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return changeName.MatchString(f.Name)
	case *ast.SelectorExpr:
		return changeName.MatchString(f.Sel.Name)
	}
	return false
}

// implies reports whether the path can take a branch on which the send's
// failure is f (0: the branch says nothing), and records it.
func (st *pathState) implies(f int8) bool {
	if f == 0 {
		return true
	}
	if st.failed != 0 && st.failed != f {
		return false
	}
	st.failed = f
	return true
}

// sendTest recognises err != nil (1) and err == nil (-1) on the error of a
// net/http send in the region.
func (w *walker) sendTest(e *ast.BinaryExpr) (int8, bool) {
	if len(w.sendErrs) == 0 || e.Op != token.EQL && e.Op != token.NEQ {
		return 0, false
	}
	for _, pair := range [][2]ast.Expr{{e.X, e.Y}, {e.Y, e.X}} {
		id, ok := ast.Unparen(pair[0]).(*ast.Ident)
		if !ok || !w.ck.info.Types[pair[1]].IsNil() {
			continue
		}
		if v, ok := w.ck.info.Uses[id].(*types.Var); ok && w.sendErrs[v] {
			if e.Op == token.NEQ {
				return 1, true
			}
			return -1, true
		}
	}
	return 0, false
}

// sendErrsIn returns the error variables assigned beside a net/http send
// in region: net/http's contract is that a non-nil error comes with no
// response, so a path on which it is non-nil decides nothing about a
// status (a wrapper that returns both, as go-github's does, is not one).
func (ck *checker) sendErrsIn(region ast.Node) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	ast.Inspect(region, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || len(as.Lhs) != 2 {
			return true
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		if fn, _ := typeutil.Callee(ck.info, call).(*types.Func); !retrymodel.NetHTTPSend(fn) {
			return true
		}
		if id, ok := ast.Unparen(as.Lhs[1]).(*ast.Ident); ok {
			if v, ok := ck.info.ObjectOf(id).(*types.Var); ok {
				out[v] = true
			}
		}
		return true
	})
	return out
}
