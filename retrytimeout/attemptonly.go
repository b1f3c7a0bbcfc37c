package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// minWorthBounding is the total of known waits up to which an attempt
// count is bound enough: client-go's retry.DefaultRetry waits about 50ms in
// all, and a wall-clock check would not change what the caller sees.
const minWorthBounding = time.Second

// attemptOnly returns the clause describing an attempt-only retry, or ""
// when the layer has a wall-clock bound (a deadline check, an elapsed
// limit, a guard), is unbounded (a worker, not an attempt count), or its
// waits total too little to matter.
//
// Only hand-rolled loops and retry libraries are judged: retrying clients
// and SDKs wait on the request's context by construction.
func (c *checker) attemptOnly(l *retrymodel.Layer) string {
	if l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library {
		return ""
	}
	n, ok := l.Attempts()
	if !ok || n < 2 {
		return ""
	}
	pol := &l.Policy
	if pol.DeadlineAware != retrymodel.No || hasLimit(pol.MaxElapsed) || pol.Guard != nil {
		return ""
	}
	// Each attempt first calls with the caller's ctx and stops the retry
	// when that call fails: a done ctx ends the retry within one wait.
	if pol.CtxEnds.IsValid() {
		return ""
	}
	// Nothing that can be done is in scope (no context, no request, no
	// done channel), or the retry is bound on purpose to a context that
	// can never be done (backoff.WithContext(b, context.Background()), a
	// constructor's start-up wait for its database on Background): no
	// caller's deadline reaches this code to be overrun, and a retry off
	// every request path (a command's upload, a worker's own loop) may
	// take its time; seed 001: "a background job can wait a minute".
	if _, live := c.res.CancelSource(l, l.Pos); !live {
		return ""
	}
	if l.Kind == retrymodel.Library && l.Context != nil && c.res.NeverDone(l.Context, nil) {
		return ""
	}
	// A retry that runs only once its context is done (a rollback under
	// if ctx.Err() != nil) has no caller's deadline left to overrun.
	if c.errSetOnly(l.Node) {
		return ""
	}
	// Without a wait between attempts the retry spends only the attempts'
	// own time, which the operation's context bounds; nothing waits past
	// the caller's deadline.
	if !waits(l) {
		return ""
	}
	if c.manyWaits(l) {
		if ds, ok := c.waitChoices(l); ok {
			most := mostWaiting(n, ds)
			if most <= minWorthBounding {
				return ""
			}
			return fmt.Sprintf("%s makes %d attempts, each wait %s (it waits at %d places), and nothing bounds it in time: up to %s of waiting plus the %d attempts, whatever the caller's deadline",
				describe(l), n, choiceList(ds), len(l.Waits), fmtDur(most), n)
		}
		return fmt.Sprintf("%s makes %d attempts and nothing bounds it in time (it waits at %d places, for different times): it keeps waiting and retrying after the caller has given up",
			describe(l), n, len(l.Waits))
	}
	ws, ok := knownWaits(l)
	last := time.Duration(0) // the wait after the last failure, when the loop has one
	if ok {
		last = pol.LastWait
	} else {
		ws, last, ok = c.prodWaits(l)
	}
	if ok {
		// The floor reads the schedule between attempts; the wait after
		// the last failure is in the worst case the message gives.
		if sum(ws) <= minWorthBounding {
			return ""
		}
		total := sum(ws) + last
		list := waitList(ws)
		if last > 0 {
			list += fmt.Sprintf(", then %s after the last failure,", fmtDur(last))
		}
		s := fmt.Sprintf("%s makes %d attempts with waits %s and nothing bounds it in time: worst case %s of waiting", describe(l), n, list, fmtDur(total))
		if pol.Jitter == retrymodel.Yes {
			s += " before jitter"
		}
		if pa := pol.PerAttempt; pa.Known && pa.D > 0 {
			s += fmt.Sprintf(" plus %d attempts of up to %s each (%s in all)", n, fmtDur(pa.D), fmtDur(total+time.Duration(n)*pa.D))
		} else {
			s += fmt.Sprintf(" plus the %d attempts", n)
		}
		return s + ", whatever the caller's deadline"
	}
	if len(pol.Waits) == 0 {
		// The model could not lay the schedule out, but each wait may
		// still be one of a few constants (a switch on the attempt).
		if ds, ok := c.waitChoices(l); ok {
			most := time.Duration(n-1) * ds[len(ds)-1]
			if most <= minWorthBounding {
				return ""
			}
			if pol.WaitsAfterLast {
				most += ds[len(ds)-1] // it waits after the last failure too
			}
			return fmt.Sprintf("%s makes %d attempts, each wait %s, and nothing bounds it in time: up to %s of waiting plus the %d attempts, whatever the caller's deadline",
				describe(l), n, choiceList(ds), fmtDur(most), n)
		}
	}
	s := fmt.Sprintf("%s makes %d attempts and nothing bounds it in time", describe(l), n)
	if len(pol.Waits) > 0 {
		// A known prefix: the schedule is listed up to a limit.
		ws := pol.Waits
		if int64(len(ws)) > n-1 {
			ws = ws[:n-1]
		}
		if d, ok := c.constWait(l); ok && allEqual(ws) && ws[0] == d {
			// One wait of a constant duration: the prefix listed is the
			// whole schedule's pattern, and the total is exact.
			if time.Duration(n-1)*d <= minWorthBounding {
				return ""
			}
			k, after := n-1, ""
			if pol.WaitsAfterLast {
				k, after = n, " (one after the last failure)"
			}
			s += fmt.Sprintf(": %d waits of %s%s add up to %s", k, fmtDur(d), after, fmtDur(time.Duration(k)*d))
			return s + ", whatever the caller's deadline"
		}
		s += fmt.Sprintf(": waits %s, ... add up to more than %s", waitList(ws), fmtDur(sum(ws)))
		if sched := schedule(l); sched != "" {
			s += " (" + sched + ")"
		}
		return s + ", whatever the caller's deadline"
	}
	if sched := schedule(l); sched != "" {
		s += " (" + sched + ")"
	}
	return s + ": it keeps waiting and retrying after the caller has given up"
}

// constWait returns the duration of l's one wait when it is a time.Sleep
// or time.After whose argument folds to a constant (nothing the loop
// changes): every wait of the schedule is that duration, beyond the
// prefix the model lists.
func (c *checker) constWait(l *retrymodel.Layer) (time.Duration, bool) {
	if len(l.Waits) != 1 || c.res.Folder == nil {
		return 0, false
	}
	var call *ast.CallExpr
	switch n := l.Waits[0].(type) {
	case *ast.CallExpr:
		call = n
	case *ast.UnaryExpr:
		call, _ = astutil.Unparen(n.X).(*ast.CallExpr)
	case *ast.ExprStmt:
		call, _ = astutil.Unparen(n.X).(*ast.CallExpr)
	}
	if call == nil || len(call.Args) != 1 {
		return 0, false
	}
	fn, ok := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "time" || fn.Name() != "Sleep" && fn.Name() != "After" {
		return 0, false
	}
	return c.res.Folder.Duration(call.Args[0])
}

// attemptOnlyAdvice is the edit for an attempt-only retry.
const attemptOnlyAdvice = "check ctx.Err() or the time left (ctx.Deadline) before each wait, or give the retry an overall limit"

// hasLimit reports whether an elapsed limit bounds the retry: set to a
// positive or unknown value. backoff's MaxElapsedTime = 0 means no limit.
func hasLimit(v retrymodel.Value) bool {
	return v.Set && (!v.Known || v.D > 0)
}

// waits reports whether the layer waits between attempts: a wait the model
// found in a loop, or a positive wait in its schedule.
func waits(l *retrymodel.Layer) bool {
	if l.Kind == retrymodel.Loop {
		return len(l.Waits) > 0
	}
	for _, w := range l.Policy.Waits {
		if w > 0 {
			return true
		}
	}
	return len(l.Policy.Waits) == 0 && l.Policy.Schedule != "" && !strings.HasPrefix(l.Policy.Schedule, "no wait")
}

// neverCancelled reports whether l is bound to a context that can never be
// done (context.Background(), a constructor's own), and whether something
// that can be cancelled is nonetheless in scope (live): with nothing live,
// no caller's deadline reaches the retry.
func (c *checker) neverCancelled(l *retrymodel.Layer) (never, live bool) {
	if l.Context == nil || !c.res.NeverDone(l.Context, nil) {
		return false, false
	}
	_, live = c.res.CancelSource(l, l.Pos)
	return true, live
}
