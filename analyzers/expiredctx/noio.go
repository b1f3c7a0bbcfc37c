package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file answers "can this call fail because its context ran out?" for
// the calls bounded.go takes: not when the package's own implementation of
// the callee does nothing with the context (a configurator that only sets
// names; a publisher whose Unpublish returns nil). For a call through an
// interface, the implementations that tell are the real ones: not adapters
// (a func type, or a method that only hands ctx to a func-typed field), not
// forwarders (a chain calling the same method on its members), not stubs
// (a type all of whose methods only return zero values: a Nop client). With
// no real implementation in sight the implementation is elsewhere (a plug-in
// point) and the call may well run out of time.

// noIO reports whether call, given ctx, cannot fail because ctx is done:
// its callee, declared in this package, or every real implementation of
// the interface method it calls, does nothing with its ctx parameter.
func (c *checker) noIO(call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() != c.pass.Pkg {
		return false
	}
	fn = fn.Origin()
	sig := fn.Type().(*types.Signature)
	i := ctxParam(sig)
	if i < 0 {
		return false
	}
	if sig.Recv() == nil || !types.IsInterface(sig.Recv().Type()) {
		return c.ignoresCtx(fn, i, 0)
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return false
	}
	real := 0
	for impl, d := range c.localImpls(fn, iface) {
		if c.adapter(d, i) || c.forwards(d, i, fn.Name()) || c.stubType(impl) {
			continue
		}
		if !c.ignoresCtx(impl, i, 0) {
			return false
		}
		real++
	}
	return real > 0
}

func ctxParam(sig *types.Signature) int {
	for i := 0; i < sig.Params().Len(); i++ {
		if isContextVar(sig.Params().At(i)) {
			return i
		}
	}
	return -1
}

func isContextVar(v *types.Var) bool { return retrymodel.IsContext(v.Type()) }

// localImpls returns this package's methods named like m whose receiver
// implements iface, with their declarations.
func (c *checker) localImpls(m *types.Func, iface *types.Interface) map[*types.Func]*ast.FuncDecl {
	out := make(map[*types.Func]*ast.FuncDecl)
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil || fd.Name.Name != m.Name() {
				continue
			}
			fn, ok := c.info.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			recv := fn.Type().(*types.Signature).Recv().Type()
			if p, ok := recv.(*types.Pointer); ok {
				recv = p.Elem()
			}
			if types.Implements(recv, iface) || types.Implements(types.NewPointer(recv), iface) {
				out[fn] = fd
			}
		}
	}
	return out
}

// ctxParamVar returns the i-th parameter of a declaration, or nil when it is
// blank or unnamed.
func (c *checker) ctxParamVar(d *ast.FuncDecl, i int) *types.Var {
	fn, _ := c.info.Defs[d.Name].(*types.Func)
	if fn == nil {
		return nil
	}
	p := fn.Type().(*types.Signature).Params().At(i)
	if p.Name() == "" || p.Name() == "_" {
		return nil
	}
	return p
}

// ctxUses calls f with each call that is given the parameter directly,
// and reports false when the parameter is used any other way.
func (c *checker) ctxUses(d *ast.FuncDecl, p *types.Var, f func(call *ast.CallExpr, arg int) bool) bool {
	ok := true
	var stack []ast.Node
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, isID := n.(*ast.Ident)
		if !isID || c.info.Uses[id] != p {
			return true
		}
		if len(stack) >= 2 {
			if call, isCall := stack[len(stack)-2].(*ast.CallExpr); isCall {
				for j, a := range call.Args {
					if astutil.Unparen(a) == id {
						ok = f(call, j)
						return true
					}
				}
			}
		}
		ok = false
		return true
	})
	return ok
}

// ignoresCtx reports whether fn, declared in this package, does nothing
// with its i-th parameter: it is blank or unused, or only handed to
// functions of this package that ignore theirs.
func (c *checker) ignoresCtx(fn *types.Func, i, depth int) bool {
	if depth > 4 {
		return false
	}
	d := c.model.Decl(fn)
	if d == nil || d.Body == nil {
		return false
	}
	p := c.ctxParamVar(d, i)
	if p == nil {
		return true
	}
	return c.ctxUses(d, p, func(call *ast.CallExpr, arg int) bool {
		g := typeutil.StaticCallee(c.info, call)
		if g == nil || g.Pkg() != c.pass.Pkg {
			return false
		}
		gs := g.Type().(*types.Signature)
		if arg >= gs.Params().Len() || (gs.Variadic() && arg >= gs.Params().Len()-1) {
			return false
		}
		return c.ignoresCtx(g.Origin(), arg, depth+1)
	})
}

// adapter reports whether d only hands its ctx to func values (a func type
// with a method, a struct of func fields).
func (c *checker) adapter(d *ast.FuncDecl, i int) bool {
	p := c.ctxParamVar(d, i)
	if p == nil {
		return false
	}
	uses := 0
	return c.ctxUses(d, p, func(call *ast.CallExpr, _ int) bool {
		uses++
		if typeutil.Callee(c.info, call) != nil {
			if _, isFunc := typeutil.Callee(c.info, call).(*types.Func); isFunc {
				return false
			}
		}
		tv, ok := c.info.Types[call.Fun]
		if !ok {
			return false
		}
		_, isSig := tv.Type.Underlying().(*types.Signature)
		return isSig
	}) && uses > 0
}

// forwards reports whether d only hands its ctx to interface methods named
// name (a chain of configurators or publishers).
func (c *checker) forwards(d *ast.FuncDecl, i int, name string) bool {
	p := c.ctxParamVar(d, i)
	if p == nil {
		return false
	}
	uses := 0
	return c.ctxUses(d, p, func(call *ast.CallExpr, _ int) bool {
		uses++
		g, ok := typeutil.Callee(c.info, call).(*types.Func)
		if !ok || g.Name() != name {
			return false
		}
		s := g.Type().(*types.Signature)
		return s.Recv() != nil && types.IsInterface(s.Recv().Type())
	}) && uses > 0
}

// stubType reports whether every method declared in this package on fn's
// receiver type only returns constants, nil or zero values (a Nop client).
func (c *checker) stubType(fn *types.Func) bool {
	recv := fn.Type().(*types.Signature).Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	named, ok := types.Unalias(recv).(*types.Named)
	if !ok {
		return false
	}
	n := 0
	for m := range named.Methods() {
		d := c.model.Decl(m)
		if d == nil || d.Body == nil {
			continue
		}
		if len(d.Body.List) != 1 {
			return false
		}
		ret, ok := d.Body.List[0].(*ast.ReturnStmt)
		if !ok {
			return false
		}
		for _, r := range ret.Results {
			if !c.zeroish(r) {
				return false
			}
		}
		n++
	}
	return n > 0
}

// zeroish reports whether e is nil, a constant, or a composite literal
// without elements.
func (c *checker) zeroish(e ast.Expr) bool {
	e = astutil.Unparen(e)
	if tv, ok := c.info.Types[e]; ok && (tv.IsNil() || tv.Value != nil) {
		return true
	}
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = astutil.Unparen(u.X)
	}
	cl, ok := e.(*ast.CompositeLit)
	return ok && len(cl.Elts) == 0
}
