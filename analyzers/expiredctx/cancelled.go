package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
)

// This file holds the second rule: a call given a context after that
// context's own cancel function has run on every path to the call. The
// context is then certainly done, whatever else happens, so a call that
// fails on a done context fails at once. The flow is followed on the
// function's control-flow graph (go/cfg): at each point, a must-analysis
// knows whether the context variable still holds the value the site made,
// whether the cancel variable still holds that value's cancel, and whether
// that cancel has run on every path since the site.

// A cancelSite is `ctx, cancel := context.WithCancel(parent)` (or
// WithTimeout, WithDeadline and their Cause forms) in a function's own code.
type cancelSite struct {
	stmt   *ast.AssignStmt
	ctx    *types.Var  // a local variable or parameter
	cancel effects.Ref // a local variable, or a field (n.waitCancel)
	base   string      // for a field: the text of the value holding it ("n")
	made   string      // the context function, for the message
}

// flowState is what holds on every path to a point of the graph.
type flowState struct {
	reached bool
	live    bool      // ctx holds the site's value
	own     bool      // the cancel variable holds the site's cancel
	done    bool      // that cancel has run since the site
	by      string    // how it ran, for the message: "cancel() at x.go:12"
	at      token.Pos // where
}

func meet(a, b flowState) flowState {
	if !a.reached {
		return b
	}
	if !b.reached {
		return a
	}
	out := flowState{reached: true, live: a.live && b.live, own: a.own && b.own, done: a.done && b.done}
	out.by, out.at = a.by, a.at
	if b.at > a.at { // the later cancel, the one nearer the call
		out.by, out.at = b.by, b.at
	}
	if !out.done {
		out.by, out.at = "", token.NoPos
	}
	return out
}

// An event is what a node of the graph does to the state, in evaluation
// order.
type event struct {
	pos   token.Pos
	order int // at one position: uses and cancels before assignments
	kind  int
	call  *ast.CallExpr
	by    string
}

const (
	evUse = iota
	evCancel
	evAssignCtx
	evAssignCancel
	evSite
)

// cancelledUses reports, in every function of the package, the calls that
// run on a context whose cancel has already run.
func (c *checker) cancelledUses(reported map[*ast.CallExpr]bool) {
	c.eachBody(func(fn ast.Node, body *ast.BlockStmt) {
		if strings.HasSuffix(c.pass.Fset.File(body.Pos()).Name(), "_test.go") {
			return // a test that cancels before a call is testing the cancellation path
		}
		var sites []*cancelSite
		inspectOwn(body, func(n ast.Node) {
			if as, ok := n.(*ast.AssignStmt); ok {
				if s := c.cancelSiteOf(as); s != nil && c.trackable(body, s) {
					sites = append(sites, s)
				}
			}
		})
		if len(sites) == 0 {
			return
		}
		g := cfg.New(body, mayReturn)
		for _, s := range sites {
			c.followSite(g, s, reported)
		}
	})
}

func mayReturn(call *ast.CallExpr) bool {
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	return !ok || id.Name != "panic"
}

// cancelSiteOf recognises a cancel site whose context is a local variable.
func (c *checker) cancelSiteOf(as *ast.AssignStmt) *cancelSite {
	if len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return nil
	}
	call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	made := effects.ContextFunc(c.info, call)
	switch made {
	case "WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
	default:
		return nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	v := c.varOf(id)
	if v == nil {
		return nil
	}
	s := &cancelSite{stmt: as, ctx: v, made: made}
	switch l := astutil.Unparen(as.Lhs[1]).(type) {
	case *ast.Ident:
		cv := c.varOf(l)
		if cv == nil || l.Name == "_" {
			return nil
		}
		s.cancel = effects.Ref{V: cv, Text: l.Name}
	case *ast.SelectorExpr:
		r, ok := c.flow.RefOf(l)
		if !ok {
			return nil
		}
		s.cancel = r
		s.base = types.ExprString(l.X)
	default:
		return nil
	}
	return s
}

func (c *checker) varOf(id *ast.Ident) *types.Var {
	obj := c.info.Defs[id]
	if obj == nil {
		obj = c.info.Uses[id]
	}
	v, _ := obj.(*types.Var)
	return v
}

// trackable reports whether every change to the site's context and cancel
// variables is visible in the function's own code: their address is never
// taken, and a function literal that assigns them is written before the
// site and called there (an argument or a defer), never kept to run later.
func (c *checker) trackable(body *ast.BlockStmt, s *cancelSite) bool {
	ok := true
	var lits []*ast.FuncLit
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if id, isID := astutil.Unparen(n.X).(*ast.Ident); isID && (c.varOf(id) == s.ctx || !s.cancel.Sel && c.varOf(id) == s.cancel.V) {
					ok = false
				}
			}
		case *ast.FuncLit:
			lits = append(lits, n)
		}
		return ok
	})
	if !ok {
		return false
	}
	for _, lit := range lits {
		if !c.assignsSite(lit, s) {
			continue
		}
		if lit.End() > s.stmt.Pos() || !c.calledInPlace(lit) {
			return false
		}
	}
	return true
}

func (c *checker) assignsSite(lit *ast.FuncLit, s *cancelSite) bool {
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if c.isCtxLhs(l, s) || c.isCancelLhs(l, s) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// calledInPlace reports a function literal that is an argument of a call
// or the function of a call (including a defer): it is not stored.
func (c *checker) calledInPlace(lit *ast.FuncLit) bool {
	path, _ := astutil.PathEnclosingInterval(c.fileOf(lit), lit.Pos(), lit.End())
	for _, n := range path[1:] {
		switch n.(type) {
		case *ast.ParenExpr:
			continue
		case *ast.CallExpr:
			return true
		}
		return false
	}
	return false
}

func (c *checker) isCtxLhs(l ast.Expr, s *cancelSite) bool {
	id, ok := astutil.Unparen(l).(*ast.Ident)
	return ok && c.varOf(id) == s.ctx
}

func (c *checker) isCancelLhs(l ast.Expr, s *cancelSite) bool {
	if s.cancel.Sel {
		r, ok := c.flow.RefOf(l)
		return ok && r.V == s.cancel.V
	}
	id, ok := astutil.Unparen(l).(*ast.Ident)
	return ok && c.varOf(id) == s.cancel.V
}

// followSite runs the must-analysis for one site over the graph and
// reports the uses it finds on a cancelled context.
func (c *checker) followSite(g *cfg.CFG, s *cancelSite, reported map[*ast.CallExpr]bool) {
	events := make(map[*cfg.Block][]event)
	any := false
	for _, b := range g.Blocks {
		var evs []event
		for _, n := range b.Nodes {
			evs = append(evs, c.nodeEvents(n, s)...)
		}
		events[b] = evs
		for _, e := range evs {
			if e.kind == evSite {
				any = true
			}
		}
	}
	if !any {
		return
	}
	preds := make(map[*cfg.Block][]*cfg.Block)
	for _, b := range g.Blocks {
		for _, su := range b.Succs {
			preds[su] = append(preds[su], b)
		}
	}
	in := make(map[*cfg.Block]flowState)
	out := make(map[*cfg.Block]flowState)
	entry := g.Blocks[0]
	for changed, iter := true, 0; changed && iter < 50; iter++ {
		changed = false
		for _, b := range g.Blocks {
			var st flowState
			if b == entry {
				st = flowState{reached: true}
			}
			for _, p := range preds[b] {
				st = meet(st, out[p])
			}
			if !st.reached {
				continue
			}
			in[b] = st
			o := c.transfer(st, events[b], s, nil)
			if o != out[b] {
				out[b] = o
				changed = true
			}
		}
	}
	for _, b := range g.Blocks {
		st, ok := in[b]
		if !ok {
			continue
		}
		c.transfer(st, events[b], s, func(e event, st flowState) {
			if !reported[e.call] && c.reportCancelled(e.call, s, st) {
				reported[e.call] = true
			}
		})
	}
}

func (c *checker) transfer(st flowState, evs []event, s *cancelSite, use func(event, flowState)) flowState {
	for _, e := range evs {
		switch e.kind {
		case evUse:
			if use != nil && st.live && st.done {
				use(e, st)
			}
		case evCancel:
			if st.own && !st.done {
				st.done, st.by, st.at = true, e.by, e.pos
			}
		case evAssignCtx:
			st.live = false
		case evAssignCancel:
			st.own = false
		case evSite:
			st.live, st.own, st.done, st.by, st.at = true, true, false, "", token.NoPos
		}
	}
	return st
}

// nodeEvents lists what one node of the graph does to the site's state,
// in evaluation order. Function literals, defers and go statements run
// their calls later, or elsewhere: they are not events here.
func (c *checker) nodeEvents(n ast.Node, s *cancelSite) []event {
	var evs []event
	add := func(e event) { evs = append(evs, e) }
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt:
			return false
		case *ast.AssignStmt:
			if x == s.stmt {
				add(event{pos: x.End(), order: 2, kind: evSite})
				return true
			}
			if x.Tok != token.DEFINE && x.Tok != token.ASSIGN {
				return true
			}
			for _, l := range x.Lhs {
				if c.isCtxLhs(l, s) {
					add(event{pos: x.End(), order: 1, kind: evAssignCtx})
				}
				if c.isCancelLhs(l, s) {
					add(event{pos: x.End(), order: 1, kind: evAssignCancel})
				}
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				if c.isCtxLhs(id, s) {
					add(event{pos: x.End(), order: 1, kind: evAssignCtx})
				}
				if c.isCancelLhs(id, s) {
					add(event{pos: x.End(), order: 1, kind: evAssignCancel})
				}
			}
		case *ast.CallExpr:
			if by, ok := c.cancelCall(x, s); ok {
				add(event{pos: x.End(), kind: evCancel, call: x, by: by})
			} else if c.replacesCancel(x, s) {
				add(event{pos: x.End(), order: 1, kind: evAssignCancel})
			}
			if c.usesSiteCtx(x, s) {
				add(event{pos: x.End(), kind: evUse, call: x})
			}
		}
		return true
	})
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].pos != evs[j].pos {
			return evs[i].pos < evs[j].pos
		}
		return evs[i].order < evs[j].order
	})
	return evs
}

// cancelCall reports whether call runs the site's cancel before it
// returns: cancel() itself, a local closure that calls it on every path
// (drain := func() error { cancel(); ... }), a function of the package
// given the cancel as an argument that calls it on every path, or a method
// of the package on the value holding a cancel field (n.stop(), whose body
// calls n.cancel() on every path).
func (c *checker) cancelCall(call *ast.CallExpr, s *cancelSite) (string, bool) {
	fun := astutil.Unparen(call.Fun)
	at := " at " + c.short(call.Pos())
	if len(call.Args) == 0 && c.isCancelExpr(fun, s) {
		return types.ExprString(fun) + "()" + at, true
	}
	what := types.ExprString(fun) + "()" + at + " calls " + s.cancel.Text
	if id, ok := fun.(*ast.Ident); ok {
		if v := c.varOf(id); v != nil && v.Parent() != types.Universe {
			if as := c.flow.Assigns(v); len(as) == 1 {
				if lit, ok := astutil.Unparen(as[0].RHS).(*ast.FuncLit); ok && alwaysCalls(lit.Body, func(e ast.Expr) bool { return c.isCancelExpr(e, s) }) {
					return what, true
				}
			}
		}
	}
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() != c.pass.Pkg {
		return "", false
	}
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return "", false
	}
	sig := fn.Type().(*types.Signature)
	if !s.cancel.Sel {
		for i, a := range call.Args {
			if i >= sig.Params().Len() {
				break
			}
			p := sig.Params().At(i)
			if id, ok := astutil.Unparen(a).(*ast.Ident); ok && c.varOf(id) == s.cancel.V && p.Name() != "" {
				pv := c.paramVar(decl, i)
				if pv != nil && alwaysCalls(decl.Body, func(e ast.Expr) bool {
					id, ok := astutil.Unparen(e).(*ast.Ident)
					return ok && c.info.Uses[id] == pv
				}) {
					return what, true
				}
			}
		}
		return "", false
	}
	recv := c.recvOf(call, decl, s)
	if recv == nil {
		return "", false
	}
	if alwaysCalls(decl.Body, func(e ast.Expr) bool { return c.isFieldOf(e, recv, s.cancel.V) }) {
		return what, true
	}
	return "", false
}

// replacesCancel reports a call of a method of the package on the value
// holding the cancel field whose body assigns that field: the field may no
// longer hold the site's cancel.
func (c *checker) replacesCancel(call *ast.CallExpr, s *cancelSite) bool {
	if !s.cancel.Sel {
		return false
	}
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() != c.pass.Pkg {
		return false
	}
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil || c.recvOf(call, decl, s) == nil {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if r, ok := c.flow.RefOf(l); ok && r.V == s.cancel.V {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// recvOf returns the receiver variable of decl when call is a method call
// on the value that holds the site's cancel field.
func (c *checker) recvOf(call *ast.CallExpr, decl *ast.FuncDecl, s *cancelSite) *types.Var {
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || types.ExprString(sel.X) != s.base || decl.Recv == nil || len(decl.Recv.List) != 1 || len(decl.Recv.List[0].Names) != 1 {
		return nil
	}
	v, _ := c.info.Defs[decl.Recv.List[0].Names[0]].(*types.Var)
	return v
}

func (c *checker) paramVar(decl *ast.FuncDecl, i int) *types.Var {
	k := 0
	for _, f := range decl.Type.Params.List {
		for _, id := range f.Names {
			if k == i {
				v, _ := c.info.Defs[id].(*types.Var)
				return v
			}
			k++
		}
		if len(f.Names) == 0 {
			k++
		}
	}
	return nil
}

// isFieldOf reports whether e is recv.field.
func (c *checker) isFieldOf(e ast.Expr, recv, field *types.Var) bool {
	sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := astutil.Unparen(sel.X).(*ast.Ident)
	if !ok || c.info.Uses[id] != recv {
		return false
	}
	s := c.info.Selections[sel]
	return s != nil && s.Obj() == field
}

func (c *checker) isCancelExpr(e ast.Expr, s *cancelSite) bool {
	e = astutil.Unparen(e)
	if s.cancel.Sel {
		r, ok := c.flow.RefOf(e)
		return ok && r.V == s.cancel.V && r.Text == s.cancel.Text
	}
	id, ok := e.(*ast.Ident)
	return ok && c.info.Uses[id] == s.cancel.V
}

// alwaysCalls reports whether a body calls a function matching isFn (with
// no arguments) on every path before it returns: a top-level call
// statement, or a top-level defer of it, reached before any statement that
// may return or jump.
func alwaysCalls(body *ast.BlockStmt, isFn func(ast.Expr) bool) bool {
	for _, st := range body.List {
		var call *ast.CallExpr
		switch st := st.(type) {
		case *ast.ExprStmt:
			call, _ = astutil.Unparen(st.X).(*ast.CallExpr)
		case *ast.DeferStmt:
			call = st.Call
		}
		if call != nil && len(call.Args) == 0 && isFn(call.Fun) {
			return true
		}
		if leaves(st) {
			return false
		}
	}
	return false
}

// leaves reports whether a statement may leave the function or jump:
// a return, goto, labelled branch or panic anywhere in it (outside
// function literals).
func leaves(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		case *ast.BranchStmt:
			if n.Tok == token.GOTO || n.Label != nil {
				found = true
			}
		case *ast.CallExpr:
			if id, ok := astutil.Unparen(n.Fun).(*ast.Ident); ok && id.Name == "panic" {
				found = true
			}
		}
		return !found
	})
	return found
}

// usesSiteCtx reports whether call is given the site's context, or a
// context derived from it in the call itself (context.WithTimeout(ctx, d)).
// Contexts derived into other variables are not followed: the variable may
// have been made from an earlier value of ctx.
func (c *checker) usesSiteCtx(call *ast.CallExpr, s *cancelSite) bool {
	if effects.ContextFunc(c.info, call) != "" {
		return false // deriving is not a use
	}
	for _, a := range call.Args {
		if c.isSiteCtx(a, s) {
			return true
		}
	}
	return false
}

func (c *checker) isSiteCtx(e ast.Expr, s *cancelSite) bool {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		return c.info.Uses[e] == s.ctx
	case *ast.CallExpr:
		switch effects.ContextFunc(c.info, e) {
		case "WithValue", "WithTimeout", "WithDeadline", "WithCancel", "WithTimeoutCause", "WithDeadlineCause", "WithCancelCause":
			return len(e.Args) > 0 && c.isSiteCtx(e.Args[0], s)
		}
	}
	return false
}

// reportCancelled reports call when it fails on a done context and its
// error is used.
func (c *checker) reportCancelled(call *ast.CallExpr, s *cancelSite, st flowState) bool {
	via, ok := c.failsOnDone(call)
	if !ok || c.discarded(call) || c.expectsCancel(call) {
		return false
	}
	ctxArg := ""
	for _, a := range call.Args {
		if c.isSiteCtx(a, s) {
			ctxArg = exprText(a)
			break
		}
	}
	what := "context.Canceled"
	switch s.made {
	case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
		what += " (context.DeadlineExceeded if its deadline passed first)"
	}
	if via != "" {
		via = " (it " + via + ")"
	}
	msg := fmt.Sprintf("%s is given %s after the cancel of its context.%s at %s has run on every path to it (%s): it fails at once with %s%s; give it a context that is still live",
		effects.CalleeText(call), ctxArg, s.made, c.short(s.stmt.Pos()), st.by, what, via)
	c.pass.Report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Message: msg})
	return true
}

// discarded reports a call whose error result nobody reads: a call
// statement, or an assignment of the error to _.
func (c *checker) discarded(call *ast.CallExpr) bool {
	if c.unread == nil {
		c.unread = make(map[*ast.CallExpr]bool)
		for _, f := range c.pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ExprStmt:
					if call, ok := astutil.Unparen(n.X).(*ast.CallExpr); ok {
						c.unread[call] = true
					}
				case *ast.AssignStmt:
					if len(n.Rhs) != 1 {
						break
					}
					call, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr)
					last, isID := astutil.Unparen(n.Lhs[len(n.Lhs)-1]).(*ast.Ident)
					if ok && isID && last.Name == "_" {
						c.unread[call] = true
					}
				}
				return true
			})
		}
	}
	return c.unread[call]
}

// expectsCancel reports whether the code tests the call's error for the
// cancellation it caused: the call, or the error variable it is assigned
// to, is compared with context.Canceled or DeadlineExceeded (==, or a call
// given both: errors.Is, require.ErrorIs). That is a test of the
// cancellation path, written on purpose.
func (c *checker) expectsCancel(call *ast.CallExpr) bool {
	path, _ := astutil.PathEnclosingInterval(c.fileOf(call), call.Pos(), call.End())
	var errVar *types.Var
	var scope ast.Node
	for i, n := range path {
		if i > 0 && errVar == nil && path[i-1] == call {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
				if id, ok := astutil.Unparen(as.Lhs[len(as.Lhs)-1]).(*ast.Ident); ok {
					errVar = c.varOf(id)
				}
			}
		}
		if _, ok := n.(*ast.FuncDecl); ok {
			scope = n
			break
		}
		if _, ok := n.(*ast.FuncLit); ok {
			scope = n
			break
		}
	}
	if scope == nil {
		return false
	}
	isErr := func(e ast.Expr) bool {
		e = astutil.Unparen(e)
		if e == call {
			return true
		}
		id, ok := e.(*ast.Ident)
		return ok && errVar != nil && c.info.Uses[id] == errVar
	}
	found := false
	ast.Inspect(scope, func(n ast.Node) bool {
		var args []ast.Expr
		switch n := n.(type) {
		case *ast.CallExpr:
			args = n.Args
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				args = []ast.Expr{n.X, n.Y}
			}
		}
		hasErr, hasCtxErr := false, false
		for _, a := range args {
			hasErr = hasErr || isErr(a)
			hasCtxErr = hasCtxErr || c.isCtxError(a)
		}
		if hasErr && hasCtxErr {
			found = true
		}
		return !found
	})
	return found
}
