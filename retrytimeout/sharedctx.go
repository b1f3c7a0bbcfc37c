package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// sharedArgCtxs reports a retry that runs a function value again on the
// same argument, where the package holds a function of that type which
// replaces the argument's context with one it cancels when it returns
// (retrymodel.ReplacesArgCtx: a Timeout middleware's msg.SetContext of a
// WithTimeout context). Wrapped inside the retry, it leaves the argument on
// a done context after the first attempt, and every later attempt starts
// on it (watermill's Retry around Timeout, maintainer fix 7e95a20c). A
// retry that sets the argument's context itself before each attempt is
// quiet, and so is one whose function type no such function has.
func (c *checker) sharedArgCtxs() {
	var replacers []ast.Node // functions of the package that replace an argument's context
	for _, f := range c.pass.Files {
		if c.inTestFile(f.Pos()) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				if _, ok := c.res.ReplacesArgCtx(n); ok {
					replacers = append(replacers, n)
				}
			}
			return true
		})
	}
	if len(replacers) == 0 {
		return
	}
	for _, l := range c.res.Layers {
		if l.Body == nil || (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) || c.inTestFile(l.Pos) {
			continue
		}
		if n, ok := l.Attempts(); ok && n < 2 {
			continue
		}
		for _, op := range l.Ops {
			if !within(op, l.Body) || !c.callsFuncValue(op) {
				continue
			}
			c.sharedArgCtx(l, op, replacers)
		}
	}
}

func (c *checker) sharedArgCtx(l *retrymodel.Layer, op *ast.CallExpr, replacers []ast.Node) {
	info := c.pass.TypesInfo
	opSig, ok := info.TypeOf(op.Fun).Underlying().(*types.Signature)
	if !ok {
		return
	}
	for i, a := range op.Args {
		id, ok := astutil.Unparen(a).(*ast.Ident)
		if !ok {
			continue
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || within(&ast.Ident{NamePos: v.Pos()}, l.Body) {
			continue // made for each attempt
		}
		setter := retrymodel.CtxSetter(v.Type())
		if setter == nil || c.setsCtx(l.Body, v, setter) {
			continue
		}
		for _, r := range replacers {
			sig := c.funcSig(r)
			if sig == nil || !types.Identical(sig, opSig) {
				continue
			}
			rep, _ := c.res.ReplacesArgCtx(r)
			if rep.Param != i {
				continue
			}
			msg := fmt.Sprintf("per-attempt timeout ends the retry: the %s runs %s again on the same %s, and %s (%s) replaces %s's context with one it cancels when it returns (set at %s, made at %s); run inside this retry, it leaves %s on a done context after the first attempt, so every later attempt starts on it; put the original context back with %s.%s before each attempt",
				describe(l), types.ExprString(op), v.Name(), c.funcDesc(r), c.short(r.Pos()), v.Name(), c.short(rep.Set), c.short(rep.Derived), v.Name(), v.Name(), setter.Name())
			c.report(op.Pos(), "shared-attempt-ctx", msg, nil)
			return
		}
	}
}

// setsCtx reports a call of v's context setter in the retried region.
func (c *checker) setsCtx(body ast.Node, v *types.Var, setter *types.Func) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == setter.Name() {
			if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok && c.pass.TypesInfo.Uses[id] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

func (c *checker) funcSig(n ast.Node) *types.Signature {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if fn, ok := c.pass.TypesInfo.Defs[n.Name].(*types.Func); ok {
			sig := fn.Type().(*types.Signature)
			return types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
		}
	case *ast.FuncLit:
		sig, _ := c.pass.TypesInfo.TypeOf(n).(*types.Signature)
		return sig
	}
	return nil
}

// funcDesc names a function for a message; a literal by the declared
// function that returns it.
func (c *checker) funcDesc(n ast.Node) string {
	if _, ok := n.(*ast.FuncDecl); ok {
		return c.funcNodeName(n)
	}
	for _, f := range c.pass.Files {
		if f.FileStart > n.Pos() || n.Pos() > f.FileEnd {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(f, n.Pos(), n.End())
		for _, p := range path {
			if fd, ok := p.(*ast.FuncDecl); ok {
				return "the function literal in " + c.funcNodeName(fd)
			}
		}
	}
	return "a function literal"
}
