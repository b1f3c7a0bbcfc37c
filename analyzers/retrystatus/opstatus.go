package retrystatus

import (
	"go/types"

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
