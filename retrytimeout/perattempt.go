package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// attemptDeadlineEndsRetry reports a retry loop that gives each attempt its
// own deadline and then, before the retry decision, leaves the loop when
// that deadline has passed (the model's Policy.AttemptDeadline). One
// attempt that hits its own timeout then ends the whole retry, which is
// the failure the per-attempt timeout was there to retry.
func (c *checker) attemptDeadlineEndsRetry(l *retrymodel.Layer) {
	ad := l.Policy.AttemptDeadline
	if l.Kind != retrymodel.Loop || ad == nil {
		return
	}
	if n, ok := l.Attempts(); ok && n < 2 {
		return
	}
	c.reportAttemptDeadline(l, ad.Cond, ad.Ctx, ad.Parent, ad.Call)
}

func (c *checker) reportAttemptDeadline(l *retrymodel.Layer, cond token.Pos, actx, parent *types.Var, call *ast.CallExpr) {
	timeout := "its own timeout"
	if len(call.Args) == 2 {
		if d, ok := c.res.Folder.Duration(call.Args[1]); ok {
			timeout = "its own " + fmtDur(d) + " timeout"
		}
	}
	attempts := ""
	if n, ok := l.Attempts(); ok {
		attempts = fmt.Sprintf(" (%d attempts)", n)
	}
	fix := "test the caller's context there and retry when only the attempt's deadline has passed"
	if parent == actx {
		// ctx, cancel = context.WithTimeout(ctx, d): the caller's context
		// is overwritten, so there is nothing left to test it by.
		fix = fmt.Sprintf("keep the caller's context in a variable of its own (%s is overwritten by the attempt's), test that there, and retry when only the attempt's deadline has passed", actx.Name())
	} else if parent != nil {
		fix = fmt.Sprintf("test %s.Err() there (the caller's context) and retry when only %s's deadline has passed", parent.Name(), actx.Name())
	}
	msg := fmt.Sprintf("per-attempt timeout ends the retry: %s is made for each attempt at %s, but this test leaves the %s%s before the retry decision when %s is done, so one attempt that hits %s ends the whole retry instead of being retried; %s",
		actx.Name(), c.short(call.Pos()), describe(l), attempts, actx.Name(), timeout, fix)
	c.report(cond, "attempt-deadline", msg, nil)
}
