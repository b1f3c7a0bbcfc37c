package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// unboundLibrary reports a retry library that waits between attempts on a
// timer of its own, with no context, while the code that calls it can be
// cancelled: cenkalti/backoff's Retry with a backoff not bound by
// backoff.WithContext, avast/retry-go's Do without the retry.Context
// option, apimachinery's wait.ExponentialBackoff. The waits are inside
// the library, so there is no wait node to point at; the model says the
// library's wait cannot be cancelled (Policy.WaitCancellable No) and the
// finding is at the call, with the library's own way to bind it. A
// cancelled caller's operation fails at once on every later attempt, and
// the library keeps waiting and calling it until its attempts or elapsed
// limit run out, the caller's goroutine blocked all along; an operation
// that gives up on that error still runs once more after the wait.
func (c *checker) unboundLibrary(l *retrymodel.Layer, attemptOnly string) bool {
	call, ok := l.Node.(*ast.CallExpr)
	bind := l.Policy.BindWith // the model's: how this library binds its waits
	if l.Kind != retrymodel.Library || !ok || l.Context != nil || l.Policy.WaitCancellable != retrymodel.No || bind == "" {
		return false
	}
	src, ok := c.res.CancelSource(l, call.Pos())
	if !ok || src.Chan || c.errSetOnly(call) {
		return false
	}
	pkgName := ""
	if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			if _, isPkg := c.pass.TypesInfo.Uses[id].(*types.PkgName); isPkg {
				pkgName = id.Name
			}
		}
	}
	var why, advice string
	var fix *analysis.SuggestedFix
	switch bind {
	case "backoff.WithContext":
		why = "its backoff is not bound to a context"
		advice = fmt.Sprintf("bind the backoff to %s: %s.WithContext(b, %s)", src.Name, orName(pkgName, "backoff"), src.Name)
		if pkgName != "" && len(call.Args) >= 2 {
			bo := call.Args[1]
			fix = &analysis.SuggestedFix{
				Message: fmt.Sprintf("Bind the backoff to %s", src.Name),
				TextEdits: []analysis.TextEdit{
					{Pos: bo.Pos(), End: bo.Pos(), NewText: []byte(pkgName + ".WithContext(")},
					{Pos: bo.End(), End: bo.End(), NewText: []byte(", " + src.Name + ")")},
				},
			}
		}
	case "retry.Context":
		why = "no retry.Context option"
		advice = fmt.Sprintf("pass %s.Context(%s)", orName(pkgName, "retry"), src.Name)
		if pkgName != "" && !call.Ellipsis.IsValid() {
			fix = &analysis.SuggestedFix{
				Message:   fmt.Sprintf("Pass %s.Context(%s)", pkgName, src.Name),
				TextEdits: []analysis.TextEdit{{Pos: call.Rparen, End: call.Rparen, NewText: []byte(fmt.Sprintf(", %s.Context(%s)", pkgName, src.Name))}},
			}
		}
	case "roko.DoWithContext":
		why = "Do runs on context.Background()"
		advice = fmt.Sprintf("call DoWithContext(%s, ...)", src.Name)
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && len(call.Args) == 1 {
			fix = &analysis.SuggestedFix{
				Message: fmt.Sprintf("Run the retrier on %s", src.Name),
				TextEdits: []analysis.TextEdit{
					{Pos: sel.Sel.Pos(), End: sel.Sel.End(), NewText: []byte("DoWithContext")},
					{Pos: call.Args[0].Pos(), End: call.Args[0].Pos(), NewText: []byte(src.Name + ", ")},
				},
			}
		}
	case "failsafe WithContext":
		why = "the executor runs on context.Background()"
		advice = fmt.Sprintf("run it with .WithContext(%s)", src.Name)
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			fix = &analysis.SuggestedFix{
				Message:   fmt.Sprintf("Run the executor on %s", src.Name),
				TextEdits: []analysis.TextEdit{{Pos: sel.Sel.Pos(), End: sel.Sel.Pos(), NewText: []byte(fmt.Sprintf("WithContext(%s).", src.Name))}},
			}
		}
	case "wait.ExponentialBackoffWithContext":
		why = "it sleeps with time.Sleep"
		advice = fmt.Sprintf("use %s.ExponentialBackoffWithContext(%s, ...)", orName(pkgName, "wait"), src.Name)
	}
	msg := fmt.Sprintf("wait ignores cancellation: %s waits between attempts on a timer of its own (%s), so after %s is done it waits on and then runs the operation again", l.Name, why, src.Name)
	msg += cancelLag(l)
	if me := l.Policy.MaxElapsed; me.Known && me.D > 0 {
		msg += fmt.Sprintf(", for as long as its elapsed limit of %s if the operation's error is retried", fmtDur(me.D))
	}
	if attemptOnly != "" {
		msg += "; the retry is also attempt-only: " + attemptOnly
	}
	msg += "; " + advice
	var fixes []analysis.SuggestedFix
	if fix != nil {
		fixes = []analysis.SuggestedFix{*fix}
	}
	c.report(call.Pos(), "uncancellable-wait", msg, fixes)
	return true
}

func orName(name, def string) string {
	if name == "" {
		return def
	}
	return name
}
