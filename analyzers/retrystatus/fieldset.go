package retrystatus

import (
	"go/ast"
	"go/types"
)

// fieldSet resolves a code set held in an unexported struct field that
// the package writes exactly once, in a composite literal or an
// assignment (a constructor's &client{retryOnStatus: map[int]bool{...}}):
// every value of the struct then carries that set. A field written twice,
// written through an index (c.codes[429] = true) or whose address is
// taken may hold anything.
func (ck *checker) fieldSet(v *types.Var, depth int) ([]int, string, bool) {
	if v.Exported() || v.Pkg() != ck.pass.Pkg {
		return nil, "", false
	}
	writes := 0
	var value ast.Expr
	isField := func(e ast.Expr) bool {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		return ok && ck.info.Uses[sel.Sel] == v
	}
	for _, f := range ck.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && ck.info.Uses[id] == v {
					writes++
					value = n.Value
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if isField(lhs) {
						writes++
						if len(n.Rhs) == len(n.Lhs) {
							value = n.Rhs[i]
						} else {
							value = nil
						}
					}
					if ix, ok := ast.Unparen(lhs).(*ast.IndexExpr); ok && isField(ix.X) {
						writes += 2
					}
				}
			case *ast.UnaryExpr:
				if isField(n.X) {
					writes += 2
				}
			case *ast.CallExpr:
				// delete(c.codes, k), clear(c.codes)
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 && isField(n.Args[0]) {
					writes += 2
				}
			}
			return true
		})
	}
	if writes != 1 || value == nil {
		return nil, "", false
	}
	return ck.codeSet(value, depth+1)
}
