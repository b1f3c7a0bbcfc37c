package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// ctxErrRetried reports a retry loop whose classifier answers retry for a
// context's own error (context.Canceled, context.DeadlineExceeded) when the
// loop's context is the caller's: a request whose caller gave up, or whose
// deadline passed, is sent again, each time failing at once (or, with a
// wait that ignores the context, after the wait). The model proves the
// answer (CtxErrRetried); a context that can never be done is quiet.
//
// A layer whose wait is cancellable is quiet: when the context is done the
// wait ends the retry before another attempt is made.
func (c *checker) ctxErrRetried(l *retrymodel.Layer) {
	a, ok := c.res.CtxErrRetried(l)
	if !ok || l.Policy.WaitCancellable == retrymodel.Yes {
		return
	}
	src, ok := c.res.CancelSource(l, l.Pos)
	if !ok {
		return
	}
	name := src.Name
	attempts := ""
	if n, ok := l.Attempts(); ok && n > 1 {
		// The context's error comes back from an attempt: at most the
		// others follow it.
		attempts = fmt.Sprintf(" up to %d more times", n-1)
	}
	if a.Func == nil {
		// Inline: the loop leaves on the classes it tests and goes round
		// on the rest, the context's error among them.
		tests := make([]string, len(a.Tests))
		for i, t := range a.Tests {
			tests[i] = types.ExprString(t)
		}
		msg := fmt.Sprintf("retries a cancelled/expired context's error: when %s fails with %s the %s goes round again (its tests of the error, %s, leave only on other classes), so when %s is done it calls %s again%s instead of returning; leave the loop when errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)",
			types.ExprString(a.Op.Fun), a.Err, describe(l), strings.Join(tests, "; "), name, types.ExprString(a.Op.Fun), attempts)
		c.report(a.Pos, "ctx-error-retried", msg, nil)
		return
	}
	msg := fmt.Sprintf("retries a cancelled/expired context's error: %s answers retry for %s, so when %s is done the %s sends the request again%s instead of returning; return ctx errors (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) as not retryable",
		retrymodel.FuncName(a.Func), a.Err, name, describe(l), attempts)
	c.report(a.Pos, "ctx-error-retried", msg, nil)
}

// onlyUnderCondition reports a status branch of a loop's classifier helper
// that answers only under a further test (if code == 429 { if e.Code ==
// lockTimeout { return true } }): the classifier retries one kind of 429
// it names, not the rate limit, so there is no limit window whose
// Retry-After it skips. (Kept here, beside the ctx-error classifier
// reading, so that the retry-after rule stays as it is for every other
// branch.)
func (c *checker) onlyUnderCondition(l *retrymodel.Layer, region ast.Node, branch []ast.Stmt) bool {
	fn := l.Policy.ClassifierFunc
	if l.Kind != retrymodel.Loop || fn == nil || len(branch) == 0 {
		return false
	}
	d := c.res.Decl(fn)
	if d == nil || d.Body != region {
		return false
	}
	for _, st := range branch {
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Else != nil {
			return false
		}
	}
	return true
}
