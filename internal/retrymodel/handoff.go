package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A function that hands its func parameter on to a retry is a retry helper
// too, though it never calls the parameter in a loop of its own:
//
//	func Do(ctx context.Context, c Config, fn func() error) error {
//		return retry.Do(fn, opts(ctx, c)...) // to a retry library
//	}
//
//	func gitlabDo[T any](ctx *Context, fn func() (T, error)) (T, error) {
//		var r T
//		err := retryx.Do(ctx, cfg, func() error { // to a helper, in a closure
//			var err error
//			r, err = fn()
//			return err
//		})
//		return r, err
//	}
//
// Its calls are then layers around what they hand it, as a helper's are, so
// a retry reached through one hand-off or several is seen around the
// operation. A function that starts its parameter in a goroutine, stores
// it, or calls it once hands it to no retry and stays what it is.

// funcParam returns the func-typed local (a parameter, when findHandOffs
// checks it) an operation argument names as it is.
func (p *pkgCtx) funcParam(arg ast.Expr) *types.Var {
	id, ok := astutil.Unparen(arg).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := p.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	if _, isFunc := v.Type().Underlying().(*types.Signature); !isFunc {
		return nil
	}
	return v
}

// findHandOffs records the package functions that hand a func parameter
// to a retry layer: a library whose operation it is, a helper call that is
// handed it, or a closure handed to a helper that calls it. It reports
// whether it found a new one, whose calls findHelpers must then make
// layers of.
func (p *pkgCtx) findHandOffs() bool {
	if p.handoffs == nil {
		p.handoffs = make(map[*types.Func]helperInfo)
	}
	added := false
	add := func(l *Layer, v *types.Var) {
		fn, decl := p.declAt(l)
		if fn == nil || v == nil {
			return
		}
		if _, seen := p.helpers[fn]; seen {
			return
		}
		if _, seen := p.handoffs[fn]; seen {
			return
		}
		sig := fn.Type().(*types.Signature)
		for i := 0; i < sig.Params().Len(); i++ {
			if sig.Params().At(i) == v && decl.Body != nil {
				p.handoffs[fn] = helperInfo{param: i, layer: l}
				added = true
				return
			}
		}
	}
	for _, l := range p.res.Layers {
		if l.OpParam != nil && l.Kind != SDK && l.Kind != Client {
			add(l, l.OpParam)
		}
	}
	for _, l := range p.res.HelperLayers {
		if l.OpParam != nil {
			add(l, l.OpParam)
			continue
		}
		if l.Body != nil {
			add(l, p.calledParam(l.Body))
		}
	}
	return added
}

// calledParam returns the func-typed local a retried closure calls as a
// fallible operation: not in a goroutine, a defer or a nested closure,
// which do not run as the attempt.
func (p *pkgCtx) calledParam(body ast.Node) *types.Var {
	var out *types.Var
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt, *ast.DeferStmt, *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if v := p.funcParam(n.Fun); v != nil && out == nil && p.fallible(n) {
				out = v
			}
		}
		return out == nil
	})
	return out
}

// declAt returns the package function whose declaration holds the layer.
func (p *pkgCtx) declAt(l *Layer) (*types.Func, *ast.FuncDecl) {
	if fd, ok := l.FuncNode.(*ast.FuncDecl); ok && l.Func != nil {
		return l.Func, fd
	}
	for fn, decl := range p.res.decls {
		if decl.Pos() <= l.Pos && l.Pos < decl.End() {
			return fn, decl
		}
	}
	return nil, nil
}
