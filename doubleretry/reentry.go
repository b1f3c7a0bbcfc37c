package doubleretry

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// reentry reports a retry loop or library call whose retried operation
// reaches the same layer again on its failure path: initializeServer falls
// back to retryConnection on any error, and retryConnection's loop calls
// initializeServer. Every failed attempt starts a whole new retry before
// the first one waits, so attempts multiply with each level and nothing
// bounds the depth (a dependency that stays down ends in a stack
// overflow). A retry by recursion (the function calling itself as its
// retry) is its own mechanism, not a re-entry, and is not a Loop or
// Library layer. Reported once, at the layer, with the path back.
func (c *checker) reentry(l *retrymodel.Layer) bool {
	if l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library || l.Body == nil {
		return false
	}
	// The way back starts at a call of a function, not of an interface
	// method: t.next.RoundTrip(req) in a RoundTrip that retries reaches
	// the package's own RoundTrip only because it is the one
	// implementation the package declares; a decorator wraps another.
	var chains []retrymodel.Chain
	for _, op := range c.res.RetriedCalls(l) {
		if typeutil.StaticCallee(c.pass.TypesInfo, op) != nil {
			chains = append(chains, c.res.CallChains(op)...)
		}
	}
	self := retrymodel.Shorten(c.pass.Fset, l.Pos)
	for _, ch := range chains {
		ls := ch.Nesting()
		if len(ls) == 0 || ls[0].Posn != self || len(ch.Via) == 0 {
			continue
		}
		each := "a new retry"
		if n, ok := l.Attempts(); ok {
			each = fmt.Sprintf("a new retry of up to %d attempts", n)
		}
		msg := fmt.Sprintf("%s at %s runs again inside its own attempts (through %s): each failed attempt starts %s before this one waits, so attempts multiply with every level and nothing bounds the depth; let the operation return its error and retry at one place",
			l.Name, self, strings.Join(ch.Via, ", "), each)
		c.pass.Report(analysis.Diagnostic{Pos: l.Pos, End: end(l), Category: "reentry", Message: msg})
		return true
	}
	return false
}
