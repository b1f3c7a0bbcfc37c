package retrymodel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// ---- github.com/buildkite/roko (v1.4.0) ----
//
// NewRetrier(opts...) builds a *Retrier: WithMaxAttempts(n) is the number
// of attempts in all, TryForever() has no bound (NewRetrier panics without
// one of the two). WithStrategy(Constant(d)) waits d;
// WithStrategy(Exponential(base, adj)) waits adj + base^k seconds and
// WithStrategy(ExponentialSubsecond(initial)) initial_ms^(k/16+1) ms, k
// the attempts made before the one that failed (0 for the first wait).
// WithJitter adds up to 1s at random, WithJitterRange(min, max) up to
// max-min. (*Retrier).Do(cb) runs on context.Background();
// DoWithContext(ctx, cb) and DoFunc, DoFunc2, DoFunc3(ctx, r, cb) wait in
// a select on ctx.Done(), a WithSleepFunc sleep included. In the callback,
// r.Break() makes the error it returns final; r.SetNextInterval(d) sets
// the next wait (a server's hint).
const pkgRoko = "github.com/buildkite/roko"

// rokoPolicy is a *roko.Retrier followed to its NewRetrier.
type rokoPolicy struct {
	known    bool
	pos      token.Pos
	attempts Value
	kind     string // constant, exponential, subsecond; "" when not set
	a, b     Value  // constant d; exponential base, adj; subsecond initial
	jitter   Tri
	jitPos   token.Pos
}

func (p *callCtx) rokoLayer(call *ast.CallExpr, fn *types.Func) *Layer {
	var recv, ctx, cb ast.Expr
	switch {
	case fn.Name() == "Do" && RecvName(fn) == "Retrier" && len(call.Args) == 1:
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		recv, cb = sel.X, call.Args[0]
	case fn.Name() == "DoWithContext" && RecvName(fn) == "Retrier" && len(call.Args) == 2:
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		recv, ctx, cb = sel.X, call.Args[0], call.Args[1]
	case (fn.Name() == "DoFunc" || fn.Name() == "DoFunc2" || fn.Name() == "DoFunc3") && RecvName(fn) == "" && len(call.Args) == 3:
		ctx, recv, cb = call.Args[0], call.Args[1], call.Args[2]
	default:
		return nil
	}
	l := &Layer{Kind: Library, Name: "roko " + fn.Name()}
	p.setOperation(l, cb)
	breaks := func(c *ast.CallExpr) bool { return EndsRetry(p.info, c) }
	if p.pollBody(l.Body, breaks, nil) {
		return nil
	}
	pol := &l.Policy
	if ctx != nil {
		l.Context = ctx
		pol.DeadlineAware, pol.DeadlinePos, pol.WaitCancellable = Yes, ctx.Pos(), Yes
	} else {
		pol.DeadlineAware, pol.WaitCancellable = No, No
		pol.BindWith = "roko.DoWithContext"
	}
	pol.RetryAfter = No
	if c := p.findCallDeep(l.Body, l.OpFuncs, pkgRoko, "SetNextInterval"); c != nil {
		pol.RetryAfter = Unknown // a wait the callback sets, maybe from a hint
	}
	if c := p.findMethodCall(l.Body, breaks); c != nil {
		pol.Classifier = c
	}
	r := p.resolveRoko(recv)
	if !r.known {
		pol.Attempts = unknownVal(call.Pos())
		pol.Schedule = "unknown retrier"
		return l
	}
	pol.Attempts = r.attempts
	pol.Jitter, pol.JitterPos = r.jitter, r.jitPos
	pol.WaitPos = r.pos
	n := waitCount(pol.Attempts)
	switch r.kind {
	case "constant":
		if r.a.Known {
			pol.Schedule = "constant " + fd(r.a.D)
			pol.Waits = constWaits(r.a.D, n)
		}
	case "exponential":
		if r.a.Known && r.b.Known {
			pol.Schedule = fmt.Sprintf("exponential %s + %ds^k", fd(r.b.D), int(r.a.D/time.Second))
			for k := 0; k < n; k++ {
				s := math.Pow(float64(r.a.D/time.Second), float64(k))
				pol.Waits = append(pol.Waits, r.b.D+time.Duration(min(s, 1e9))*time.Second)
			}
		}
	case "subsecond":
		if r.a.Known {
			pol.Schedule = "exponential " + fd(r.a.D) + "^(k/16+1)"
			for k := 0; k < n; k++ {
				ms := math.Pow(float64(r.a.D/time.Millisecond), float64(k)/16+1)
				pol.Waits = append(pol.Waits, time.Duration(min(ms, 1e12))*time.Millisecond)
			}
		}
	default:
		pol.Schedule = "no strategy"
	}
	pol.WaitsKnown = len(pol.Waits) > 0 && pol.Attempts.Known
	return l
}

// findMethodCall returns the first call in root that match accepts.
func (p *callCtx) findMethodCall(root ast.Node, match func(*ast.CallExpr) bool) *ast.CallExpr {
	var found *ast.CallExpr
	if root == nil {
		return nil
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && found == nil && match(c) {
			found = c
		}
		return found == nil
	})
	return found
}

// resolveRoko follows a retrier to the NewRetrier call that made it and
// reads its options.
func (p *callCtx) resolveRoko(e ast.Expr) rokoPolicy {
	var r rokoPolicy
	x, _ := p.origin(e)
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return r
	}
	if fn, path := p.callee(call); path != pkgRoko || fn.Name() != "NewRetrier" {
		return r
	}
	r = rokoPolicy{known: true, pos: call.Pos(), jitter: No, jitPos: call.Pos()}
	if call.Ellipsis.IsValid() {
		return rokoPolicy{}
	}
	for _, o := range call.Args {
		oc, ok := astutil.Unparen(o).(*ast.CallExpr)
		if !ok {
			return rokoPolicy{}
		}
		ofn, path := p.callee(oc)
		if path != pkgRoko {
			return rokoPolicy{}
		}
		switch ofn.Name() {
		case "WithMaxAttempts":
			r.attempts = p.intVal(oc.Args[0])
		case "TryForever":
			r.attempts = Value{Set: true, Known: true, N: 0, Pos: oc.Pos()}
		case "WithJitter", "WithJitterRange":
			r.jitter, r.jitPos = Yes, oc.Pos()
		case "WithStrategy":
			r.pos = oc.Pos()
			sc, ok := astutil.Unparen(oc.Args[0]).(*ast.CallExpr)
			if !ok || len(oc.Args) != 1 {
				r.kind = "unknown"
				continue
			}
			sfn, spath := p.callee(sc)
			if spath != pkgRoko {
				r.kind = "unknown"
				continue
			}
			switch sfn.Name() {
			case "Constant":
				r.kind, r.a = "constant", p.durVal(sc.Args[0])
			case "Exponential":
				r.kind, r.a, r.b = "exponential", p.durVal(sc.Args[0]), p.durVal(sc.Args[1])
			case "ExponentialSubsecond":
				r.kind, r.a = "subsecond", p.durVal(sc.Args[0])
			default:
				r.kind = "unknown"
			}
		}
	}
	if !r.attempts.Set {
		return rokoPolicy{} // NewRetrier panics: not a retrier that runs
	}
	return r
}

// EndsRetry reports a call, made in a retried operation, that makes the
// error the operation returns next final: roko's (*Retrier).Break. The
// library layer takes it for the classifier; retrystatus's walk, for a
// give-up on the path that makes it.
func EndsRetry(info *types.Info, call *ast.CallExpr) bool {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkgRoko && fn.Name() == "Break" && RecvName(fn) == "Retrier"
}
