package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// unscaledHints reports a retry hint's count converted to a wait with no
// unit: strconv.Atoi(h.Get("Retry-After")) gives seconds, and
// time.Duration(n) of it is n nanoseconds, so the client waits next to
// nothing and comes back inside the window the server asked it to stay
// away for. The fix multiplies by the header's unit. It runs wherever
// the conversion is, since the retry that waits it is often in another
// package (an SDK's evaluate func handed to a retry helper).
func (c *checker) unscaledHints() {
	for _, h := range c.res.UnscaledHints() {
		if c.inTestFile(h.Conv.Pos()) {
			continue
		}
		arg := types.ExprString(h.Conv.Args[0])
		conv := types.ExprString(h.Conv)
		msg := fmt.Sprintf("retry hint read as nanoseconds: %s converts the %s header's count (parsed at %s) with no unit, so %s: 10 waits 10ns and the retry comes back at once, inside the window the server asked for; multiply by %s",
			conv, h.Header, c.pos(h.Parse.Pos()), h.Header, h.Unit)
		product := fmt.Sprintf("%s(%s) * %s", types.ExprString(h.Conv.Fun), arg, h.Unit)
		if h.InOperand {
			product = "(" + product + ")"
		}
		fix := analysis.SuggestedFix{
			Message: "Multiply by " + h.Unit,
			TextEdits: []analysis.TextEdit{{
				Pos:     h.Conv.Pos(),
				End:     h.Conv.End(),
				NewText: []byte(product),
			}},
		}
		if !c.importsTime(h.Conv) {
			continue // the unit's package name is not in scope as "time"
		}
		c.report(h.Conv.Pos(), "retry-after-unit", msg, []analysis.SuggestedFix{fix})
	}
}

// importsTime reports whether the file of n names package time "time".
func (c *checker) importsTime(n ast.Node) bool {
	for _, f := range c.pass.Files {
		if f.FileStart <= n.Pos() && n.Pos() < f.FileEnd {
			for _, imp := range f.Imports {
				if imp.Path.Value == `"time"` && (imp.Name == nil || imp.Name.Name == "time") {
					return true
				}
			}
		}
	}
	return false
}
