package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

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
	if l.Kind != retrymodel.Library || !ok || l.Context != nil || l.Policy.WaitCancellable != retrymodel.No {
		return false
	}
	fn := typeutil.StaticCallee(c.pass.TypesInfo, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	lib := libraryOf(fn.Pkg().Path())
	if lib == "" || lib == "k8s-wait" && fn.Name() != "ExponentialBackoff" {
		return false
	}
	src, ok := c.res.CancelSource(l, call.Pos())
	if !ok || src.Chan || src.Var != nil && c.errSetOnly(call, src.Var) {
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
	switch lib {
	case "backoff":
		why = "its backoff is not bound to a context"
		advice = fmt.Sprintf("bind the backoff to %s: %s.WithContext(b, %s)", src.Name, orName(pkgName, "backoff"), src.Name)
		if i := len(call.Args) - 1; pkgName != "" && i >= 1 && fn.Name() != "RetryNotifyWithTimer" {
			bo := call.Args[1]
			fix = &analysis.SuggestedFix{
				Message: fmt.Sprintf("Bind the backoff to %s", src.Name),
				TextEdits: []analysis.TextEdit{
					{Pos: bo.Pos(), End: bo.Pos(), NewText: []byte(pkgName + ".WithContext(")},
					{Pos: bo.End(), End: bo.End(), NewText: []byte(", " + src.Name + ")")},
				},
			}
		}
	case "retry-go":
		why = "no retry.Context option"
		advice = fmt.Sprintf("pass %s.Context(%s)", orName(pkgName, "retry"), src.Name)
		if pkgName != "" && !call.Ellipsis.IsValid() {
			fix = &analysis.SuggestedFix{
				Message:   fmt.Sprintf("Pass %s.Context(%s)", pkgName, src.Name),
				TextEdits: []analysis.TextEdit{{Pos: call.Rparen, End: call.Rparen, NewText: []byte(fmt.Sprintf(", %s.Context(%s)", pkgName, src.Name))}},
			}
		}
	case "k8s-wait":
		why = "it sleeps with time.Sleep"
		advice = fmt.Sprintf("use %s.ExponentialBackoffWithContext(%s, ...)", orName(pkgName, "wait"), src.Name)
	}
	msg := fmt.Sprintf("wait ignores cancellation: %s waits between attempts on a timer of its own (%s), so after %s is done it waits on and then runs the operation again", l.Name, why, src.Name)
	if ws, ok := knownWaits(l); ok && len(ws) > 0 {
		msg += fmt.Sprintf(" (waits %s: a cancel is seen only when the wait ends, up to %s later)", waitList(ws), fmtDur(slices.Max(ws)))
	} else if len(l.Policy.Waits) > 0 {
		text, _ := shownWaits(l)
		msg += fmt.Sprintf(" (waits %s)", text)
	}
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

// libraryOf names the retry libraries whose unbound waits this file
// reports, by import path.
func libraryOf(path string) string {
	switch {
	case slices.Contains([]string{"github.com/cenkalti/backoff", "github.com/cenkalti/backoff/v2", "github.com/cenkalti/backoff/v3", "github.com/cenkalti/backoff/v4"}, path):
		return "backoff"
	case path == "github.com/avast/retry-go" || strings.HasPrefix(path, "github.com/avast/retry-go/v"):
		return "retry-go"
	case path == "k8s.io/apimachinery/pkg/util/wait":
		return "k8s-wait"
	}
	return ""
}

func orName(name, def string) string {
	if name == "" {
		return def
	}
	return name
}
