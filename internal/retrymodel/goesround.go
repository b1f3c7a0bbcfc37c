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
	if t := r.LayerErrorType(l); t != nil {
		return r.OfType(e, t) // the classifier retries this type (errtype.go)
	}
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

// SendFailureGivesUp answers, for op, an HTTP send in l's body (sendsHTTP),
// whether the failure of the send itself (a refused or reset connection,
// an EOF) ends the layer unread: the
// statement right after `resp, err := op` is `if err != nil` whose branch
// neither goes round (a continue or wait of a loop; in a library's
// closure, a return the library retries) nor reads the error (errors.Is
// or As, a type assertion or switch, a method of it, a function other than
// fmt, log and slog handed it, a further decision). It returns that if
// statement.
func (r *Result) SendFailureGivesUp(l *Layer, op *ast.CallExpr) (*ast.IfStmt, bool) {
	body, ok := l.Body.(*ast.BlockStmt)
	if !ok || l.Kind != Loop && l.Kind != Library {
		return nil, false
	}
	info := r.pass.TypesInfo
	if fn, _ := typeutil.Callee(info, op).(*types.Func); !sendsHTTP(fn) {
		return nil, false
	}
	errVar, block, idx := sendAssign(info, body, op)
	if errVar == nil || idx+1 >= len(block.List) {
		return nil, false
	}
	ifs, ok := block.List[idx+1].(*ast.IfStmt)
	if !ok || ifs.Init != nil || !isNonNilTest(info, ifs.Cond, errVar) || ifs.Else != nil {
		return nil, false
	}
	b := ifs.Body
	if len(b.List) == 0 || len(b.List) > 4 {
		return nil, false
	}
	switch last := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		if l.Kind == Library && len(last.Results) > 0 && r.libraryRetries(l, last.Results[len(last.Results)-1]) {
			return nil, false // the library retries what the closure returns
		}
	case *ast.BranchStmt:
		if l.Kind != Loop || last.Tok != token.BREAK || last.Label != nil {
			return nil, false
		}
	default:
		return nil, false
	}
	if l.Kind == Loop && goesRound(l, b) {
		return nil, false
	}
	reads := false
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BranchStmt:
			reads = reads || n.Tok == token.CONTINUE || n.Tok == token.GOTO
		case *ast.TypeAssertExpr, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.IfStmt, *ast.SwitchStmt, *ast.FuncLit:
			reads = true
		case *ast.SelectorExpr:
			if id, ok := astutil.Unparen(n.X).(*ast.Ident); ok && info.Uses[id] == errVar {
				reads = true // err.Error(), err.Timeout()
			}
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(info, n).(*types.Func)
			if fn != nil && fn.Pkg() != nil {
				switch fn.Pkg().Path() {
				case "fmt", "log", "log/slog":
					return true // wrapped or logged: handed on unread
				}
			}
			for _, a := range n.Args {
				if id, ok := astutil.Unparen(a).(*ast.Ident); ok && info.Uses[id] == errVar {
					reads = true // a helper handed the error decides
				}
			}
		}
		return !reads
	})
	return ifs, !reads
}

// sendAssign finds `resp, err := op` (or =) as a statement of a block of
// body (not inside a function literal) and returns the error variable,
// that block and the statement's index.
func sendAssign(info *types.Info, body *ast.BlockStmt, op *ast.CallExpr) (*types.Var, *ast.BlockStmt, int) {
	var v *types.Var
	var blk *ast.BlockStmt
	idx := -1
	ast.Inspect(body, func(n ast.Node) bool {
		if v != nil {
			return false
		}
		if lit, ok := n.(*ast.FuncLit); ok && !spans(lit, op) {
			return false
		}
		b, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for i, st := range b.List {
			as, ok := st.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != op {
				continue
			}
			if id, ok := as.Lhs[1].(*ast.Ident); ok {
				if obj, _ := info.ObjectOf(id).(*types.Var); obj != nil && isErrorType(obj.Type()) {
					v, blk, idx = obj, b, i
				}
			}
			return false
		}
		return true
	})
	return v, blk, idx
}

// isNonNilTest matches `v != nil`.
func isNonNilTest(info *types.Info, cond ast.Expr, v *types.Var) bool {
	b, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	id, ok := astutil.Unparen(b.X).(*ast.Ident)
	return ok && info.Uses[id] == v && isNil(info, b.Y)
}
