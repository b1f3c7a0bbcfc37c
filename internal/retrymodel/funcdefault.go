package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// FuncFieldDefault returns the function a func-typed field of the package
// calls unless a caller replaces it: the one declared function or literal
// the package stores in it (a constructor's `if p.isRetriable == nil {
// p.isRetriable = defaultIsRetriable }`). The other values written must
// be the caller's: a parameter (an option's argument) or nil. The result
// is the function's declaration or the literal; fn is nil for a literal.
func (r *Result) FuncFieldDefault(call *ast.CallExpr) (node ast.Node, fn *types.Func, ok bool) {
	info := r.pass.TypesInfo
	fld := varOf(info, call.Fun)
	if fld == nil || !fld.IsField() || fld.Pkg() != r.pass.Pkg {
		return nil, nil, false
	}
	if _, isSig := fld.Type().Underlying().(*types.Signature); !isSig {
		return nil, nil, false
	}
	vals, complete := r.Writes(fld)
	if !complete {
		return nil, nil, false
	}
	for _, val := range vals {
		if val == nil {
			return nil, nil, false
		}
		switch val := astutil.Unparen(val).(type) {
		case *ast.FuncLit:
			if node != nil {
				return nil, nil, false
			}
			node = val
			continue
		case *ast.Ident:
			if f, isFn := info.Uses[val].(*types.Func); isFn && f.Pkg() == r.pass.Pkg {
				d := r.decls[f]
				if node != nil || d == nil || d.Body == nil {
					return nil, nil, false
				}
				node, fn = d, f
				continue
			}
			if isNil(info, val) {
				continue
			}
			if v, isVar := info.Uses[val].(*types.Var); isVar && r.cancelIx().params[v] {
				continue // an option's argument: the caller's choice
			}
		}
		return nil, nil, false
	}
	return node, fn, node != nil
}
