package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/types"
	"time"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// perAttemptBelowP99 reports a per-attempt timeout (a context.WithTimeout
// inside the retried region, an http.Client Timeout, an SDK request
// timeout) shorter than the p99 declared with //retryvet:p99 on the
// function the retry calls: every slow call times out and is sent again
// while the server still works on the first.
func (c *checker) perAttemptBelowP99(l *retrymodel.Layer) {
	pa := l.Policy.PerAttempt
	if !pa.Known || pa.D <= 0 {
		return
	}
	fn, p99, src := c.slowestCallee(l)
	if p99 <= pa.D {
		return
	}
	pos := pa.Pos
	if !pos.IsValid() {
		pos = l.Pos
	}
	callee := "the remote call"
	if fn != nil {
		callee = retrymodel.FuncName(fn)
	}
	attempts := ""
	if n, ok := l.Attempts(); ok {
		attempts = fmt.Sprintf(" (on all %d attempts)", n)
	}
	msg := fmt.Sprintf("per-attempt timeout below p99: each attempt of %s gets %s but %s has a p99 of %s (%s): every slow call times out%s, and each retry lands while the server still works on the one before; set the timeout above the p99 with headroom (e.g. %s)",
		describe(l), fmtDur(pa.D), callee, fmtDur(p99), src, attempts, fmtDur(headroom(p99)))
	c.report(pos, "timeout-below-p99", msg, nil)
}

// headroom suggests a timeout: p99 plus half, rounded up to a second when
// above one.
func headroom(p99 time.Duration) time.Duration {
	d := p99 + p99/2
	if d >= time.Second {
		d = (d + time.Second - 1).Truncate(time.Second)
	}
	return d
}

// slowestCallee finds the largest p99 among the functions the layer
// repeats: its operations, the functions handed to it by name, and the
// calls in its retried region. A function without a directive takes the
// default p99 setting only when the layer is known to be remote.
func (c *checker) slowestCallee(l *retrymodel.Layer) (*types.Func, time.Duration, string) {
	var best *types.Func
	var bestD time.Duration
	var bestSrc string
	consider := func(fn *types.Func) {
		if fn == nil {
			return
		}
		ff := c.res.Func(fn)
		if ff == nil || ff.P99 == 0 {
			return
		}
		if d, src := ff.EffectiveP99(); d > bestD {
			best, bestD, bestSrc = fn, d, "//retryvet:p99 at "+src
		}
	}
	for _, op := range l.Ops {
		consider(typeutil.StaticCallee(c.pass.TypesInfo, op))
	}
	for _, fn := range l.OpFuncs {
		consider(fn)
	}
	if l.Body != nil {
		ast.Inspect(l.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				consider(typeutil.StaticCallee(c.pass.TypesInfo, call))
			}
			return true
		})
	}
	if best == nil && c.remote(l) {
		if d := retrymodel.DefaultP99(); d > 0 {
			return nil, d, retrymodel.DefaultP99Source
		}
	}
	return best, bestD, bestSrc
}
