package expiredctx

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/cfg"

	"github.com/retryvet/retryvet/internal/effects"
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
				if s := c.cancelSiteOf(as); s != nil && !s.cancel.Sel && c.trackable(body, s) &&
					len(c.flow.Assigns(s.ctx)) == 1 && len(c.flow.Assigns(s.cancel.V)) == 1 {
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
					if lit.Pos() < s.stmt.End() || c.carries(sc, esc.parts, s.ctx) || c.carries(sc, esc.carried, s.ctx) || c.testsCtx(lit.Body, s.ctx) {
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
						if !reported[w.Call] {
							reported[w.Call] = true
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

// testsCtx reports code (a closure's body, a statement) that looks at the
// context v itself (ctx.Err(), ctx.Done()): it is written to stop when ctx
// is done.
func (c *checker) testsCtx(root ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(root, func(n ast.Node) bool {
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
func (c *checker) closureWrites(lit *ast.FuncLit, s *cancelSite) []*effects.Write {
	var out []*effects.Write
	ref := effects.Ref{V: s.ctx, Text: s.ctx.Name()}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if w := c.writes.Classify(call); w != nil && c.flow.Descends(w.Ctx, ref, call.Pos(), lit.Pos(), 0) {
			out = append(out, w)
		}
		return true
	})
	return out
}

func (c *checker) reportEscaped(w *effects.Write, s *cancelSite, esc escape, fn ast.Node, by string) {
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
	if w.Via != "" {
		via = " (it " + w.Via + ")"
	}
	msg := fmt.Sprintf("%s in a closure %s at %s runs after %s returns, when its %s has cancelled %s: it fails at once with %s%s and %s; give the closure a context of its own (context.WithoutCancel(%s), with a timeout set when it runs)",
		w.Callee, esc.how, c.short(esc.at.Pos()), name, by, s.ctx.Name(), what, via, consequence(w.Kind), s.ctx.Name())
	c.pass.Report(analysis.Diagnostic{Pos: w.Call.Pos(), End: w.Call.End(), Message: msg})
}
