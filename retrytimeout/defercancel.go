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
// WithDeadline, WithCancel and their Cause forms): deferred calls run when
// the function returns, not when the turn ends, so every attempt's context
// and timer stay alive until the whole retry is over, one more per
// attempt. Left alone: a function that returns what an attempt may still
// be reading (an *http.Response, a reader, a stream), whose context has to
// outlive the call (the advice to cancel at the end of the attempt would
// cut the body off; that the deferred cancel cuts it off at return is
// another finding), and a deferred function literal, which is how code
// hands the cancel on to such a value (the Stainless SDKs' request loop).
func (c *checker) deferredCancel(l *retrymodel.Layer) {
	body, ok := l.Body.(*ast.BlockStmt)
	if l.Kind != retrymodel.Loop || !ok || l.Func == nil || returnsLive(l.FuncNode, c.pass.TypesInfo) {
		return
	}
	info := c.pass.TypesInfo
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
			with := derivedIn(info, body, v)
			if with == nil {
				return true
			}
			fn := typeutil.StaticCallee(info, with)
			count := "one more for each attempt"
			if k, ok := l.Attempts(); ok {
				count = fmt.Sprintf("up to %d at once", k)
			}
			where := "the function"
			if l.Func != nil {
				where = l.Func.Name()
			}
			c.report(n.Pos(), "deferred-cancel", fmt.Sprintf(
				"defer %s() in %s: the context each attempt derives at %s (context.%s) is released only when %s returns, so every attempt's context and timer stay alive until the retry is over (%s); call %s() when the attempt ends",
				id.Name, describe(l), c.short(with.Pos()), fn.Name(), where, count, id.Name), nil)
		}
		return true
	})
}

// derivedIn returns the context.With* call in body whose cancel result is
// assigned to v.
func derivedIn(info *types.Info, body *ast.BlockStmt, v *types.Var) *ast.CallExpr {
	var out *ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok || out != nil {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return true
		}
		id, ok := astutil.Unparen(as.Lhs[1]).(*ast.Ident)
		if !ok || (info.Defs[id] != v && info.Uses[id] != v) {
			return true
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := typeutil.StaticCallee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
			return true
		}
		switch fn.Name() {
		case "WithTimeout", "WithDeadline", "WithCancel", "WithTimeoutCause", "WithDeadlineCause", "WithCancelCause":
			out = call
		}
		return true
	})
	return out
}

// returnsLive reports a function with a result an attempt may still be
// reading after the call returns: an *http.Response, an io.Reader, or a
// stream (a value with Recv, or Next and Err).
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
		if ms.Lookup(nil, "Read") != nil || ms.Lookup(nil, "Recv") != nil || ms.Lookup(nil, "Next") != nil && ms.Lookup(nil, "Err") != nil {
			return true
		}
		if _, ok := t.Underlying().(*types.Interface); ok {
			if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Read"); obj != nil {
				return true
			}
		}
	}
	return false
}
