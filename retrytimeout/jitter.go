package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
	"time"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// noJitter reports a layer whose waits have no random part: a hand-rolled
// wait that is a fixed function of the attempt, or a library configured
// (or defaulting) to waits without jitter. Layers that do not wait at all
// are left alone: their problem is not synchronisation.
func (c *checker) noJitter(l *retrymodel.Layer) {
	pol := &l.Policy
	if pol.ConflictOnly.IsValid() {
		return // a conflict retry spreads no crowd of failed clients
	}
	// The waits a func field computes by default (a constructor's
	// backoffFunc: ExponentialBackoff(2, 500ms)), when nothing else folds:
	// the schedule every client the package's constructor builds runs,
	// unless its caller hands it another function.
	byDefault := len(pol.Waits) == 0 && pol.DefaultFuncAt.IsValid() && !pol.DefaultSpread && len(pol.DefaultWaits) > 0
	if byDefault {
		if pol.Jitter == retrymodel.Yes {
			return
		}
	} else if pol.Jitter == retrymodel.Unknown && len(pol.Waits) == 0 {
		// Waits folded from production values are a fixed function of
		// the attempt: no random part.
		if _, _, ok := c.prodWaits(l); !ok {
			return
		}
	} else if pol.Jitter != retrymodel.No {
		return
	}
	// A library default assumed because the client's construction was not
	// found (a client handed in, a receiver) may well be configured with
	// jitter elsewhere: say nothing rather than guess.
	if pol.Assumed {
		return
	}
	// A herd forms against a shared remote service; a local lock or file
	// retried in step synchronises nobody else.
	if !c.remote(l) {
		return
	}
	if c.manyWaits(l) {
		c.noJitterChoices(l)
		return
	}
	var ws []time.Duration
	for _, w := range pol.Waits {
		if w > 0 {
			ws = append(ws, w)
		}
	}
	known := pol.WaitsKnown
	// Waits not folded, but with no random part by data flow: the
	// schedule of clients the server sent no Retry-After, or one value
	// set at construction and waited every time.
	hintless, fixed := false, ""
	if len(ws) == 0 && pol.Jitter == retrymodel.No {
		switch {
		case len(pol.HintlessWaits) > 0:
			for _, w := range pol.HintlessWaits {
				if w > 0 {
					ws = append(ws, w)
				}
			}
			hintless = len(ws) > 0
			known = hintless && len(ws) == len(pol.HintlessWaits)
		case pol.FixedWait != "":
			// A package variable tests reassign keeps its production
			// value, and that value is judged (prodwaits.go).
			if pw, _, ok := c.prodWaits(l); ok {
				ws, known = pw, true
			} else {
				fixed = pol.FixedWait
			}
		}
	}
	if len(ws) == 0 && fixed == "" && byDefault {
		ws, known = pol.DefaultWaits, true
	}
	if len(ws) == 0 && fixed == "" {
		if ws, _, known = c.prodWaits(l); !known {
			return // no wait between attempts, or waits not known to be positive
		}
	}
	if known {
		var total time.Duration
		for _, w := range ws {
			total += w
		}
		if total < minWorthBounding {
			return // a few milliseconds apart: the herd is not the problem
		}
	}
	// A constant interval on a context that can never be done, with
	// nothing cancellable in scope, is a process's start-up wait for its
	// dependency (a constructor asking its database on Background until it
	// answers): a readiness poll, not a retry of a caller's request.
	if never, live := c.neverCancelled(l); never && !live && fixed == "" && allEqual(ws) {
		return
	}
	// Unbounded retries at a constant interval are polls (waiting for a
	// server to come up, a lock to free): report bounded retries, and
	// unbounded ones whose waits grow (reconnect backoff).
	if n, ok := l.Attempts(); ok {
		if n < 2 {
			return
		}
	} else if a := pol.Attempts; fixed != "" && !(a.Set && !a.Known) {
		return // a constant wait, unbounded: a poll
	} else if fixed == "" && allEqual(ws) {
		return
	}
	pos := pol.JitterPos
	if byDefault {
		pos = pol.DefaultFuncAt // where the default is set: the place to change it
	}
	if !pos.IsValid() {
		pos = c.waitPos(l)
	}
	if !pos.IsValid() {
		pos = l.Pos
	}
	list, _ := shownWaits(l)
	if len(pol.Waits) == 0 {
		list = waitList(ws) // production values of what tests reassign
	}
	what := "waits " + list
	switch {
	case byDefault:
		list, _, _ = shownDefaultWaits(l)
		what = fmt.Sprintf("waits %s by default (the function set at %s, which the caller may replace)", list, c.short(pol.DefaultFuncAt))
	case hintless:
		list = waitList(ws)
		if n, ok := l.Attempts(); ok && int64(len(ws)) > n-1 {
			list = waitList(ws[:n-1])
		}
		what = "waits " + list + " (when the server sends no Retry-After)"
	case fixed != "":
		what = "waits the same " + fixed + " before every attempt"
	}
	if _, counted := l.Attempts(); !counted {
		if a := pol.Attempts; a.Known && a.N == 0 {
			what += " (unbounded attempts)"
		} else {
			what += " (as many as its attempts, whose number is not known statically)"
		}
	}
	if sched := schedule(l); sched != "" && !strings.HasPrefix(sched, "waits ") && !strings.HasPrefix(sched, "constant ") {
		what += " (" + sched + ")"
	}
	msg := fmt.Sprintf("no jitter: %s %s with no random part, so clients that failed together retry together and hit the recovering service at the same instants; %s",
		describe(l), what, jitterAdvice(l))
	c.report(pos, "no-jitter", msg, nil)
}

// jitterAdvice names the edit for each kind of layer.
func jitterAdvice(l *retrymodel.Layer) string {
	name := l.Name
	switch {
	case l.Kind == retrymodel.Loop:
		return "draw each wait at random, e.g. full jitter: time.Duration(rand.Int64N(int64(d)))"
	case strings.HasPrefix(name, "backoff."):
		return "leave RandomizationFactor at its default 0.5 (any value above 0 adds jitter)"
	case strings.HasPrefix(name, "go-retry"):
		return "wrap the backoff in retry.WithFullJitter or retry.WithJitterPercent"
	case strings.HasPrefix(name, "retry.Do"):
		return "add retry.RandomDelay to the DelayType (retry.CombineDelay(retry.BackOffDelay, retry.RandomDelay)) or use retry.FullJitterBackoffDelay"
	case strings.HasPrefix(name, "wait.") || strings.HasPrefix(name, "retry.OnError") || strings.HasPrefix(name, "retry.RetryOnConflict"):
		return "set the wait.Backoff's Jitter (0.5 spreads each wait over 1x-1.5x)"
	case strings.HasPrefix(name, "failsafe "):
		return "add WithJitterFactor(0.5) to the retry policy's builder"
	case strings.Contains(name, "retryablehttp"):
		return "set Backoff to retryablehttp.RateLimitLinearJitterBackoff (jittered, and still reads Retry-After on 429/503)"
	}
	return "add a random part to each wait (full jitter: a wait drawn uniformly from 0 to the backoff)"
}

// waitPos is where a loop's wait is written: the timer case of a select
// rather than the select, the call itself otherwise.
func (c *checker) waitPos(l *retrymodel.Layer) token.Pos {
	pos := l.Policy.WaitPos
	for _, w := range l.Waits {
		sel, ok := w.(*ast.SelectStmt)
		if !ok || sel.Pos() != pos {
			continue
		}
		for _, cl := range sel.Body.List {
			if cc, ok := cl.(*ast.CommClause); ok && cc.Comm != nil && c.isTimerRecv(cc.Comm) {
				return cc.Comm.Pos()
			}
		}
	}
	return pos
}

func allEqual(ws []time.Duration) bool {
	for _, w := range ws {
		if w != ws[0] {
			return false
		}
	}
	return true
}

// noJitterChoices is noJitter for a loop that waits at several places:
// reported when every wait is one of a few constants, with the choices.
func (c *checker) noJitterChoices(l *retrymodel.Layer) {
	ds, ok := c.waitChoices(l)
	if !ok || ds[len(ds)-1] <= 0 {
		return
	}
	n, counted := l.Attempts()
	if !counted || n < 2 {
		return
	}
	if mostWaiting(n, ds) < minWorthBounding {
		return
	}
	pos := c.waitPos(l)
	if !pos.IsValid() {
		pos = l.Pos
	}
	msg := fmt.Sprintf("no jitter: %s waits %s (at %d places) with no random part, so clients that failed together retry together and hit the recovering service at the same instants; %s",
		describe(l), choiceList(ds), len(l.Waits), jitterAdvice(l))
	c.report(pos, "no-jitter", msg, nil)
}
