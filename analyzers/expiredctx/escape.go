package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"
)

// This file holds the third rule: a closure that captures a context its
// function cancels on the way out, and escapes the function to run later:
//
//	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
//	defer cancel()
//	if err := p.broker.MarkAsComplete(ctx, msg); err != nil {
//		p.syncRequestCh <- &syncRequest{fn: func() error {
//			return p.broker.MarkAsComplete(ctx, msg) // runs after the return: ctx is cancelled
//		}}
//	}
//
// Go closures capture variables, so the closure sees ctx as it is when it
// runs; by then the function has returned and its cancel has run. Every
// write the closure makes on ctx fails at once with context.Canceled.
//
// Escaping is taken narrowly, to what certainly outlives the call: the
// closure (or a value holding it: a composite literal, a pointer to one, a
// local variable or field it was stored in) is sent on a channel, stored in
// a field or element reached from a parameter, the receiver or a package
// variable, appended to one, returned, or handed to a function of the
// package that does one of these with it. A closure called in place,
// deferred, run by a go statement or handed to any other function (a retry
// layer, errgroup.Go) is not followed: a retry runs it before returning,
// and a goroutine that shares the function's context is, as a rule, meant
// to stop with it.
//
// Quiet: the function waits after the escape (a channel receive, a select,
// a Wait call: a worker that runs the closure and answers); the value that
// escapes also carries the context itself, so its consumer can see that it
// is done; the stored closure is used again before the function returns;
// the context or its cancel is assigned anywhere else, or its address is
// taken; the cancel runs on some paths only.

// An escape is one way a function literal leaves its function.
type escape struct {
	at      ast.Node // the statement or call that lets it out
	how     string   // "sent on p.ch", "stored in p.hooks", "returned", ...
	parts   []ast.Expr
	carried []ast.Expr // what travels with it (the other arguments of a helper)
	lhs     ast.Expr   // for a store: where
}

// fnScope is what the escape rules need to know of the function they read.
type fnScope struct {
	node   ast.Node // *ast.FuncDecl or *ast.FuncLit
	body   *ast.BlockStmt
	params map[*types.Var]int // parameters by index; the receiver is -1
	stores map[*types.Var][]ast.Expr
}

// escapedClosures reports the writes made, inside closures that escape
// their function, on a context that function cancels before it returns.
func (c *checker) escapedClosures(reported map[*ast.CallExpr]bool) {
	c.eachBody(func(fn ast.Node, body *ast.BlockStmt) {
		if strings.HasSuffix(c.pass.Fset.File(body.Pos()).Name(), "_test.go") {
			return // as in cancelled.go: tests are not judged here
		}
		var sites []*cancelSite
		inspectOwn(body, func(n ast.Node) {
			if as, ok := n.(*ast.AssignStmt); ok {
				if s := c.cancelSiteOf(as); s != nil && !s.cancel.sel && c.trackable(body, s) &&
					len(c.assigns[s.ctx]) == 1 && len(c.assigns[s.cancel.v]) == 1 {
					sites = append(sites, s)
				}
			}
		})
		if len(sites) == 0 {
			return
		}
		sc := c.scopeOf(fn, body)
		var g *cfg.CFG
		for _, esc := range c.escapes(sc, 0) {
			for _, lit := range c.heldLits(sc, esc.parts, 0) {
				for _, s := range sites {
					if lit.Pos() < s.stmt.End() || c.carries(sc, esc.parts, s.ctx) || c.carries(sc, esc.carried, s.ctx) || c.testsCtx(lit, s.ctx) {
						continue
					}
					writes := c.closureWrites(lit, s)
					if len(writes) == 0 {
						continue
					}
					if c.busyAfter(sc, esc.at, s) || c.usedAgain(sc, esc) {
						continue
					}
					by, ok := c.deferredCancel(fn, esc.at, s)
					if !ok {
						if g == nil {
							g = cfg.New(body, mayReturn)
						}
						by, ok = c.cancelAfter(g, esc.at, s)
					}
					if !ok {
						continue
					}
					for _, w := range writes {
						if !reported[w.call] {
							reported[w.call] = true
							c.reportEscaped(w, s, esc, fn, by)
						}
					}
				}
			}
		}
	})
}

func (c *checker) scopeOf(fn ast.Node, body *ast.BlockStmt) *fnScope {
	sc := &fnScope{node: fn, body: body, params: make(map[*types.Var]int), stores: make(map[*types.Var][]ast.Expr)}
	var ft *ast.FuncType
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		ft = fn.Type
		if fn.Recv != nil {
			for _, f := range fn.Recv.List {
				for _, id := range f.Names {
					if v, ok := c.info.Defs[id].(*types.Var); ok {
						sc.params[v] = -1
					}
				}
			}
		}
	case *ast.FuncLit:
		ft = fn.Type
	}
	i := 0
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			i++
		}
		for _, id := range f.Names {
			if v, ok := c.info.Defs[id].(*types.Var); ok {
				sc.params[v] = i
			}
			i++
		}
	}
	// Values stored into a field or element of a local (req.fn = f): the
	// local then holds them.
	inspectOwn(body, func(n ast.Node) {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return
		}
		for i, l := range as.Lhs {
			if _, isID := astutil.Unparen(l).(*ast.Ident); isID {
				continue
			}
			if v := rootVar(c.info, l); v != nil && v.Parent() != v.Pkg().Scope() {
				sc.stores[v] = append(sc.stores[v], as.Rhs[i])
			}
		}
	})
	return sc
}

// escapes lists the statements of a function's own body that let a value
// out: a send, a store into what outlives the call, a return, and a call of
// a function of the package that does one of these with an argument.
func (c *checker) escapes(sc *fnScope, depth int) []escape {
	var out []escape
	inspectOwn(sc.body, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.SendStmt:
			out = append(out, escape{at: n, how: "sent on " + exprText(n.Chan), parts: []ast.Expr{n.Value}})
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return
			}
			for i, l := range n.Lhs {
				if !c.outlives(sc, l, false) {
					continue
				}
				how := "stored in " + exprText(l)
				if call, ok := astutil.Unparen(n.Rhs[i]).(*ast.CallExpr); ok && isBuiltin(c.info, call, "append") {
					how = "appended to " + exprText(l)
				}
				out = append(out, escape{at: n, how: how, parts: []ast.Expr{n.Rhs[i]}, lhs: l})
			}
		case *ast.ReturnStmt:
			if len(n.Results) > 0 {
				out = append(out, escape{at: n, how: "returned", parts: n.Results})
			}
		case *ast.CallExpr:
			if depth >= 2 {
				return
			}
			fn, ok := typeutil.Callee(c.info, n).(*types.Func)
			if !ok || fn.Pkg() != c.pass.Pkg {
				return
			}
			for i, a := range n.Args {
				if how, ok := c.paramEscapes(sc, n, fn, i, depth+1); ok {
					out = append(out, escape{at: n, how: "handed to " + calleeText(n) + ", which " + how, parts: []ast.Expr{a}, carried: n.Args})
				}
			}
		}
	})
	return out
}

// paramEscapes reports whether fn, a function of this package, lets its
// parameter i out (sends it, stores it where it outlives the caller too,
// returns it... not counted: the caller sees the returned value itself).
func (c *checker) paramEscapes(caller *fnScope, call *ast.CallExpr, fn *types.Func, i, depth int) (string, bool) {
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return "", false
	}
	sig := fn.Type().(*types.Signature)
	if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
		return "", false
	}
	sc := c.scopeOf(decl, decl.Body)
	pv := c.paramVar(decl, i)
	if pv == nil {
		return "", false
	}
	for _, esc := range c.escapes(sc, depth) {
		if _, ret := esc.at.(*ast.ReturnStmt); ret {
			continue
		}
		if !c.holdsVar(sc, esc.parts, pv, 0) || c.busyAfter(sc, esc.at, nil) {
			continue
		}
		// A store into the callee's receiver or parameter outlives the
		// caller only when what the caller gave there does.
		if esc.lhs != nil {
			if j, isParam := sc.params[rootVar(c.info, esc.lhs)]; isParam {
				arg := c.argAt(call, j)
				if arg == nil || !c.outlives(caller, arg, true) {
					continue
				}
			}
		}
		return active(esc.how), true
	}
	return "", false
}

// active turns "sent on p.ch" into "sends it on p.ch", for "handed to
// p.enqueue, which sends it on p.ch".
func active(how string) string {
	for _, r := range [][2]string{{"sent on ", "sends it on "}, {"stored in ", "stores it in "}, {"appended to ", "appends it to "}, {"handed to ", "hands it to "}} {
		if strings.HasPrefix(how, r[0]) {
			return r[1] + how[len(r[0]):]
		}
	}
	return how
}

// argAt returns what the caller gives for parameter j (-1: the receiver).
func (c *checker) argAt(call *ast.CallExpr, j int) ast.Expr {
	if j < 0 {
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	if j < len(call.Args) {
		return call.Args[j]
	}
	return nil
}

// outlives reports whether a store into e is seen after the function
// returns: a package variable, or a field or element reached from a
// parameter, the receiver or a package variable through a pointer, a map
// or a slice. deref says e itself is read through a pointer already.
func (c *checker) outlives(sc *fnScope, e ast.Expr, deref bool) bool {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		if v == nil {
			return false
		}
		if v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			return true
		}
		_, isParam := sc.params[v]
		return isParam && deref // a parameter reassigned is only a local
	case *ast.SelectorExpr:
		sel := c.info.Selections[e]
		if sel == nil || sel.Kind() != types.FieldVal {
			if v, ok := c.info.Uses[e.Sel].(*types.Var); ok && sel == nil {
				return v.Pkg() != nil && v.Parent() == v.Pkg().Scope() // pkg.Var
			}
			return false
		}
		return c.outlives(sc, e.X, deref || sel.Indirect() || shared(c.info.TypeOf(e.X)))
	case *ast.IndexExpr:
		return c.outlives(sc, e.X, deref || shared(c.info.TypeOf(e.X)))
	case *ast.StarExpr:
		return c.outlives(sc, e.X, true)
	}
	return false
}

// shared reports a type whose values share what they point at: a store
// through one is seen through every copy.
func shared(t types.Type) bool {
	if t == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Slice:
		return true
	}
	return false
}

// rootVar is the variable a selector or index chain starts from.
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := astutil.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			return v
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// heldLits returns the function literals the expressions hold by value:
// the literal itself, in a composite literal, behind &, in a conversion or
// append, in a local variable (its values and what was stored into its
// fields), or in the result of a function of the package that returns its
// argument.
func (c *checker) heldLits(sc *fnScope, es []ast.Expr, depth int) []*ast.FuncLit {
	var out []*ast.FuncLit
	c.walkHeld(sc, es, depth, func(e ast.Expr) {
		if lit, ok := e.(*ast.FuncLit); ok {
			out = append(out, lit)
		}
	})
	return out
}

// holdsVar reports whether the expressions hold the value of variable v.
func (c *checker) holdsVar(sc *fnScope, es []ast.Expr, v *types.Var, depth int) bool {
	found := false
	c.walkHeld(sc, es, depth, func(e ast.Expr) {
		if id, ok := e.(*ast.Ident); ok && c.info.Uses[id] == v {
			found = true
		}
	})
	return found
}

// walkHeld calls f with every expression the values of es are made of.
func (c *checker) walkHeld(sc *fnScope, es []ast.Expr, depth int, f func(ast.Expr)) {
	seen := make(map[*types.Var]bool)
	var walk func(e ast.Expr, d int)
	walk = func(e ast.Expr, d int) {
		if e == nil || d > 8 {
			return
		}
		e = astutil.Unparen(e)
		f(e)
		switch x := e.(type) {
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					walk(kv.Value, d+1)
				} else {
					walk(el, d+1)
				}
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				walk(x.X, d+1)
			}
		case *ast.StarExpr:
			walk(x.X, d+1)
		case *ast.Ident:
			v, _ := c.info.Uses[x].(*types.Var)
			if v == nil || seen[v] || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
				return
			}
			if _, isParam := sc.params[v]; isParam {
				return
			}
			if !within(v.Pos(), sc.body) {
				return // captured from an enclosing function
			}
			seen[v] = true
			for _, a := range c.assigns[v] {
				if a.rhs != nil && within(a.stmt, sc.body) {
					if _, multi := astutil.Unparen(a.rhs).(*ast.CallExpr); multi && c.tuple(a.rhs) {
						continue
					}
					walk(a.rhs, d+1)
				}
			}
			for _, r := range sc.stores[v] {
				walk(r, d+1)
			}
		case *ast.CallExpr:
			if tv, ok := c.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				walk(x.Args[0], d+1)
				return
			}
			if isBuiltin(c.info, x, "append") {
				for _, a := range x.Args {
					walk(a, d+1)
				}
				return
			}
			if depth+d > 4 {
				return
			}
			fn, ok := typeutil.Callee(c.info, x).(*types.Func)
			if !ok || fn.Pkg() != c.pass.Pkg {
				return
			}
			for i, a := range x.Args {
				if c.returnsParam(fn, i, depth+1) {
					walk(a, d+1)
				}
			}
		}
	}
	for _, e := range es {
		walk(e, 0)
	}
}

// tuple reports a call with more than one result.
func (c *checker) tuple(e ast.Expr) bool {
	t, ok := c.info.TypeOf(e).(*types.Tuple)
	return ok && t.Len() > 1
}

// returnsParam reports whether fn, a function of this package, returns a
// value holding its parameter i (a constructor: newRequest(fn) returns
// &request{fn: fn}).
func (c *checker) returnsParam(fn *types.Func, i, depth int) bool {
	if depth > 2 {
		return false
	}
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return false
	}
	pv := c.paramVar(decl, i)
	if pv == nil {
		return false
	}
	sc := c.scopeOf(decl, decl.Body)
	found := false
	inspectOwn(decl.Body, func(n ast.Node) {
		if r, ok := n.(*ast.ReturnStmt); ok && !found && c.holdsVar(sc, r.Results, pv, depth) {
			found = true
		}
	})
	return found
}

func isBuiltin(info *types.Info, call *ast.CallExpr, name string) bool {
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}

func within(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }

// carries reports whether the escaping value also carries the context v
// (ctx itself, ctx.Done(), a context derived from it) outside function
// literals, directly or through what it holds: its consumer gets to see
// that it is done.
func (c *checker) carries(sc *fnScope, parts []ast.Expr, v *types.Var) bool {
	found := false
	c.walkHeld(sc, parts, 0, func(e ast.Expr) {
		if !found {
			found = c.usesOutsideLits(e, v)
		}
	})
	return found
}

// usesOutsideLits reports whether n uses v outside function literals (a
// closure in the held value captures ctx; it does not carry it).
func (c *checker) usesOutsideLits(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			if c.info.Uses[m] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// testsCtx reports a closure that looks at the context itself (ctx.Err(),
// ctx.Done()): it is written to stop when ctx is done.
func (c *checker) testsCtx(lit *ast.FuncLit, v *types.Var) bool {
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if x, m := c.ctxMethod(e); m == "Err" || m == "Done" {
			if id, ok := astutil.Unparen(x).(*ast.Ident); ok && c.info.Uses[id] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// closureWrites lists the writes in lit (and the literals inside it) made
// on the site's context or on one derived from it.
func (c *checker) closureWrites(lit *ast.FuncLit, s *cancelSite) []*write {
	var out []*write
	ref := ctxRef{v: s.ctx, text: s.ctx.Name()}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if w := c.classify(call); w != nil && c.descends(w.ctx, ref, call.Pos(), lit.Pos(), 0) {
			out = append(out, w)
		}
		return true
	})
	return out
}

// busyAfter reports whether the function goes on working after the
// escape, so that the closure may well run while ctx is still live: it
// waits (a channel receive, a select, a range over a channel), or calls
// anything but the cancel, builtins, conversions, logging and the
// formatting and error helpers of the standard library (a Wait, a
// Serve, a write on ctx: a long-running function that hands work out as
// it goes, and cancels ctx when it stops). "After" is by position, and
// for an escape inside a loop the whole loop: the next turn runs it too.
// Defers registered after the site count (one that waits runs before
// the cancel registered earlier). s is nil for a helper's body.
func (c *checker) busyAfter(sc *fnScope, at ast.Node, s *cancelSite) bool {
	loop := c.outerLoop(sc, at)
	var sibling *ast.SelectStmt // a send in a select: its other cases are not waits for the closure
	if path, _ := astutil.PathEnclosingInterval(c.fileOf(at), at.Pos(), at.End()); len(path) > 2 {
		if cc, ok := path[1].(*ast.CommClause); ok && cc.Comm == at {
			sibling, _ = path[3].(*ast.SelectStmt)
		}
	}
	busy := false
	ast.Inspect(sc.body, func(n ast.Node) bool {
		if busy || n == nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n == at {
			return false
		}
		if n == sibling {
			for _, cl := range sibling.Body.List {
				for _, st := range cl.(*ast.CommClause).Body {
					ast.Inspect(st, func(m ast.Node) bool {
						busy = busy || c.busyNode(m, s)
						return !busy
					})
				}
			}
			return false
		}
		if d, ok := n.(*ast.DeferStmt); ok {
			if s != nil && d.Pos() > s.stmt.End() && !c.deferOfCancel(d, s) && waits(d) {
				busy = true
			}
			return false
		}
		after := n.Pos() >= at.End() || loop != nil && within(n.Pos(), loop)
		if after && c.busyNode(n, s) {
			busy = true
		}
		return true
	})
	return busy
}

// busyNode reports a node that waits or works (busyAfter).
func (c *checker) busyNode(n ast.Node, s *cancelSite) bool {
	switch n := n.(type) {
	case *ast.UnaryExpr:
		return n.Op == token.ARROW
	case *ast.SelectStmt:
		return true
	case *ast.RangeStmt:
		if t := c.info.TypeOf(n.X); t != nil {
			_, ch := t.Underlying().(*types.Chan)
			return ch
		}
	case *ast.CallExpr:
		return !c.idleCall(n, s)
	}
	return false
}

// idleCall reports a call that neither waits nor does work that could
// keep the function running: the site's cancel, a builtin, a conversion,
// formatting and errors, logging and metrics.
func (c *checker) idleCall(call *ast.CallExpr, s *cancelSite) bool {
	if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok {
		if _, ok := c.info.Uses[id].(*types.Builtin); ok {
			return true
		}
	}
	if s != nil {
		if _, ok := c.cancelCall(call, s); ok {
			return true
		}
	}
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "fmt", "errors", "strconv", "strings", "log", "log/slog":
		return true
	case "time":
		return fn.Name() != "Sleep" && fn.Name() != "After" && fn.Name() != "Tick"
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return false
	}
	if fn.Name() == "Error" && sig.Params().Len() == 0 {
		return true // err.Error()
	}
	recv := sig.Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	return observability(recv)
}

// outerLoop returns the outermost loop of the function's own body that
// holds the node, or nil.
func (c *checker) outerLoop(sc *fnScope, at ast.Node) ast.Node {
	path, _ := astutil.PathEnclosingInterval(c.fileOf(at), at.Pos(), at.End())
	var loop ast.Node
	for _, n := range path {
		if n == sc.node {
			break
		}
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loop = n
		case *ast.FuncLit:
			return loop
		}
	}
	return loop
}

// deferOfCancel reports a defer of the site's cancel.
func (c *checker) deferOfCancel(d *ast.DeferStmt, s *cancelSite) bool {
	_, ok := c.cancelCall(d.Call, s)
	return ok
}

// waits reports a receive, a select or a Wait call in n.
func waits(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.UnaryExpr:
			found = found || m.Op == token.ARROW
		case *ast.SelectStmt:
			found = true
		case *ast.CallExpr:
			if sel, ok := astutil.Unparen(m.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Wait" {
				found = true
			}
		}
		return !found
	})
	return found
}

// usedAgain reports a stored closure that the function reads back after
// storing it (p.onDone = f; ...; p.onDone()): it may run before the return.
func (c *checker) usedAgain(sc *fnScope, esc escape) bool {
	as, ok := esc.at.(*ast.AssignStmt)
	if !ok {
		return false
	}
	var texts []string
	for _, l := range as.Lhs {
		texts = append(texts, types.ExprString(l))
	}
	found := false
	inspectOwn(sc.body, func(n ast.Node) {
		e, ok := n.(ast.Expr)
		if found || !ok || n.Pos() < as.End() {
			return
		}
		for _, t := range texts {
			if types.ExprString(e) == t {
				found = true
			}
		}
	})
	return found
}

// deferredCancel finds a defer of the site's cancel registered, on every
// path, before the escape: a defer statement after the site in a block
// that encloses the escape, before it. It runs when the function returns.
func (c *checker) deferredCancel(fn ast.Node, at ast.Node, s *cancelSite) (string, bool) {
	path, _ := astutil.PathEnclosingInterval(c.fileOf(at), at.Pos(), at.End())
	for _, n := range path {
		if n == fn {
			break
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return "", false
		}
		for _, st := range stmtList(n) {
			d, ok := st.(*ast.DeferStmt)
			if !ok || d.Pos() < s.stmt.End() || d.Pos() >= at.Pos() {
				continue
			}
			if _, ok := c.cancelCall(d.Call, s); ok {
				return "defer " + types.ExprString(d.Call.Fun) + "() at " + c.short(d.Pos()), true
			}
			if lit, ok := astutil.Unparen(d.Call.Fun).(*ast.FuncLit); ok && alwaysCalls(lit.Body, func(e ast.Expr) bool { return c.isCancelExpr(e, s) }) {
				return "defer at " + c.short(d.Pos()) + ", which calls " + s.cancel.text + "()", true
			}
		}
	}
	return "", false
}

// cancelAfter reports whether every path from the escape to the end of
// the function runs the site's cancel (paths that panic aside).
func (c *checker) cancelAfter(g *cfg.CFG, at ast.Node, s *cancelSite) (string, bool) {
	var start *cfg.Block
	idx := -1
	for _, b := range g.Blocks {
		for i, n := range b.Nodes {
			if n.Pos() <= at.Pos() && at.End() <= n.End() {
				start, idx = b, i
			}
		}
	}
	if start == nil {
		return "", false
	}
	by := ""
	visited := make(map[*cfg.Block]bool)
	var ok func(b *cfg.Block, from int) bool
	ok = func(b *cfg.Block, from int) bool {
		for _, n := range b.Nodes[from:] {
			for _, e := range c.nodeEvents(n, s) {
				if e.kind == evSite {
					return false // a new turn's context: its cancel is not this one's
				}
				if e.kind == evCancel {
					if by == "" {
						by = e.by
					}
					return true
				}
			}
		}
		if len(b.Succs) == 0 {
			return panics(b)
		}
		for _, su := range b.Succs {
			if visited[su] {
				continue
			}
			visited[su] = true
			if !ok(su, 0) {
				return false
			}
		}
		return true
	}
	if !ok(start, idx+1) {
		return "", false
	}
	return by, by != ""
}

// panics reports a block that ends in a call that does not return.
func panics(b *cfg.Block) bool {
	if len(b.Nodes) == 0 {
		return false
	}
	es, ok := b.Nodes[len(b.Nodes)-1].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := astutil.Unparen(es.X).(*ast.CallExpr)
	return ok && !mayReturn(call)
}

func (c *checker) reportEscaped(w *write, s *cancelSite, esc escape, fn ast.Node, by string) {
	name := "the function literal at " + c.short(fn.Pos())
	if d, ok := fn.(*ast.FuncDecl); ok {
		name = d.Name.Name
	}
	what := "context.Canceled"
	switch s.made {
	case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
		what += " (context.DeadlineExceeded if its deadline passed first)"
	}
	via := ""
	if w.via != "" {
		via = " (it " + w.via + ")"
	}
	msg := fmt.Sprintf("%s in a closure %s at %s runs after %s returns, when its %s has cancelled %s: it fails at once with %s%s and %s; give the closure a context of its own (context.WithoutCancel(%s), with a timeout set when it runs)",
		w.callee, esc.how, c.short(esc.at.Pos()), name, by, s.ctx.Name(), what, via, consequence(w.kind), s.ctx.Name())
	c.pass.Report(analysis.Diagnostic{Pos: w.call.Pos(), End: w.call.End(), Message: msg})
}
