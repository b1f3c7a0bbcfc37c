package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file folds a wait computed by a function kept in a struct field
// (c.backoffFunc(retries)), as the package's own constructor sets it: the
// schedule a client gets unless the caller hands it another function
// (hcloud-go's NewClient: backoffFunc: ExponentialBackoff(2, 500ms)). It
// folds only in the defaults pass (defaultWaits), where a value the caller
// may replace is read as the package's default, and says where that
// default is set (pkgCtx.defaultAt): the place to change it.

// fieldFuncDefault folds call, a call of a func-typed field, to what the
// field's default function returns for call's arguments under bind.
func (p *pkgCtx) fieldFuncDefault(call *ast.CallExpr, bind env, depth int) (constant.Value, bool) {
	if !p.fold.Defaults {
		return nil, false
	}
	se, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	sel, ok := p.info.Selections[se]
	if !ok || sel.Kind() != types.FieldVal {
		return nil, false
	}
	fld, _ := sel.Obj().(*types.Var)
	if fld == nil {
		return nil, false
	}
	lit, outer, at, ok := p.funcFieldDefault(fld, depth)
	if !ok {
		return nil, false
	}
	ret := singleReturn(lit.Body)
	sig, _ := p.info.TypeOf(lit).(*types.Signature)
	if ret == nil || sig == nil {
		return nil, false
	}
	// The literal's parameters take the call's arguments, beside what
	// the factory that made it was handed.
	inner, ok := p.bindSig(sig, call.Args, bind, depth+1)
	if !ok {
		return nil, false
	}
	for v, c := range outer {
		inner[v] = c
	}
	c, ok := p.eval(ret, inner, depth+1)
	if ok && !p.defaultAt.IsValid() {
		p.defaultAt = at
	}
	return c, ok
}

// funcFieldDefault returns the function literal a func field holds by
// default, the bindings of the factory that made it, and where the
// default is set. The default is the one function the package gives the
// field: a literal, or a call of a package function whose body returns
// one (a factory: ExponentialBackoff(2, 500*time.Millisecond)). Other
// values are the caller's (an option's parameter, nil); any other value
// (a second default, a local of unknown origin) folds nothing.
func (p *pkgCtx) funcFieldDefault(fld *types.Var, depth int) (*ast.FuncLit, env, token.Pos, bool) {
	if _, ok := fld.Type().Underlying().(*types.Signature); !ok {
		return nil, nil, token.NoPos, false
	}
	var (
		lit   *ast.FuncLit
		outer env
		at    token.Pos
	)
	for _, v := range p.fold.FieldValues(fld) {
		if v == nil || p.inTestFile(v.Pos()) {
			continue
		}
		v = astutil.Unparen(v)
		var (
			l *ast.FuncLit
			b env
		)
		switch x := v.(type) {
		case *ast.FuncLit:
			l, b = x, env{}
		case *ast.CallExpr:
			fn := typeutil.StaticCallee(p.info, x)
			decl := p.res.decls[fn]
			if decl == nil {
				return nil, nil, token.NoPos, false
			}
			fl, ok := singleReturn(decl.Body).(*ast.FuncLit)
			if !ok {
				return nil, nil, token.NoPos, false
			}
			inner, ok := p.bindParams(fn, x.Args, env{}, depth+1)
			if !ok {
				return nil, nil, token.NoPos, false
			}
			l, b = fl, inner
		case *ast.Ident:
			if pv, ok := p.info.Uses[x].(*types.Var); ok && isParamOf(p.info, pv, p.funcScope(x)) {
				continue // the caller's function, handed in by an option
			}
			if p.info.Uses[x] == types.Universe.Lookup("nil") {
				continue
			}
			return nil, nil, token.NoPos, false
		default:
			return nil, nil, token.NoPos, false
		}
		if lit != nil {
			return nil, nil, token.NoPos, false // two defaults: which one runs is the caller's choice
		}
		lit, outer, at = l, b, v.Pos()
	}
	return lit, outer, at, lit != nil
}
