package doubleretry

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

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
	if !ok || writes == nil || l.HelperOf != nil || !c.roundOn(l) {
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
			c.reportRepeated(l, found, op)
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
		if c.goesRoundOn(l, body, op) {
			return op
		}
	}
	return nil
}

func contains(n ast.Node, x ast.Node) bool { return n.Pos() <= x.Pos() && x.End() <= n.End() }

// goesRoundOn reports whether a failure of op leads to another attempt:
// in a loop, a branch on op's results that continues or waits (or leaves
// on success, with the wait after it); in a library's closure, op's error
// returned as it is, which the library retries.
func (c *checker) goesRoundOn(l *retrymodel.Layer, body *ast.BlockStmt, op *ast.CallExpr) bool {
	info := c.pass.TypesInfo
	results := resultsOf(info, body, op)
	mentions := func(e ast.Node) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && results[info.Uses[id]] {
				found = true
			}
			return !found && n != op
		})
		return found || (e != nil && contains(e, op))
	}
	retried := false
	ast.Inspect(body, func(n ast.Node) bool {
		if retried {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if l.Kind == retrymodel.Library && n.End() >= op.End() && len(n.Results) > 0 {
				last := n.Results[len(n.Results)-1]
				retried = mentions(last) && c.libraryRetries(l, last)
			}
		case *ast.IfStmt:
			if n.End() < op.Pos() || !mentions(n.Cond) {
				return true
			}
			if l.Kind == retrymodel.Loop && (c.goesRound(l, n.Body) || n.Else != nil && c.goesRound(l, n.Else)) {
				retried = true
			}
			if l.Kind == retrymodel.Loop && n.Else == nil && leaves(n.Body) && waitAfter(l, n) {
				retried = true // if err == nil { break }; sleep
			}
		}
		return true
	})
	return retried
}

// resultsOf lists the variables op's results are assigned to.
func resultsOf(info *types.Info, body *ast.BlockStmt, op *ast.CallExpr) map[types.Object]bool {
	out := make(map[types.Object]bool)
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != op {
			return true
		}
		for _, lhs := range as.Lhs {
			if id, ok := lhs.(*ast.Ident); ok {
				if obj := info.ObjectOf(id); obj != nil {
					out[obj] = true
				}
			}
		}
		return false
	})
	return out
}

// goesRound reports whether the branch continues the layer's loop or
// makes one of its waits.
func (c *checker) goesRound(l *retrymodel.Layer, branch ast.Node) bool {
	found := false
	ast.Inspect(branch, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.BranchStmt:
			if n.Tok == token.CONTINUE && n.Label == nil {
				found = true
			}
		}
		for _, w := range l.Waits {
			if n == w {
				found = true
			}
		}
		return !found
	})
	return found
}

// leaves reports a branch that ends in return or break.
func leaves(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK && s.Label == nil
	}
	return false
}

// waitAfter reports a wait of the layer after the if statement.
func waitAfter(l *retrymodel.Layer, ifs *ast.IfStmt) bool {
	for _, w := range l.Waits {
		if w.Pos() > ifs.End() {
			return true
		}
	}
	return false
}

// libraryRetries reports whether returning e from l's operation makes
// the library try again: cenkalti/backoff and retry-go retry any error
// but one marked permanent (backoff.Permanent, retry.Unrecoverable);
// sethvargo/go-retry retries only one marked retryable
// (retry.RetryableError). Other libraries decide by a classifier or a
// condition's result and are not read here.
func (c *checker) libraryRetries(l *retrymodel.Layer, e ast.Expr) bool {
	call, ok := l.Node.(*ast.CallExpr)
	if !ok {
		return false
	}
	lib, ok := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
	if !ok || lib.Pkg() == nil {
		return false
	}
	marker := ""
	if m, ok := astutil.Unparen(e).(*ast.CallExpr); ok {
		if fn, ok := typeutil.Callee(c.pass.TypesInfo, m).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == lib.Pkg().Path() {
			marker = fn.Name()
		}
	}
	path := lib.Pkg().Path()
	switch {
	case strings.HasPrefix(path, "github.com/cenkalti/backoff"):
		return marker != "Permanent"
	case strings.HasPrefix(path, "github.com/avast/retry-go"):
		return marker != "Unrecoverable"
	case path == "github.com/sethvargo/go-retry":
		return marker == "RetryableError"
	}
	return false
}

// roundOn: only a layer that retries (more than one attempt, not a
// conflict re-read) repeats its writes.
func (c *checker) roundOn(l *retrymodel.Layer) bool { return retries(l) }

func (c *checker) reportRepeated(l *retrymodel.Layer, w *effects.Write, op *ast.CallExpr) {
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
	c.pass.Report(analysis.Diagnostic{Pos: w.Call.Pos(), End: w.Call.End(), Category: "repeated-write", Message: msg})
}
