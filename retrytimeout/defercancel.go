package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// deferredCancel reports `defer cancel()` in a retry loop's body, for the
// cancel of a context the same turn derives (context.WithTimeout,
// WithDeadline, WithCancel and their Cause forms, or a helper that returns
// a context and its cancel): deferred calls run when the function returns,
// not when the turn ends, so every attempt's context and timer stay alive
// until the whole retry is over, one more per attempt. Left alone: a
// function that returns what an attempt may still be reading (an
// *http.Response, a reader, a stream), whose context has to outlive the
// call (the advice to cancel at the end of the attempt would cut the body
// off; that the deferred cancel cuts it off at return is cancelBeforeRead's
// finding), and a deferred function literal, which is how code hands the
// cancel on to such a value (the Stainless SDKs' request loop).
func (c *checker) deferredCancel(l *retrymodel.Layer) {
	body, ok := l.Body.(*ast.BlockStmt)
	if l.Kind != retrymodel.Loop || !ok || l.Func == nil || returnsLive(l.FuncNode, c.pass.TypesInfo) {
		return
	}
	for _, d := range deferredCancels(c.pass.TypesInfo, body) {
		count := "one more for each attempt"
		if k, ok := l.Attempts(); ok {
			count = fmt.Sprintf("up to %d at once", k)
		}
		c.report(d.stmt.Pos(), "deferred-cancel", fmt.Sprintf(
			"defer %s() in %s: the context each attempt derives at %s (%s) is released only when %s returns, so every attempt's context and timer stay alive until the retry is over (%s); call %s() when the attempt ends",
			d.name, describe(l), c.short(d.with.Pos()), deriveName(c.pass.TypesInfo, d.with), funcWord(l), count, d.name), nil)
	}
}

// cancelBeforeRead reports, in a function that holds a retry and returns
// what the caller still reads (an *http.Response, a reader, a stream),
// `defer cancel()` of a context the retry's requests are made on: the
// deferred cancel runs as the function returns, before the caller reads
// the body, and the read fails with context.Canceled (okta-sdk-golang's
// fix ef048782; grpc-middleware's stream interceptor, whose returned
// stream dies at once). One finding per defer.
func (c *checker) cancelBeforeRead(l *retrymodel.Layer) {
	if l.FuncNode == nil || l.Body == nil || !returnsLive(l.FuncNode, c.pass.TypesInfo) {
		return
	}
	var body *ast.BlockStmt
	switch f := l.FuncNode.(type) {
	case *ast.FuncDecl:
		body = f.Body
	case *ast.FuncLit:
		body = f.Body
	}
	if body == nil {
		return
	}
	for _, d := range deferredCancels(c.pass.TypesInfo, body) {
		if d.ctx == nil || !mentionsVar(c.pass.TypesInfo, l.Body, d.ctx) {
			continue
		}
		where := funcWord(l)
		c.report(d.stmt.Pos(), "cancel-before-read", fmt.Sprintf(
			"defer %s() cancels %s, derived at %s (%s), as %s returns, but %s returns what its %s made on that context: the caller reads the body or stream after the cancel, and the read fails with context canceled; cancel when the caller is done with it (a body whose Close calls %s), or leave the deadline to the caller",
			d.name, d.ctx.Name(), c.short(d.with.Pos()), deriveName(c.pass.TypesInfo, d.with), where, where, describe(l), d.name), nil)
	}
}

// funcWord names the function a layer is in: its name, or "the function"
// for a function literal.
func funcWord(l *retrymodel.Layer) string {
	if _, ok := l.FuncNode.(*ast.FuncDecl); ok && l.Func != nil {
		return l.Func.Name()
	}
	return "the function"
}

// A deferCancel is a `defer cancel()` of a context derived in the same
// body.
type deferCancel struct {
	stmt *ast.DeferStmt
	name string        // the cancel variable's name
	with *ast.CallExpr // the call that derived the context and cancel
	ctx  *types.Var    // the derived context, when assigned to a variable
}

// deferredCancels lists the `defer cancel()` statements of body (not of
// the function literals in it) whose cancel body derives.
func deferredCancels(info *types.Info, body *ast.BlockStmt) []deferCancel {
	var out []deferCancel
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			id, ok := astutil.Unparen(n.Call.Fun).(*ast.Ident)
			if !ok || len(n.Call.Args) != 0 {
				return true
			}
			v, _ := info.Uses[id].(*types.Var)
			if v == nil {
				return true
			}
			if with, ctx := derivedCtx(info, body, v); with != nil {
				out = append(out, deferCancel{stmt: n, name: id.Name, with: with, ctx: ctx})
			}
		}
		return true
	})
	return out
}

// derivedCtx returns the call in body whose cancel result is assigned to
// cancel (context.WithTimeout and its kin, or a helper that returns a
// context and its cancel: perCallContext(parent, opts, attempt)), and the
// context variable assigned beside it.
func derivedCtx(info *types.Info, body *ast.BlockStmt, cancel *types.Var) (*ast.CallExpr, *types.Var) {
	var call *ast.CallExpr
	var ctx *types.Var
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok || call != nil {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return true
		}
		id, ok := astutil.Unparen(as.Lhs[1]).(*ast.Ident)
		if !ok || (info.Defs[id] != cancel && info.Uses[id] != cancel) {
			return true
		}
		rc, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || !returnsCancel(info, rc) {
			return true
		}
		call = rc
		if cid, ok := astutil.Unparen(as.Lhs[0]).(*ast.Ident); ok {
			ctx, _ = info.ObjectOf(cid).(*types.Var)
		}
		return false
	})
	return call, ctx
}

// returnsCancel reports a call whose results are a context.Context and a
// context.CancelFunc (or CancelCauseFunc).
func returnsCancel(info *types.Info, call *ast.CallExpr) bool {
	tup, ok := info.TypeOf(call).(*types.Tuple)
	if !ok || tup.Len() != 2 || !retrymodel.IsContext(tup.At(0).Type()) {
		return false
	}
	n, ok := types.Unalias(tup.At(1).Type()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" &&
		(n.Obj().Name() == "CancelFunc" || n.Obj().Name() == "CancelCauseFunc")
}

// deriveName names the call that derived the context: context.WithTimeout,
// or the helper's name.
func deriveName(info *types.Info, call *ast.CallExpr) string {
	if fn := typeutil.StaticCallee(info, call); fn != nil {
		if fn.Pkg() != nil && fn.Pkg().Path() == "context" {
			return "context." + fn.Name()
		}
		return fn.Name()
	}
	return types.ExprString(call.Fun)
}

// returnsLive reports a function with a result an attempt may still be
// reading after the call returns: an *http.Response, an io.Reader, or a
// stream (a value with Recv or RecvMsg, or Next and Err).
func returnsLive(fnNode ast.Node, info *types.Info) bool {
	var ft *ast.FuncType
	switch f := fnNode.(type) {
	case *ast.FuncDecl:
		ft = f.Type
	case *ast.FuncLit:
		ft = f.Type
	}
	if ft == nil || ft.Results == nil {
		return false
	}
	for _, fld := range ft.Results.List {
		t := info.TypeOf(fld.Type)
		if t == nil {
			continue
		}
		if pt, ok := types.Unalias(t).(*types.Pointer); ok {
			if n, ok := types.Unalias(pt.Elem()).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Response" {
				return true
			}
		}
		ms := types.NewMethodSet(t)
		if ms.Lookup(nil, "Read") != nil || ms.Lookup(nil, "Recv") != nil || ms.Lookup(nil, "RecvMsg") != nil || ms.Lookup(nil, "Next") != nil && ms.Lookup(nil, "Err") != nil {
			return true
		}
	}
	return false
}

// mentionsVar reports a use of v in n.
func mentionsVar(info *types.Info, n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}
