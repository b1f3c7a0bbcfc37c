package retrystatus

import (
	"go/ast"
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
func (ck *checker) opStatus(l *retrymodel.Layer) ([]*decision, string) {
	var ds []*decision
	what := ""
	for _, call := range l.Ops {
		fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
		if fn == nil || fn.Pkg() != ck.pass.Pkg {
			continue
		}
		decl := ck.decls[fn.Origin()]
		if decl == nil || decl.Body == nil || !returnsError(fn) {
			continue
		}
		_, httpOp := ck.remoteOps(&retrymodel.Layer{Body: decl.Body})
		if httpOp == "" {
			continue
		}
		if ck.testsOtherResult(l, call) {
			// resp, strategy, err := c.attempt(req); if strategy ==
			// NoRetry { return }: the loop decides by a verdict the
			// operation returns beside its error, not by the error alone.
			return nil, ""
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
			what = httpOp + " in " + retrymodel.FuncName(fn)
		}
	}
	return ds, what
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
