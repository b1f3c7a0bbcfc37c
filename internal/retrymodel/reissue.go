package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/durconst"
)

// A retry without a loop: a dispatcher hands the value an operation's
// failure becomes back to code that runs the operation again. In Bubble
// Tea the runtime delivers the message a command returns to Update, so an
// Update that answers message T by issuing a command, whose failure path
// returns T again, is a retry cycle: the operation is the command, the
// bound is the counter compared on the way back to T, the wait whatever
// runs on that path (a time.Sleep, tea.Tick). The cycle is followed
// through the calls the failure is handed to (an error callback stored in
// a field, a classifier, a helper that counts and sleeps), not through any
// one spelling of them.
//
// A command that returns T again after it succeeded (a refresh tick, a
// stream that asks for its next chunk) is a poll, not a retry; one that
// turns its failure into a message Update only shows is no cycle.

// teaPkgs are the Bubble Tea runtimes: they run a tea.Cmd and hand its
// tea.Msg to the model's Update.
var teaPkgs = map[string]bool{
	"github.com/charmbracelet/bubbletea":    true,
	"github.com/charmbracelet/bubbletea/v2": true,
	"charm.land/bubbletea/v2":               true,
}

// A Reissue is what the model knows of a retry without a loop.
type Reissue struct {
	Msg        types.Type // the message that makes Update issue the operation again
	Dispatcher *types.Func
	BackEdge   ast.Expr // where the failure becomes Msg again
	// Counter is the comparison that bounds the cycle (m.retries >= max),
	// nil when none was found.
	Counter ast.Expr
	// producers are the functions (*ast.FuncDecl, *ast.FuncLit) on the
	// failure path that may return Msg: a return of a call of one of them
	// re-issues the operation.
	producers map[ast.Node]bool
	r         *reissueFinder
}

// Retries reports whether e, a value returned on the failure path, hands
// the request message back to the dispatcher (directly or through a call
// that may return it).
func (ri *Reissue) Retries(e ast.Expr) bool {
	return ri.r.yields(ast.Unparen(e), ri.Msg, 0)
}

// ReissueOf returns what the model knows of a Reissue layer, or nil.
func (r *Result) ReissueOf(l *Layer) *Reissue { return r.reissues[l] }

type reissueFinder struct {
	p      *pkgCtx
	lits   map[*types.Var][]*ast.FuncLit // func-typed fields and variables -> the literals stored in them
	memo   map[ast.Node]map[types.Type]bool
	active map[ast.Node]bool
	tea    string // the Bubble Tea package's path
}

func importsTea(pkg *types.Package) (string, bool) {
	for _, imp := range pkg.Imports() {
		if teaPkgs[imp.Path()] {
			return imp.Path(), true
		}
	}
	return "", false
}

// findReissues records the Bubble Tea retries of the package.
func (p *pkgCtx) findReissues() {
	tea, ok := importsTea(p.pass.Pkg)
	if !ok {
		return
	}
	r := &reissueFinder{p: p, tea: tea, lits: map[*types.Var][]*ast.FuncLit{}, memo: map[ast.Node]map[types.Type]bool{}, active: map[ast.Node]bool{}}
	r.indexFuncValues()
	for _, fn := range p.res.funcsInOrder() { // in source order: the memo is shared, so the layers depend on the order
		fd := p.res.decls[fn]
		if fd.Body == nil || fd.Recv == nil || fn.Name() != "Update" || !isUpdate(fn, tea) {
			continue
		}
		r.update(fn, fd, tea)
	}
}

// isUpdate reports whether fn is Update(tea.Msg) (tea.Model, tea.Cmd) (v1),
// or Update(tea.Msg) (tea.Model, tea.Cmd) of v2: a method the runtime calls
// with every message a command returns.
func isUpdate(fn *types.Func, tea string) bool {
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 1 || sig.Results().Len() != 2 {
		return false
	}
	return isTeaNamed(sig.Params().At(0).Type(), tea, "Msg") && isTeaNamed(sig.Results().At(1).Type(), tea, "Cmd")
}

func isTeaNamed(t types.Type, tea, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		if a, ok := t.(*types.Alias); ok {
			return a.Obj().Pkg() != nil && a.Obj().Pkg().Path() == tea && a.Obj().Name() == name
		}
		return false
	}
	return n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == tea && n.Obj().Name() == name
}

// isCmd reports whether t is tea.Cmd or a func() of a tea.Msg.
func isCmd(t types.Type, tea string) bool {
	if t == nil {
		return false
	}
	if isTeaNamed(t, tea, "Cmd") {
		return true
	}
	sig, ok := t.Underlying().(*types.Signature)
	return ok && sig.Params().Len() == 0 && sig.Results().Len() == 1 && isTeaNamed(sig.Results().At(0).Type(), tea, "Msg")
}

// indexFuncValues records the function literals stored in func-typed
// struct fields and variables (errh: func(err error) tea.Msg {...}), so a
// call through the field reaches them.
func (r *reissueFinder) indexFuncValues() {
	info := r.p.info
	for _, f := range r.p.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
						if lit, ok := ast.Unparen(n.Value).(*ast.FuncLit); ok {
							r.lits[v] = append(r.lits[v], lit)
						}
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					return true
				}
				for i, lhs := range n.Lhs {
					lit, ok := ast.Unparen(n.Rhs[i]).(*ast.FuncLit)
					if !ok {
						continue
					}
					if v := varOf(info, lhs); v != nil {
						r.lits[v] = append(r.lits[v], lit)
					}
				}
			}
			return true
		})
	}
}

// callees returns the function bodies a call may run: a package function
// or method, or the literals stored in the field or variable it calls.
func (r *reissueFinder) callees(call *ast.CallExpr) []ast.Node {
	if fn := typeutil.StaticCallee(r.p.info, call); fn != nil {
		if d := r.p.res.decls[fn.Origin()]; d != nil && d.Body != nil {
			return []ast.Node{d}
		}
		return nil
	}
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		return []ast.Node{lit}
	}
	v := r.p.varOf(call.Fun)
	if v == nil {
		return nil
	}
	var out []ast.Node
	for _, l := range r.lits[v] {
		out = append(out, l)
	}
	return out
}

func funcBody(n ast.Node) *ast.BlockStmt {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return n.Body
	case *ast.FuncLit:
		return n.Body
	}
	return nil
}

// returns lists the return statements of fn's own body (not of closures
// in it).
func returns(fn ast.Node) []*ast.ReturnStmt {
	var out []*ast.ReturnStmt
	body := funcBody(fn)
	if body == nil {
		return nil
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			out = append(out, n)
		}
		return true
	})
	return out
}

// cmdsOf returns the commands a call hands back: the function literals (or
// functions) that a Cmd-returning package function returns.
func (r *reissueFinder) cmdsOf(e ast.Expr, tea string, depth int) []ast.Node {
	e = ast.Unparen(e)
	if depth > 3 {
		return nil
	}
	switch e := e.(type) {
	case *ast.FuncLit:
		return []ast.Node{e}
	case *ast.SelectorExpr, *ast.Ident:
		// a method value (m.fetchCmd) or function used as the command
		var obj types.Object
		if s, ok := e.(*ast.SelectorExpr); ok {
			obj = r.p.info.Uses[s.Sel]
		} else {
			obj = r.p.info.Uses[e.(*ast.Ident)]
		}
		if fn, ok := obj.(*types.Func); ok {
			if d := r.p.res.decls[fn.Origin()]; d != nil && d.Body != nil {
				return []ast.Node{d}
			}
		}
	case *ast.CallExpr:
		var out []ast.Node
		for _, k := range r.callees(e) {
			for _, ret := range returns(k) {
				for _, res := range ret.Results {
					if isCmd(r.p.info.TypeOf(res), tea) {
						out = append(out, r.cmdsOf(res, tea, depth+1)...)
					}
				}
			}
		}
		return out
	}
	return nil
}

// yields reports whether e, a returned value, may be a value of type t:
// t itself, or a call of a function that may return one.
func (r *reissueFinder) yields(e ast.Expr, t types.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	if tv := r.p.info.TypeOf(e); tv != nil && types.Identical(tv, t) {
		return true
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	for _, k := range r.calledBodies(call) {
		if r.mayReturn(k, t, depth+1) {
			return true
		}
	}
	return false
}

// calledBodies is callees, plus the commands a call of a call runs
// (m.receiveCmd(x)(): the literal receiveCmd returns).
func (r *reissueFinder) calledBodies(call *ast.CallExpr) []ast.Node {
	out := r.callees(call)
	if inner, ok := ast.Unparen(call.Fun).(*ast.CallExpr); ok {
		for _, k := range r.callees(inner) {
			for _, ret := range returns(k) {
				for _, res := range ret.Results {
					if lit, ok := ast.Unparen(res).(*ast.FuncLit); ok {
						out = append(out, lit)
					}
				}
			}
		}
	}
	return out
}

func (r *reissueFinder) mayReturn(fn ast.Node, t types.Type, depth int) bool {
	if m, ok := r.memo[fn]; ok {
		if v, ok := m[t]; ok {
			return v
		}
	}
	if r.active[fn] {
		return false
	}
	r.active[fn] = true
	found := false
	for _, ret := range returns(fn) {
		for _, res := range ret.Results {
			if r.yields(ast.Unparen(res), t, depth) {
				found = true
			}
		}
	}
	delete(r.active, fn)
	if r.memo[fn] == nil {
		r.memo[fn] = map[types.Type]bool{}
	}
	r.memo[fn][t] = found
	return found
}

// step is one function on the failure path from a command to the back edge.
type step struct {
	fn   ast.Node        // the function
	call *ast.CallExpr   // the call that led here (nil for the command)
	ret  *ast.ReturnStmt // its return that leads on
}

// failurePath finds, in the command fn, the way a failure leads back to
// t: a return of t (or of a call that returns t) under a test of an error,
// or in a function handed the error. It returns the steps taken and the
// expression that is t again.
func (r *reissueFinder) failurePath(fn ast.Node, t types.Type, failing bool, depth int, seen map[ast.Node]bool) ([]step, ast.Expr) {
	if depth > 8 || seen[fn] {
		return nil, nil
	}
	seen[fn] = true
	defer delete(seen, fn)
	body := funcBody(fn)
	if body == nil {
		return nil, nil
	}
	var path []step
	var back ast.Expr
	r.walkReturns(body, sideNone, func(ret *ast.ReturnStmt, side errSide) bool {
		onFailure := side == sideFailure || failing && side != sideSuccess
		for _, res := range ret.Results {
			res = ast.Unparen(res)
			if tv := r.p.info.TypeOf(res); tv != nil && types.Identical(tv, t) {
				if onFailure {
					path, back = []step{{fn: fn, ret: ret}}, res
					return false
				}
				continue
			}
			call, ok := res.(*ast.CallExpr)
			if !ok {
				continue
			}
			handed := onFailure || side != sideSuccess && r.handsError(call)
			for _, k := range r.calledBodies(call) {
				if sub, b := r.failurePath(k, t, handed, depth+1, seen); b != nil {
					sub[0].call = call
					path, back = append([]step{{fn: fn, ret: ret}}, sub...), b
					return false
				}
			}
		}
		return true
	})
	return path, back
}

// errSide says on which side of an error test a statement is.
type errSide int8

const (
	sideNone    errSide = iota // no error test decides it
	sideFailure                // err != nil, errors.Is(err, x), a classifier of err
	sideSuccess                // err == nil
)

// walkReturns calls f for each return of body with the side of the error
// tests it sits under; f returns false to stop.
func (r *reissueFinder) walkReturns(body ast.Node, side errSide, f func(*ast.ReturnStmt, errSide) bool) bool {
	cont := true
	ast.Inspect(body, func(n ast.Node) bool {
		if !cont {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if n.Init != nil {
				r.walkReturns(n.Init, side, f)
			}
			then, els := side, side
			if s := r.errTest(n.Cond); s != sideNone {
				then = s
				if s == sideSuccess {
					els = sideFailure
				} else if isNilTest(n.Cond) {
					els = sideSuccess
				}
			}
			if cont && !r.walkReturns(n.Body, then, f) {
				cont = false
			}
			if cont && n.Else != nil && !r.walkReturns(n.Else, els, f) {
				cont = false
			}
			return false
		case *ast.ReturnStmt:
			if !f(n, side) {
				cont = false
			}
			return false
		}
		return true
	})
	return cont
}

// errTest says which side the body of `if cond` is on: err != nil (or a
// call testing err, or && with either) is failure, err == nil success.
func (r *reissueFinder) errTest(cond ast.Expr) errSide {
	switch c := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.NEQ, token.EQL:
			if r.isErrNil(c) {
				if c.Op == token.NEQ {
					return sideFailure
				}
				return sideSuccess
			}
		case token.LAND:
			x, y := r.errTest(c.X), r.errTest(c.Y)
			if x == sideFailure || y == sideFailure {
				return sideFailure
			}
			if x == sideSuccess || y == sideSuccess {
				return sideSuccess
			}
		}
		return sideNone
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			if r.errTest(c.X) == sideSuccess {
				return sideFailure
			}
		}
		return sideNone
	case *ast.CallExpr:
		if r.testsError(c) {
			return sideFailure // errors.Is(err, x), isRetryable(err)
		}
	}
	return sideNone
}

// isNilTest: the condition is err != nil itself, so its else is success.
func isNilTest(cond ast.Expr) bool {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	return ok && c.Op == token.NEQ
}

func (r *reissueFinder) isErrNil(c *ast.BinaryExpr) bool {
	for _, pair := range [][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		if isNil(r.p.info, pair[1]) {
			if t := r.p.info.TypeOf(pair[0]); t != nil && isErrorType(t) {
				return true
			}
		}
	}
	return false
}

// testsError reports whether e mentions an error value.
func (r *reissueFinder) testsError(e ast.Expr) bool {
	return r.p.mentions(e, func(v *types.Var) bool { return isErrorType(v.Type()) })
}

// handsError reports whether a call is handed an error: an error-typed
// argument, or a value built around one (modsError{err: err}).
func (r *reissueFinder) handsError(call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if t := r.p.info.TypeOf(a); t != nil && isErrorType(t) {
			return true
		}
		if r.testsError(a) {
			return true
		}
	}
	return false
}

// update finds the cycles of one Update method.
func (r *reissueFinder) update(fn *types.Func, fd *ast.FuncDecl, tea string) {
	p := r.p
	msgParam := fd.Type.Params.List[0]
	if len(msgParam.Names) == 0 {
		return
	}
	param, _ := p.info.Defs[msgParam.Names[0]].(*types.Var)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSwitchStmt)
		if !ok || !switchesOn(p.info, ts, param) {
			return true
		}
		for _, st := range ts.Body.List {
			cc := st.(*ast.CaseClause)
			if len(cc.List) != 1 {
				continue
			}
			t := p.info.TypeOf(cc.List[0])
			named, ok := types.Unalias(t).(*types.Named)
			if !ok || named.Obj().Pkg() != p.pass.Pkg || types.IsInterface(t) {
				continue // the package's own messages only
			}
			r.clause(fn, fd, cc, t, tea)
		}
		return true
	})
}

func switchesOn(info *types.Info, ts *ast.TypeSwitchStmt, v *types.Var) bool {
	var x ast.Expr
	switch a := ts.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Rhs) == 1 {
			if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok {
				x = ta.X
			}
		}
	case *ast.ExprStmt:
		if ta, ok := a.X.(*ast.TypeAssertExpr); ok {
			x = ta.X
		}
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	return ok && v != nil && info.Uses[id] == v
}

// clause looks at the commands one case of Update issues, and records a
// layer for each whose failure comes back as the case's message.
func (r *reissueFinder) clause(fn *types.Func, fd *ast.FuncDecl, cc *ast.CaseClause, t types.Type, tea string) {
	p := r.p
	type issued struct {
		cmd  ast.Node
		wait ast.Expr // tea.Tick's duration
		at   *ast.CallExpr
	}
	var cmds []issued
	seen := map[ast.Node]bool{}
	add := func(c ast.Node, wait ast.Expr, at *ast.CallExpr) {
		if !seen[c] {
			seen[c] = true
			cmds = append(cmds, issued{c, wait, at})
		}
	}
	for _, st := range cc.Body {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				if isCmd(p.info.TypeOf(n), tea) {
					add(n, nil, nil)
				}
				return false
			case *ast.CallExpr:
				if f := typeutil.StaticCallee(p.info, n); f != nil && f.Pkg() != nil && f.Pkg().Path() == tea &&
					(f.Name() == "Tick" || f.Name() == "Every") && len(n.Args) == 2 {
					if lit, ok := ast.Unparen(n.Args[1]).(*ast.FuncLit); ok {
						add(lit, n.Args[0], n)
					}
					return false
				}
				if isCmd(p.info.TypeOf(n), tea) {
					for _, c := range r.cmdsOf(n, tea, 0) {
						add(c, nil, n)
					}
				}
			}
			return true
		})
	}
	for _, c := range cmds {
		steps, back := r.failurePath(c.cmd, t, false, 0, map[ast.Node]bool{})
		if back == nil {
			continue
		}
		l := r.layer(fn, fd, cc, t, c.cmd, steps, back)
		if c.wait != nil {
			l.Waits = append(l.Waits, c.at)
			r.setWait(l, c.at, c.wait, Unknown) // the runtime's timer: no context stops it, quitting does
		}
		p.res.Layers = append(p.res.Layers, l)
		if p.res.byNode[cc] == nil {
			p.res.byNode[cc] = l
		}
	}
}

// layer builds the Layer of one cycle.
func (r *reissueFinder) layer(fn *types.Func, fd *ast.FuncDecl, cc *ast.CaseClause, t types.Type, cmd ast.Node, steps []step, back ast.Expr) *Layer {
	p := r.p
	ri := &Reissue{Msg: t, Dispatcher: fn, BackEdge: back, producers: map[ast.Node]bool{}, r: r}
	l := &Layer{Kind: Reissued, Name: "Bubble Tea retry (re-issued from Update)", Pos: back.Pos(), Node: cc,
		Func: fn, FuncNode: fd, Body: funcBody(cmd)}
	// The operation: the fallible and remote calls of the command.
	ast.Inspect(funcBody(cmd), func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && (p.fallible(call) || isRemoteCall(p.info, call) || p.res.byNode[call] != nil) {
			l.Ops = append(l.Ops, call)
		}
		return true
	})
	l.Context = p.opContext(l.Ops)
	// The functions on the way back: where the counter, the wait and the
	// classifier are. The clause of Update is on the way too (case
	// errMsg: if m.tries < 3 { return m, retryCmd }).
	regions := []ast.Node{cc}
	for _, s := range steps {
		ri.producers[s.fn] = true
		regions = append(regions, funcBody(s.fn))
	}
	pol := &l.Policy
	pol.Attempts = Value{Set: true, Known: true} // unbounded unless a counter says otherwise
	for _, reg := range regions {
		if cmp, n, ok := r.counter(reg, t); ok {
			ri.Counter = cmp
			pol.Attempts = n
			break
		}
	}
	for _, reg := range regions[1:] {
		for _, w := range p.waitsIn(reg) {
			l.Waits = append(l.Waits, w.node)
			r.setWait(l, w.node, w.dur, w.cancellable)
		}
	}
	// The classifier: the last function before the back edge's own that
	// can answer the failure with something other than the request again
	// (handleAPIError's status switch before m.retry).
	for i := len(steps) - 2; i >= 1; i-- {
		s := steps[i]
		if s.call == nil {
			continue
		}
		if r.stops(s.fn, t) {
			pol.Classifier = s.fn
			if d, ok := s.fn.(*ast.FuncDecl); ok {
				pol.ClassifierFunc, _ = p.info.Defs[d.Name].(*types.Func)
			}
			break
		}
	}
	pol.Notes = append(pol.Notes, "re-issued by "+fn.Name()+" on "+types.TypeString(t, types.RelativeTo(p.pass.Pkg)))
	if p.res.reissues == nil {
		p.res.reissues = map[*Layer]*Reissue{}
	}
	p.res.reissues[l] = ri
	return l
}

// stops reports whether fn has a return that does not lead back to t.
func (r *reissueFinder) stops(fn ast.Node, t types.Type) bool {
	for _, ret := range returns(fn) {
		for _, res := range ret.Results {
			if !r.yields(ast.Unparen(res), t, 0) {
				return true
			}
		}
	}
	return false
}

func (r *reissueFinder) setWait(l *Layer, at ast.Node, dur ast.Expr, cancellable Tri) {
	pol := &l.Policy
	if !pol.WaitPos.IsValid() {
		pol.WaitPos = at.Pos()
	}
	if cancellable == No || !pol.WaitPos.IsValid() || at.Pos() == pol.WaitPos {
		pol.WaitCancellable = cancellable
	}
	if dur == nil {
		return
	}
	if d, ok := r.p.fold.Duration(dur); ok && len(pol.Waits) == 0 {
		pol.Waits, pol.Schedule = []time.Duration{d}, "constant "+durconst.Format(d)
		pol.Jitter = No // a constant: no random source reaches it
		if n, ok := l.Attempts(); ok {
			pol.Waits = nil
			for i := int64(1); i < n; i++ {
				pol.Waits = append(pol.Waits, d)
			}
			pol.WaitsKnown = true
		}
	}
}

// counter finds the comparison that bounds the cycle in region: a count
// incremented there and compared with a bound, the branch that passes it
// giving up (returning something other than t). It returns the attempts
// it allows.
func (r *reissueFinder) counter(region ast.Node, t types.Type) (ast.Expr, Value, bool) {
	p := r.p
	incs := map[string]token.Pos{} // counted expressions by text
	ast.Inspect(region, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IncDecStmt:
			if n.Tok == token.INC {
				incs[types.ExprString(n.X)] = n.Pos()
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN && len(n.Lhs) == 1 {
				if k, ok := p.fold.Int(n.Rhs[0]); ok && k == 1 {
					incs[types.ExprString(n.Lhs[0])] = n.Pos()
				}
			}
		}
		return true
	})
	if len(incs) == 0 {
		return nil, Value{}, false
	}
	var cmp ast.Expr
	var val Value
	ast.Inspect(region, func(n ast.Node) bool {
		if cmp != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		be, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
		if !ok {
			return true
		}
		op, x, y := be.Op, be.X, be.Y
		if _, ok := incs[types.ExprString(y)]; ok {
			op, x, y = Flip(op), y, x
		}
		inc, ok := incs[types.ExprString(x)]
		if !ok {
			return true
		}
		// Which side gives up: the body, when it returns something that
		// is not t; else the rest (if cnt < max { return again }).
		bodyStops := r.blockStops(ifs.Body, t)
		var stopOp token.Token
		switch {
		case bodyStops:
			stopOp = op
		case ifs.Else == nil:
			stopOp = negate(op)
		default:
			return true
		}
		before := inc < ifs.Pos() // incremented before the test
		val = Value{Set: true, Pos: be.Pos()}
		if k, ok := p.fold.Int(y); ok {
			// cnt runs 0, 1, ...; the attempts are the re-issues + 1.
			var reissues int64
			switch stopOp {
			case token.GEQ:
				reissues = k
			case token.GTR:
				reissues = k + 1
			default:
				return true
			}
			if before {
				reissues--
			}
			val.Known, val.N = true, reissues+1
			if val.N < 1 {
				val.N = 1
			}
		}
		cmp = be
		return false
	})
	return cmp, val, cmp != nil
}

// blockStops reports whether a block returns something other than t.
func (r *reissueFinder) blockStops(b *ast.BlockStmt, t types.Type) bool {
	stops := false
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 0 {
				return false
			}
			// Update returns (model, cmd): only the command says whether
			// the cycle goes on.
			res := ast.Unparen(n.Results[len(n.Results)-1])
			if isCmd(r.p.info.TypeOf(res), r.tea) {
				if len(r.cmdsOf(res, r.tea, 0)) == 0 {
					stops = true
				}
			} else if !r.yields(res, t, 0) {
				stops = true
			}
		}
		return true
	})
	return stops
}

// Flip mirrors a comparison (x < y is y > x); negate complements it
// (!(x < y) is x >= y). Other operators are their own.
func Flip(op token.Token) token.Token   { return cmpOp(op, 0) }
func negate(op token.Token) token.Token { return cmpOp(op, 1) }

var cmpOps = map[token.Token][2]token.Token{
	token.LSS: {token.GTR, token.GEQ}, token.LEQ: {token.GEQ, token.GTR},
	token.GTR: {token.LSS, token.LEQ}, token.GEQ: {token.LEQ, token.LSS},
}

func cmpOp(op token.Token, which int) token.Token {
	if t, ok := cmpOps[op]; ok {
		return t[which]
	}
	return op
}
