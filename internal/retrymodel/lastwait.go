package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
)

// waitsAfterLast reports whether a loop's wait also runs after its last
// attempt fails, before the loop gives up:
//
//	for i := 0; i < 3; i++ {
//		if err = op(); err == nil { return nil }
//		time.Sleep(d)
//	}
//	return err
//
// It waits three times, not two: the third wait delays only the error.
// It holds when the attempt bound is tested only by the for or range
// clause, the wait follows the attempt in the body, and nothing on the way
// to the wait tests the counter (if i < n-1 { sleep }, or if i == n-1
// { break } before it). Anything else answers false: the loop is then
// taken to wait only between attempts, as before.
func (p *pkgCtx) waitsAfterLast(body *ast.BlockStmt, ctr *counter, w *waitSite, ops []*ast.CallExpr, waitFirst bool) bool {
	if ctr == nil || ctr.v == nil || !ctr.inHeader || waitFirst || w == nil {
		return false
	}
	if len(ops) == 0 || !within(ops[0], body) || w.node.Pos() < ops[0].End() || !within(w.node, body) {
		return false
	}
	// Variables that carry the counter: last := i == n-1.
	tainted := p.derivedFrom(body, ctr.v)
	onCounter := func(n ast.Node) bool {
		return n != nil && p.mentions(n, func(v *types.Var) bool { return tainted[v] })
	}
	// The wait must not sit under a test of the counter.
	for _, n := range pathIn(body, w.node) {
		switch n := n.(type) {
		case *ast.IfStmt:
			if onCounter(n.Init) || onCounter(n.Cond) {
				return false
			}
		case *ast.SwitchStmt:
			if onCounter(n.Init) || onCounter(n.Tag) {
				return false
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if onCounter(e) {
					return false
				}
			}
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false // a wait in a closure or an inner loop: not this loop's turn
		}
	}
	// Nor after a test of the counter that can leave the loop.
	leavesBefore := false
	ast.Inspect(body, func(n ast.Node) bool {
		if leavesBefore || n == nil || n.Pos() >= w.node.Pos() {
			return false
		}
		var head []ast.Node
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			head = []ast.Node{n.Init, n.Cond}
		case *ast.SwitchStmt:
			head = []ast.Node{n.Init, n.Tag}
		case *ast.CaseClause:
			for _, e := range n.List {
				head = append(head, e)
			}
		default:
			return true
		}
		for _, h := range head {
			if h != nil && onCounter(h) && p.leavesLoop(n) {
				leavesBefore = true
			}
		}
		return !leavesBefore
	})
	return !leavesBefore
}

// leavesLoop reports whether n holds a return, a goto, or a break out of
// the statement that is not aimed at a nested switch, select or loop.
func (p *pkgCtx) leavesLoop(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		case *ast.BranchStmt:
			if m.Tok == token.GOTO || m.Tok == token.BREAK {
				found = true // an inner break is taken as leaving too: the safe side
			}
		}
		return !found
	})
	return found
}

// pathIn returns the nodes from root down to inner, both excluded.
func pathIn(root, inner ast.Node) []ast.Node {
	var path []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil || n == inner || !within(inner, n) {
			return false
		}
		if n != root {
			path = append(path, n)
		}
		return true
	})
	return path
}
