package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
)

// This file holds what the escape rule (escape.go) asks of the code after
// the escape: whether the function goes on working, whether the stored
// closure is used again, and whether the cancel runs on the way out.

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
	return effects.Observability(recv)
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
				return "defer at " + c.short(d.Pos()) + ", which calls " + s.cancel.Text + "()", true
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
