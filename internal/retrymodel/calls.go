package retrymodel

import "go/ast"

// callLayer recognises a call that is itself a retry layer: a retry
// library, a retrying HTTP client, an SDK that retries by default.
func (p *pkgCtx) callLayer(call *ast.CallExpr, fnNode ast.Node, stack []ast.Node) *Layer {
	return nil // filled in by library.go / sdk.go
}
