package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A done channel cancels too: a chan struct{} field the package closes
// (w.stop, closed by Stop) and elsewhere stops on (a select case on it
// that returns), or a <-chan struct{} the code was handed (a stopCh
// parameter, by the convention of client-go's wait package). A wait that
// does not select on it keeps a stopped worker waiting. A struct channel
// the package never closes is a signal of another kind (a wake-up, a
// semaphore), and one it closes but only waits for before going on (a
// ready channel) announces a start, not a stop.

func chanSource(name string) CancelSource {
	return CancelSource{Name: name, Done: name, Chan: true}
}

// closedField reports a field of type chan struct{} (any direction) that
// some close(x.f) of the package closes and some select case on it
// (case <-x.f:) answers by returning.
func (r *Result) closedField(f *types.Var) bool {
	ch, ok := types.Unalias(f.Type()).(*types.Chan)
	if !ok {
		return false
	}
	if st, ok := ch.Elem().Underlying().(*types.Struct); !ok || st.NumFields() != 0 {
		return false
	}
	if r.closed == nil {
		r.closed = make(map[*types.Var]bool)
		r.stopsOn = make(map[*types.Var]bool)
		info := r.pass.TypesInfo
		for _, file := range r.pass.Files {
			ast.Inspect(file, func(n ast.Node) bool {
				if cc, ok := n.(*ast.CommClause); ok {
					if v := recvField(info, cc.Comm); v != nil && len(cc.Body) > 0 {
						if _, ok := cc.Body[len(cc.Body)-1].(*ast.ReturnStmt); ok {
							r.stopsOn[v] = true
						}
					}
					return true
				}
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok {
					if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "close" {
						if v := varOf(info, call.Args[0]); v != nil && v.IsField() {
							r.closed[v] = true
						}
					}
				}
				return true
			})
		}
	}
	return r.closed[f] && r.stopsOn[f]
}

// recvField returns the field a select case receives from: case <-x.f,
// case _, ok := <-x.f.
func recvField(info *types.Info, comm ast.Stmt) *types.Var {
	u, ok := astutil.Unparen(commRecv(comm)).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return nil
	}
	if v := varOf(info, u.X); v != nil && v.IsField() {
		return v
	}
	return nil
}

// commRecv returns the expression a select case's statement receives
// with: <-ch in case <-ch: or case v, ok := <-ch:; nil for a send.
func commRecv(comm ast.Stmt) ast.Expr {
	switch st := comm.(type) {
	case *ast.ExprStmt:
		return st.X
	case *ast.AssignStmt:
		if len(st.Rhs) == 1 {
			return st.Rhs[0]
		}
	}
	return nil
}
