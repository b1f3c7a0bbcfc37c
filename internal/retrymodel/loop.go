package retrymodel

import (
	"go/ast"
	"go/types"
)

// waitInfo describes a package function that waits for a duration it is given.
type waitInfo struct {
	arg         int
	cancellable bool
}

func (p *pkgCtx) indexHelpers() {
	p.waiter = map[*types.Func]waitInfo{}
	p.raFunc = map[*types.Func]bool{}
}

func (p *pkgCtx) loopLayer(n ast.Node, fnNode ast.Node, stack []ast.Node) *Layer { return nil }
func (p *pkgCtx) gotoLayer(n *ast.LabeledStmt, fnNode ast.Node, stack []ast.Node) *Layer {
	return nil
}
func (p *pkgCtx) recursionLayer(n *ast.FuncDecl) *Layer { return nil }
