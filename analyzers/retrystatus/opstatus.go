package retrystatus

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

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
	typed := ck.res.LayerErrorType(l) != nil
	summed := ""
	for _, call := range l.Ops {
		fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil || !returnsError(fn) {
			continue
		}
		if ck.testsOtherResult(l, call) {
			// resp, strategy, err := c.attempt(req); if strategy ==
			// NoRetry { return }: the loop decides by a verdict the
			// operation returns beside its error, not by the error alone.
			return nil, "", false
		}
		if decl := ck.decls[fn.Origin()]; decl != nil && decl.Body != nil {
			if httpOp := ck.requestIn(fn, decl); httpOp != "" {
				m := modeErrOp
				if typed {
					m = modeRetryable // the classifier retries one error type
				}
				if d := ck.walkDecision(l, decl.Body, m, ""); len(d.atoms) > 0 {
					ds = append(ds, d)
					if what == "" {
						what = httpOp
					}
					continue
				}
			}
		}
		// The status is not tested in the operation's own body: its
		// summary (another package's by its fact) says whether it hands
		// on the error of one that turns every failing status into it.
		if !typed && summed == "" && !slices.Contains(ck.res.HelperLayers, l) {
			// A helper's call: the helper may classify inside (githubDo
			// hands retryx.Do its IsRetriable), which its policy need not
			// carry; only a loop or a library call seen whole is asked.
			summed = ck.errStatus(fn)
		}
	}
	if len(ds) == 0 && summed != "" {
		return nil, summed, true
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
	for _, fn := range fns {
		if fn.Exported() {
			if op := ck.errStatus(fn); op != "" {
				ck.pass.ExportObjectFact(fn, &ErrStatusFact{Op: op})
			}
		}
	}
}

// errStatus names the request of a function that returns an error for
// every failing status without telling them apart: one whose body makes
// the request and tests the status only for success, or one that hands on,
// unread, the error of a call of such a function (UpdateTask returning
// what Post returns, which returns what executeCall builds for every
// status but 2xx). Another package's function answers by its fact. ""
// when not so, and for a function that retries itself: its error is what
// is left after its own attempts.
func (ck *checker) errStatus(fn *types.Func) string {
	fn = fn.Origin()
	if fn.Pkg() != ck.pass.Pkg {
		var f ErrStatusFact
		if ck.pass.ImportObjectFact(fn, &f) {
			return f.Op
		}
		return ""
	}
	if op, ok := ck.errStat[fn]; ok {
		return op
	}
	ck.errStat[fn] = "" // a cycle answers no
	op := ck.errStatusOf(fn)
	ck.errStat[fn] = op
	return op
}

func (ck *checker) errStatusOf(fn *types.Func) string {
	decl := ck.decls[fn]
	if decl == nil || decl.Body == nil || !returnsError(fn) || ck.retriesItself(fn) {
		return ""
	}
	if ck.testsStatus(decl.Body) {
		op := ck.requestIn(fn, decl)
		if op == "" {
			return ""
		}
		d := ck.walkDecision(&retrymodel.Layer{Body: decl.Body}, decl.Body, modeErrOp, "")
		if len(d.atoms) > 0 && everyFailureRetried([]*decision{d}) {
			return op
		}
		return ""
	}
	// Hands on the error of a call that has the summary, reading none.
	if ck.readsError(decl.Body) {
		return ""
	}
	op := ""
	handed := ck.handedErrors(decl)
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok || op != "" {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && handed[call] {
			if callee, _ := typeutil.Callee(ck.info, call).(*types.Func); callee != nil && callee.Pkg() != nil && returnsError(callee) {
				op = ck.errStatus(callee)
			}
		}
		return op == ""
	})
	return op
}

// handedErrors returns the calls whose error a function returns: a call
// returned as it is (return c.executeCall(...)), or one whose error
// variable a return gives back, as it is or wrapped (return nil,
// fmt.Errorf("post: %w", err)).
func (ck *checker) handedErrors(decl *ast.FuncDecl) map[*ast.CallExpr]bool {
	out := map[*ast.CallExpr]bool{}
	from := map[*types.Var][]*ast.CallExpr{}
	var rets []*ast.ReturnStmt
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			rets = append(rets, n)
			if len(n.Results) == 1 {
				if call, ok := ast.Unparen(n.Results[0]).(*ast.CallExpr); ok {
					out[call] = true
				}
			}
		case *ast.AssignStmt:
			if len(n.Rhs) != 1 {
				return true
			}
			call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := n.Lhs[len(n.Lhs)-1].(*ast.Ident); ok {
				if v, ok := ck.info.ObjectOf(id).(*types.Var); ok && types.Identical(v.Type(), errorType) {
					from[v] = append(from[v], call)
				}
			}
		}
		return true
	})
	for _, ret := range rets {
		if len(ret.Results) == 0 {
			continue
		}
		last := ast.Unparen(ret.Results[len(ret.Results)-1])
		if call, ok := last.(*ast.CallExpr); ok && types.Identical(ck.info.TypeOf(call), errorType) {
			for _, a := range call.Args {
				if id, ok := ast.Unparen(a).(*ast.Ident); ok {
					last = id // a wrap of it
				}
			}
		}
		if id, ok := last.(*ast.Ident); ok {
			if v, ok := ck.info.Uses[id].(*types.Var); ok {
				for _, c := range from[v] {
					out[c] = true
				}
			}
		}
	}
	return out
}

// retriesItself reports a function that holds a retry layer of its own.
func (ck *checker) retriesItself(fn *types.Func) bool {
	if ck.retrying == nil {
		ck.retrying = map[*types.Func]bool{}
		for _, l := range ck.res.Layers {
			ck.retrying[l.Func] = true
		}
	}
	return ck.retrying[fn]
}

// testsStatus reports whether a body compares an HTTP status or hands
// one to a predicate, a cheap filter before the decision walk.
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
		case *ast.CallExpr:
			// isSuccessfulStatus(resp.StatusCode): a helper decides.
			if isBoolType(ck.info.TypeOf(n)) {
				for _, a := range n.Args {
					found = found || ck.res.StatusOf(a) == retrymodel.HTTPStatus
				}
			}
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
