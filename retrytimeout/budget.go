package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
	"time"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// overBudget reports a schedule whose known waits exceed the retry's own
// overall limit (MaxElapsedTime, a context timeout set in the same
// function): the last attempts can never start. Attempts are counted as
// failing at once, so the attempt named is the last that can start even in
// the best case.
func (c *checker) overBudget(l *retrymodel.Layer) {
	pol := &l.Policy
	budget := pol.MaxElapsed
	if !budget.Known || budget.D <= 0 {
		return
	}
	n, ok := l.Attempts()
	if !ok || n < 2 || c.manyWaits(l) {
		return // several waits for different times: the schedule is not one list
	}
	// start[k] is when attempt k+1 starts.
	ws := pol.Waits
	if int64(len(ws)) > n-1 {
		ws = ws[:n-1]
	}
	var start time.Duration
	last := int64(1)
	for i, w := range ws {
		start += w
		if start > budget.D {
			break
		}
		last = int64(i) + 2
	}
	if last >= n {
		return
	}
	if start <= budget.D {
		return // the known waits fit; the rest are not known
	}
	need := sum(ws)
	needText := fmtDur(need)
	if int64(len(ws)) < n-1 {
		needText = "more than " + needText
	}
	jit := ""
	if pol.Jitter == retrymodel.Yes {
		jit = " before jitter"
	}
	src := "its elapsed limit"
	switch {
	case budget.Default:
		src = "its default elapsed limit"
	case c.isContextTimeout(budget.Pos):
		src = "the context timeout"
	}
	if budget.Pos.IsValid() {
		src += " set at " + c.short(budget.Pos)
	}
	lastStart := sum(ws[:last-1])
	msg := fmt.Sprintf("schedule longer than its budget: %s is set for %d attempts with waits %s%s, %s in all, but %s is %s: attempt %d is the last that can start (at %s, even if every attempt fails at once), so attempts %d to %d never run; make it %d attempts or give it a budget above %s",
		describe(l), n, waitList(ws), jit, needText, src, fmtDur(budget.D), last, fmtDur(lastStart), last+1, n, last, needText)
	if last+1 == n {
		msg = fmt.Sprintf("schedule longer than its budget: %s is set for %d attempts with waits %s%s, %s in all, but %s is %s: attempt %d is the last that can start (at %s, even if every attempt fails at once), so attempt %d never runs; make it %d attempts or give it a budget above %s",
			describe(l), n, waitList(ws), jit, needText, src, fmtDur(budget.D), last, fmtDur(lastStart), n, last, needText)
	}
	pos := pol.Attempts.Pos
	if !pos.IsValid() {
		pos = l.Pos
	}
	c.report(pos, "over-budget", msg, nil)
}

// isContextTimeout reports whether pos is a context.WithTimeout or
// WithDeadline call.
func (c *checker) isContextTimeout(pos token.Pos) bool {
	if !pos.IsValid() {
		return false
	}
	found := false
	for _, f := range c.pass.Files {
		if f.FileStart > pos || pos > f.FileEnd {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if found || n == nil || n.Pos() > pos || n.End() <= pos {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok && call.Pos() == pos {
				if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" && strings.HasPrefix(fn.Name(), "With") {
					found = true
				}
			}
			return true
		})
	}
	return found
}
