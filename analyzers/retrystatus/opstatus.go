package retrystatus

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// opStatus looks into the operations a retry repeats that are functions of
// this package: one that makes a net/http request and turns its status
// into an error carries the status decision of the retry, since the loop
// retries the error it returns. It returns the decisions of those
// functions (a non-nil error = retried) and the request they make
// ("http.Client.Do in LLMImpl.attemptGenerate"), or "" when no operation
// does.
//
// An operation of another package carries its summary as an ErrStatusFact:
// known is set when it says every failing status comes back as the error.
func (ck *checker) opStatus(l *retrymodel.Layer) (ds []*decision, what string, known bool) {
	for _, call := range l.Ops {
		fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil || !returnsError(fn) {
			continue
		}
		if fn.Pkg() != ck.pass.Pkg {
			// Another package's function: its summary says whether it
			// turns every failing status into the same error.
			var f ErrStatusFact
			if ck.res.LayerErrorType(l) != nil || !ck.pass.ImportObjectFact(fn.Origin(), &f) {
				continue
			}
			if ck.testsOtherResult(l, call) {
				return nil, "", false
			}
			return nil, f.Op, true
		}
		decl := ck.decls[fn.Origin()]
		if decl == nil || decl.Body == nil {
			continue
		}
		httpOp := ck.requestIn(fn, decl)
		if httpOp == "" {
			continue
		}
		if ck.testsOtherResult(l, call) {
			// resp, strategy, err := c.attempt(req); if strategy ==
			// NoRetry { return }: the loop decides by a verdict the
			// operation returns beside its error, not by the error alone.
			return nil, "", false
		}
		m := modeErrOp
		if ck.res.LayerErrorType(l) != nil {
			m = modeRetryable // the classifier retries one error type
		}
		d := ck.walkDecision(l, decl.Body, m, "")
		if len(d.atoms) == 0 {
			continue // the status is not tested here
		}
		ds = append(ds, d)
		if what == "" {
			what = httpOp
		}
	}
	return ds, what, false
}

// requestIn names the request a function of this package makes: the
// net/http call in its body ("http.Client.Do in api.(*Client).Get"), or the
// function itself when a call of its body leaves the process through
// another function ("api.(*Client).Get"), "" when it makes none.
func (ck *checker) requestIn(fn *types.Func, decl *ast.FuncDecl) string {
	if _, httpOp := ck.remoteOps(&retrymodel.Layer{Body: decl.Body}); httpOp != "" {
		return httpOp + " in " + retrymodel.FuncName(fn)
	}
	if ck.res.Remote(decl.Body) {
		return retrymodel.FuncName(fn)
	}
	return ""
}

// ErrStatusFact is exported for a function that makes a remote request and
// returns an error for every failing status without telling them apart (no
// failing code named, none given up on, the error's body unread): a retry
// of another package that retries its error unread retries them all.
type ErrStatusFact struct {
	Op string // the request: "http.Client.Do in api.(*Client).Call"
}

// AFact marks ErrStatusFact as an analysis fact.
func (*ErrStatusFact) AFact() {}

func (f *ErrStatusFact) String() string { return "error for every failing status of " + f.Op }

// exportErrStatus exports ErrStatusFact for the package's exported
// functions that return an error for every failing status.
func (ck *checker) exportErrStatus(fns []*types.Func) {
	retries := map[*types.Func]bool{}
	for _, l := range ck.res.Layers {
		retries[l.Func] = true
	}
	for _, fn := range fns {
		if retries[fn] {
			continue // it retries itself: its error is what is left after
		}
		decl := ck.decls[fn]
		if !fn.Exported() || decl.Body == nil || !returnsError(fn) || !ck.testsStatus(decl.Body) {
			continue
		}
		op := ck.requestIn(fn, decl)
		if op == "" {
			continue
		}
		d := ck.walkDecision(&retrymodel.Layer{Body: decl.Body}, decl.Body, modeErrOp, "")
		if len(d.atoms) > 0 && everyFailureRetried([]*decision{d}) {
			ck.pass.ExportObjectFact(fn, &ErrStatusFact{Op: op})
		}
	}
}

// testsStatus reports whether a body compares an HTTP status, a cheap
// filter before the decision walk.
func (ck *checker) testsStatus(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BinaryExpr:
			if n.Op.Precedence() == token.EQL.Precedence() &&
				(ck.res.StatusOf(n.X) == retrymodel.HTTPStatus || ck.res.StatusOf(n.Y) == retrymodel.HTTPStatus) {
				found = true
			}
		case *ast.SwitchStmt:
			found = n.Tag != nil && ck.res.StatusOf(n.Tag) == retrymodel.HTTPStatus
		}
		return !found
	})
	return found
}

// returnsError reports whether fn's last result is an error.
func returnsError(fn *types.Func) bool {
	res := fn.Type().(*types.Signature).Results()
	return res.Len() > 0 && types.Identical(res.At(res.Len()-1).Type(), errorType)
}

// testsOtherResult reports a retry whose region tests, in a condition, a
// result of call other than its error and its response: a verdict or a
// code the operation hands back beside the error.
func (ck *checker) testsOtherResult(l *retrymodel.Layer, call *ast.CallExpr) bool {
	if l.Body == nil {
		return false
	}
	others := map[*types.Var]bool{}
	ast.Inspect(l.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != call || len(as.Lhs) < 2 {
			return true
		}
		for _, lhs := range as.Lhs {
			id, ok := lhs.(*ast.Ident)
			if !ok {
				continue
			}
			// A verdict or a code (bool, int, string, an enum of them); a
			// response or body tested for nil decides nothing.
			if v, _ := ck.info.ObjectOf(id).(*types.Var); v != nil {
				if _, basic := v.Type().Underlying().(*types.Basic); basic {
					others[v] = true
				}
			}
		}
		return false
	})
	if len(others) == 0 {
		return false
	}
	found := false
	ast.Inspect(l.Body, func(n ast.Node) bool {
		var cond ast.Expr
		switch n := n.(type) {
		case *ast.IfStmt:
			cond = n.Cond
		case *ast.SwitchStmt:
			cond = n.Tag
		}
		if cond != nil {
			ast.Inspect(cond, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					if v, _ := ck.info.Uses[id].(*types.Var); v != nil && others[v] {
						found = true
					}
				}
				return !found
			})
		}
		return !found
	})
	return found
}
