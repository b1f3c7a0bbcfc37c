package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file answers, for a call in a retry layer's body, whether its
// failure makes the layer try again (doubleretry's repeated-write asks it
// of the call after a write).

// FailureGoesRound reports whether a failure of op, a call in l's body,
// leads to another attempt:
// in a loop, a branch on op's results that continues or waits (or leaves
// on success, with the wait after it); in a library's closure, op's error
// returned as it is, which the library retries.
func (r *Result) FailureGoesRound(l *Layer, op *ast.CallExpr) bool {
	body, ok := l.Body.(*ast.BlockStmt)
	if !ok {
		return false
	}
	info := r.pass.TypesInfo
	results := resultsOf(info, body, op)
	mentions := func(e ast.Node) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && results[info.Uses[id]] {
				found = true
			}
			return !found && n != op
		})
		return found || (e != nil && spans(e, op))
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
			if l.Kind == Library && n.End() >= op.End() && len(n.Results) > 0 {
				last := n.Results[len(n.Results)-1]
				retried = mentions(last) && r.libraryRetries(l, last)
			}
		case *ast.IfStmt:
			if n.End() < op.Pos() || !mentions(n.Cond) {
				return true
			}
			if l.Kind == Loop && (goesRound(l, n.Body) || n.Else != nil && goesRound(l, n.Else)) {
				retried = true
			}
			if l.Kind == Loop && n.Else == nil && leaves(n.Body, nil) && waitAfter(l, n) {
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
func goesRound(l *Layer, branch ast.Node) bool {
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

// waitAfter reports a wait of the layer after the if statement.
func waitAfter(l *Layer, ifs *ast.IfStmt) bool {
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
func (r *Result) libraryRetries(l *Layer, e ast.Expr) bool {
	call, ok := l.Node.(*ast.CallExpr)
	if !ok {
		return false
	}
	lib, ok := typeutil.Callee(r.pass.TypesInfo, call).(*types.Func)
	if !ok || lib.Pkg() == nil {
		return false
	}
	marker := ""
	if m, ok := astutil.Unparen(e).(*ast.CallExpr); ok {
		if fn, ok := typeutil.Callee(r.pass.TypesInfo, m).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == lib.Pkg().Path() {
			marker = fn.Name()
		}
	}
	switch lib.Pkg().Path() {
	case pkgBackoffV2, pkgBackoffV3, pkgBackoffV4, pkgBackoffV5:
		return marker != "Permanent"
	case pkgRetryGo:
		return marker != "Unrecoverable"
	case pkgGoRetry:
		return marker == "RetryableError"
	}
	return false
}

func spans(n, x ast.Node) bool { return n.Pos() <= x.Pos() && x.End() <= n.End() }
