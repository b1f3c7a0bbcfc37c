package doubleretry

import (
	"go/ast"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// retried returns the chains of retry layers that a failure of l's
// operation runs again. For a loop the model knows which calls it retries
// (Layer.Ops: the calls whose failure leads to another turn), and only what
// those calls reach multiplies: a call made once the operation succeeded
// (`if err == nil { return handle(resp) }`) runs once, whatever it reaches.
// A layer that holds a retried call (an inner loop around it) counts too.
// For libraries, clients and SDKs the whole retried region is the
// operation, and Result.Inner is the answer.
func (c *checker) retried(l *retrymodel.Layer) []retrymodel.Chain {
	if l.Kind != retrymodel.Loop || len(l.Ops) == 0 || l.Body == nil {
		return c.res.Inner(l)
	}
	var out []retrymodel.Chain
	var covered []ast.Node
	ops := c.res.RetriedCalls(l)
	holdsOp := func(n ast.Node) bool {
		for _, op := range ops {
			if within(op, n) {
				return true
			}
		}
		return false
	}
	ast.Inspect(l.Body, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		inner := c.res.LayerOf(n)
		if inner == nil || inner == l || !holdsOp(n) {
			return true
		}
		covered = append(covered, n)
		head := c.info(inner)
		out = append(out, retrymodel.Chain{Layers: []retrymodel.LayerInfo{head}})
		for _, ch := range c.res.Inner(inner) {
			out = append(out, ch.Under(head))
		}
		return false
	})
	for _, op := range ops {
		inCovered := false
		for _, n := range covered {
			if within(op, n) {
				inCovered = true
			}
		}
		if inCovered {
			continue
		}
		ast.Inspect(op, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			out = append(out, c.res.CallChains(call)...)
			return true
		})
	}
	return out
}

func within(n, region ast.Node) bool {
	return region.Pos() <= n.Pos() && n.End() <= region.End()
}
