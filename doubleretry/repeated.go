package doubleretry

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports a write that a retry repeats (category repeated-write):
//
//	for attempt := 0; attempt < 4; attempt++ {
//		db.ExecContext(ctx, "INSERT INTO orders ...") // runs on every attempt
//		if err = charge(ctx, order); err == nil {
//			break
//		}
//		time.Sleep(backoff(attempt))
//	}
//
// The insert succeeds, the call after it fails, and the retry goes round
// again: the insert runs again, up to 4 times per call. Only a write whose
// repeat leaves a second record is reported (effects: Adds, an insert, a
// publish, a push, an increment; not an upsert, a SET, a status update), and
// only where the attempt always makes it before a retried call whose failure
// the layer goes round again on: a write under a branch (first attempt
// only, a flag) or after the retried call is quiet.

// repeatedWrites reports the repeated writes of the retry layer l.
func (c *checker) repeatedWrites(l *retrymodel.Layer, writes *effects.Result) {
	body, ok := l.Body.(*ast.BlockStmt)
	if !ok || writes == nil || l.HelperOf != nil || !retries(l) {
		return
	}
	if l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library {
		return
	}
	ops := c.res.RetriedCalls(l)
	for _, st := range body.List {
		var found *effects.Write
		ast.Inspect(st, func(n ast.Node) bool {
			if found != nil || !unconditional(n) {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok {
				if w := writes.Classify(call); w != nil && w.Adds {
					found = w
					return false
				}
			}
			return true
		})
		if found == nil {
			continue
		}
		if op := c.failingAfter(l, body, found.Call, ops); op != nil {
			c.reportRepeated(l, body, st, found, op)
			return // one finding per layer: the first write names the fault
		}
	}
}

// unconditional reports whether the code under n runs whenever the
// statement holding it does: not a branch, a loop, a closure, a deferred
// or spawned call. The init and condition of an if do run.
func unconditional(n ast.Node) bool {
	switch n.(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause, *ast.ForStmt, *ast.RangeStmt,
		*ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt:
		return false
	}
	return true
}

// failingAfter returns the first retried call after w in the attempt whose
// failure the layer goes round again on, or nil.
func (c *checker) failingAfter(l *retrymodel.Layer, body *ast.BlockStmt, w *ast.CallExpr, ops []*ast.CallExpr) *ast.CallExpr {
	for _, op := range ops {
		if op == w || op.Pos() < w.End() || !contains(body, op) {
			continue
		}
		if c.res.FailureGoesRound(l, op) {
			return op
		}
	}
	return nil
}

func contains(n ast.Node, x ast.Node) bool { return n.Pos() <= x.Pos() && x.End() <= n.End() }

func (c *checker) reportRepeated(l *retrymodel.Layer, body *ast.BlockStmt, st ast.Stmt, w *effects.Write, op *ast.CallExpr) {
	fset := c.pass.Fset
	times := "once per attempt, with no bound on the attempts"
	if n, ok := l.Attempts(); ok {
		times = fmt.Sprintf("up to %d times per call", n)
	}
	what := w.Callee
	if w.Via != "" {
		what += " (" + w.Via + ")"
	}
	msg := fmt.Sprintf("%s (%s) runs before %s on every attempt of the %s at %s: when %s fails after it, the retry makes it again, %s; make the write after the retried call succeeds, or make it idempotent (an upsert such as ON CONFLICT DO NOTHING, an idempotency key the receiver checks)",
		what, w.Kind, types.ExprString(op.Fun), l.Name, retrymodel.Shorten(fset, l.Pos), types.ExprString(op.Fun), times)
	var fixes []analysis.SuggestedFix
	if fix, ok := c.repeatedFix(l, body, st, op); ok { // repeatedfix.go
		fixes = append(fixes, fix)
	}
	c.pass.Report(analysis.Diagnostic{Pos: w.Call.Pos(), End: w.Call.End(), Category: "repeated-write", Message: msg, SuggestedFixes: fixes,
		Related: []analysis.RelatedInformation{{Pos: op.Pos(), Message: "the retried call"}}})
}
