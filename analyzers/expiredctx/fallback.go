package expiredctx

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports a fallback that shares one deadline:
//
//	ctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
//	defer cancel()
//	for _, h := range cfg.Hosts {
//		conn, err := d.DialContext(ctx, "tcp", h)
//		if err == nil {
//			return conn, nil
//		}
//	}
//
// The loop is the retry model's fallback (each element tried once, no
// wait, success leaves). A host that hangs uses up the whole deadline and
// every later host is tried on an expired context: it fails at once, so
// the fallback saves nothing in the very case it is there for. Quiet when
// a deadline is set inside the loop (each attempt has its own, under an
// overall budget or not), when the loop's calls are not given the
// deadline's context, and when they do nothing with it (noio.go).

func (c *checker) sharedDeadlines() {
	if len(c.model.Fallbacks) == 0 {
		return
	}
	c.eachBody(func(fn ast.Node, body *ast.BlockStmt) {
		var sets []ctxSet
		var loops []*retrymodel.Fallback
		inspectOwn(body, func(n ast.Node) {
			if as, ok := n.(*ast.AssignStmt); ok {
				if s, ok := c.ctxSetOf(as); ok && s.deadline && !s.ref.Sel {
					sets = append(sets, s)
				}
			}
			for _, f := range c.model.Fallbacks {
				if f.Node == n {
					loops = append(loops, f)
				}
			}
		})
		for _, f := range loops {
			loop := f.Node
			if c.setsDeadline(loop) {
				continue // each attempt has a deadline of its own
			}
			for _, s := range sets {
				if s.pos >= loop.Pos() {
					continue
				}
				given := false
				for _, op := range f.Ops {
					if g := c.givenCall(op, s); g != nil && !c.noIO(g) {
						given = true
					}
				}
				if !given {
					continue
				}
				d := "deadline"
				if s.dur != "" {
					d = "deadline of " + s.dur
				}
				c.pass.Report(analysis.Diagnostic{Pos: s.pos, Message: fmt.Sprintf(
					"fallback loop over %s at %s tries each on the one %s set here: one that hangs uses all of it and every later one fails at once with context.DeadlineExceeded; give each attempt its own timeout (context.WithTimeout inside the loop)",
					collection(loop), c.short(loop.Pos()), d)})
				break
			}
		}
	})
}

// setsDeadline reports a context.WithTimeout or WithDeadline anywhere in
// the loop, also in a function of the package it calls with the context.
func (c *checker) setsDeadline(loop ast.Node) bool {
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		switch effects.ContextFunc(c.info, call) {
		case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
			found = true
			return false
		}
		if fn, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok {
			found = c.declSetsDeadline(c.info.Uses[fn])
		} else if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			found = c.declSetsDeadline(c.info.Uses[sel.Sel])
		}
		return !found
	})
	return found
}

// declSetsDeadline reports a function of the package whose own body puts
// a deadline on a context (dialOne(ctx, h, timeout)).
func (c *checker) declSetsDeadline(obj types.Object) bool {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() != c.pass.Pkg {
		return false
	}
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || c.info.Defs[fd.Name] != fn {
				continue
			}
			found := false
			inspectOwn(fd.Body, func(n ast.Node) {
				if call, ok := n.(*ast.CallExpr); ok {
					switch effects.ContextFunc(c.info, call) {
					case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
						found = true
					}
				}
			})
			return found
		}
	}
	return false
}

// collection renders what a fallback loop walks: the range expression, or
// xs in for i := 0; i < len(xs); i++.
func collection(loop ast.Node) string {
	switch l := loop.(type) {
	case *ast.RangeStmt:
		return types.ExprString(l.X)
	case *ast.ForStmt:
		if b, ok := astutil.Unparen(l.Cond).(*ast.BinaryExpr); ok {
			if call, ok := astutil.Unparen(b.Y).(*ast.CallExpr); ok && len(call.Args) == 1 {
				return types.ExprString(call.Args[0])
			}
		}
	}
	return "the candidates"
}
