package retrytimeout

import (
	"fmt"
	"go/types"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// stillCounter reports a retry loop whose for clause tests a count the
// function never changes (retries := 0; for retries < 5 { ... } with no
// retries++): the test reads as a bound, but the loop goes round for as
// long as the operation fails, until a branch returns (hatchet's
// Workflow.Result, fix fd45bb3).
func (c *checker) stillCounter(l *retrymodel.Layer) {
	b := l.Policy.StillCounter
	if b == nil {
		return
	}
	name := b.X
	if tv, ok := c.pass.TypesInfo.Types[b.X]; ok && tv.Value != nil {
		name = b.Y // 5 > retries
	}
	wait := ""
	if len(l.Policy.Waits) > 0 {
		ws, _ := shownWaits(l)
		wait = " (waits " + ws + ")"
	}
	msg := fmt.Sprintf("%s tests %s but never changes %s: the count never ends it, so it retries for as long as the operation fails%s; step %s on each attempt",
		describe(l), types.ExprString(b), types.ExprString(name), wait, types.ExprString(name))
	c.report(b.Pos(), "still-counter", msg, nil)
}
