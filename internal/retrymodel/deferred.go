package retrymodel

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
)

// RetriedCalls returns the calls a failure of l runs again: its Ops, and
// for an operation that reports an earlier call's failure (a stream's or
// iterator's Err(), a scanner's Next()) the call that made the value,
// when the layer makes it again each turn:
//
//	for {
//		stream := client.Messages.NewStreaming(ctx, params) // retried too
//		for stream.Next() { ... }
//		if err := stream.Err(); retryable(err) { wait; continue }
//	}
//
// The SDK's streaming call opens the request in its own retry loop; the
// error of that opening surfaces in stream.Err(), so the outer retry runs
// the SDK's retries again.
func (r *Result) RetriedCalls(l *Layer) []*ast.CallExpr {
	ops := slices.Clone(l.Ops)
	if l.Body == nil {
		return ops
	}
	for _, op := range l.Ops {
		sel, ok := astutil.Unparen(op.Fun).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		id, ok := astutil.Unparen(sel.X).(*ast.Ident)
		if !ok {
			continue
		}
		v, ok := r.pass.TypesInfo.Uses[id].(*types.Var)
		if !ok {
			continue
		}
		if mk := r.madeIn(l.Body, v); mk != nil && !slices.Contains(ops, mk) {
			ops = append(ops, mk)
		}
	}
	return ops
}

// madeIn returns the call whose result is the only value v is given in
// region (v := call(...), v, err = call(...)), or nil.
func (r *Result) madeIn(region ast.Node, v *types.Var) *ast.CallExpr {
	var made *ast.CallExpr
	n := 0
	ast.Inspect(region, func(node ast.Node) bool {
		as, ok := node.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			id, ok := astutil.Unparen(lhs).(*ast.Ident)
			if !ok {
				continue
			}
			obj := r.pass.TypesInfo.ObjectOf(id)
			if obj != v {
				continue
			}
			n++
			var rhs ast.Expr
			switch {
			case len(as.Rhs) == len(as.Lhs):
				rhs = as.Rhs[i]
			case len(as.Rhs) == 1:
				rhs = as.Rhs[0]
			}
			if call, ok := astutil.Unparen(rhs).(*ast.CallExpr); ok {
				made = call
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return made
}
