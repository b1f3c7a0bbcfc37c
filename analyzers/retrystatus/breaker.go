package retrystatus

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file holds the breaker check: a circuit breaker is a classifier
// too, of which errors are the dependency's. A breaker that counts every
// error (gobreaker with neither IsSuccessful nor IsExcluded, failsafe-go
// with no Handle condition, go-resiliency, hystrix.Do, which is given no
// context) guarding an operation on the caller's context fails calls that
// were healthy whenever a caller gives up (a closed browser tab, a short
// queue deadline), and a few of them open the breaker for every caller:
// the primary is switched off because some callers were impatient (seed
// 000).
//
// Quiet: breakers with a condition of their own (whatever it excludes: a
// classifier that counts only transient failures is the point), hystrix
// and mercari given the caller's context (they leave its end out), an
// operation that makes no remote call or runs on a context of its own
// (context.Background, or none), and breakers whose settings come from
// elsewhere.

// breakers reports the package's breakers that count a caller's
// cancellation as a failure of the dependency.
func (ck *checker) breakers() {
	seen := map[*retrymodel.Breaker]bool{} // one finding per breaker
	for _, bc := range ck.res.BreakerCalls() {
		b := bc.Breaker
		if !b.CountsAll || bc.Op == nil || seen[b] || ck.inTest(bc.Call.Pos()) {
			continue
		}
		ctx, ok := ck.res.CallerContext(bc.Op, bc.Func)
		if !ok || !ck.res.Remote(bc.Op.Body) && !ck.res.CallsOnward(bc.Op.Body) || ck.res.KeepsCtxErrsOut(bc.Op) {
			continue
		}
		if bc.Ctx != nil && b.SeesCtx {
			if _, given := ck.res.CallerContext(bc.Ctx, bc.Func); given {
				continue // the breaker sees the caller's context end itself
			}
		}
		seen[b] = true
		call := "makes its remote call"
		if !ck.res.Remote(bc.Op.Body) {
			call = "runs the stage it guards" // a middleware's next(ctx, req)
		}
		msg, fix := ck.breakerMessage(bc, ctx, call)
		d := analysis.Diagnostic{
			Pos:      bc.Call.Pos(),
			End:      bc.Call.End(),
			Category: "breaker-counts-cancel",
			Message:  msg,
		}
		if b.New != nil {
			d.Related = []analysis.RelatedInformation{{Pos: b.New.Pos(), Message: "breaker built here"}}
		}
		if fix != nil {
			d.SuggestedFixes = []analysis.SuggestedFix{*fix}
		}
		ck.pass.Report(d)
	}
}

// breakerMessage says, in the library's terms, why the breaker of bc
// counts the cancellation of ctx, and offers the fix where it is
// mechanical.
func (ck *checker) breakerMessage(bc retrymodel.BreakerCall, ctx, call string) (string, *analysis.SuggestedFix) {
	b := bc.Breaker
	name := "the breaker"
	if b.Name != "" {
		name = "breaker " + strconv.Quote(b.Name)
	}
	opens := "count toward its trip condition"
	switch {
	case b.Trip != "":
		opens = "open it after " + b.Trip + " (" + b.Lib + "'s default)"
	case b.TripAfter > 0:
		opens = fmt.Sprintf("open it after %d failures", b.TripAfter)
	}
	head := fmt.Sprintf("%s counts the caller's cancellation as a failure of the dependency: ", name)
	tail := fmt.Sprintf("callers that give up (context.Canceled, context.DeadlineExceeded) %s for every caller", opens)
	built := ""
	if at := b.Built(ck.pass.Fset); at != "" {
		built = " at " + at
	}
	switch b.Lib {
	case retrymodel.BreakerGobreaker:
		field := "IsExcluded"
		if !b.V2 {
			field = "IsSuccessful" // gobreaker v1 has no IsExcluded
		}
		tail = "callers that give up (context.Canceled, context.DeadlineExceeded) count toward its ReadyToTrip for every caller"
		if b.Trip != "" {
			tail = "callers that give up (context.Canceled, context.DeadlineExceeded) open it after " + b.Trip + " (gobreaker's default ReadyToTrip) for every caller"
		}
		if b.NoIsSuccessful {
			// gobreaker before v0.5 has no IsSuccessful: no field to set.
			msg := head + fmt.Sprintf("this Execute %s on %s, the caller's context, and this gobreaker counts every error (it has no IsSuccessful before v0.5), so %s; upgrade gobreaker and set %s to leave out context errors", call, ctx, tail, field)
			return msg, nil
		}
		msg := head + fmt.Sprintf("this Execute %s on %s, the caller's context, and the Settings%s set neither IsSuccessful nor IsExcluded, so %s; set %s to leave out context errors", call, ctx, built, tail, field)
		return msg, ck.gobreakerFix(b, field)
	case retrymodel.BreakerFailsafe:
		msg := head + fmt.Sprintf("this execution %s on %s, the caller's context, and the failsafe-go builder%s sets no Handle condition (HandleErrors, HandleErrorTypes, HandleIf), so every error counts and %s; add a HandleIf that leaves out context errors", call, ctx, built, tail)
		return msg, ck.failsafeFix(b)
	case retrymodel.BreakerHystrix:
		msg := head + fmt.Sprintf("this call %s on %s, the caller's context, without giving hystrix that context, so a cancelled request comes back as a wrapped error that hystrix counts (it leaves out only context.Canceled and DeadlineExceeded themselves, as DoC and GoC report them), so %s; call hystrix.DoC with the caller's context and run on the context it passes", call, ctx, tail)
		return msg, nil
	case retrymodel.BreakerMercari:
		given := "no context"
		if bc.Ctx != nil {
			given = types.ExprString(bc.Ctx)
		}
		msg := head + fmt.Sprintf("this Do is given %s while its operation %s on %s, the caller's context, so the breaker%s cannot tell a caller that gave up from a failing dependency: %s; give Do the caller's context", given, call, ctx, built, tail)
		return msg, ck.mercariFix(bc, ctx)
	default: // go-resiliency
		msg := head + fmt.Sprintf("this call %s on %s, the caller's context, and the breaker%s counts every error its work returns, so %s; keep context errors out of what the work returns", call, ctx, built, tail)
		return msg, nil
	}
}

// inTest reports a position in a _test.go file.
func (ck *checker) inTest(pos token.Pos) bool {
	f := ck.pass.Fset.File(pos)
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

// gobreakerFix adds the field to the Settings literal, when the literal's
// file imports context and errors under their own names.
func (ck *checker) gobreakerFix(b *retrymodel.Breaker, field string) *analysis.SuggestedFix {
	if b.Lit == nil || b.Lit.Rbrace == token.NoPos || !ck.importsCtxErrors(b.Lit.Pos()) {
		return nil
	}
	body := "errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)"
	if field == "IsSuccessful" {
		body = "err == nil || " + body
	}
	text := fmt.Sprintf("%s: func(err error) bool { return %s }", field, body)
	pos := b.Lit.Rbrace
	if n := len(b.Lit.Elts); n > 0 {
		last := b.Lit.Elts[n-1]
		pos = last.End() // before the trailing comma of a multi-line literal
		if p := ck.pass.Fset.Position(last.Pos()); p.Line != ck.pass.Fset.Position(b.Lit.Lbrace).Line {
			text = ",\n" + strings.Repeat("\t", p.Column-1) + text // gofmt'd: one tab per level
		} else {
			text = ", " + text
		}
	}
	return &analysis.SuggestedFix{
		Message:   "set " + field + " to leave out context errors",
		TextEdits: []analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte(text)}},
	}
}

// failsafeFix adds a HandleIf that leaves out context errors right after
// the builder's NewBuilder[R]().
func (ck *checker) failsafeFix(b *retrymodel.Breaker) *analysis.SuggestedFix {
	if b.Builder == nil || !ck.importsCtxErrors(b.Builder.Pos()) {
		return nil
	}
	ix, ok := b.Builder.Fun.(*ast.IndexExpr)
	if !ok {
		return nil
	}
	text := fmt.Sprintf(".\n\t\tHandleIf(func(_ %s, err error) bool {\n\t\t\treturn err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)\n\t\t})", types.ExprString(ix.Index))
	if ck.pass.Fset.Position(b.Builder.End()).Line == ck.pass.Fset.Position(b.New.End()).Line {
		text = fmt.Sprintf(".HandleIf(func(_ %s, err error) bool { return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) })", types.ExprString(ix.Index))
	}
	return &analysis.SuggestedFix{
		Message:   "count every error except the caller's cancellation",
		TextEdits: []analysis.TextEdit{{Pos: b.Builder.End(), End: b.Builder.End(), NewText: []byte(text)}},
	}
}

// mercariFix gives Do the caller's context instead of a root one.
func (ck *checker) mercariFix(bc retrymodel.BreakerCall, ctx string) *analysis.SuggestedFix {
	c, ok := bc.Ctx.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return nil
	}
	if s := types.ExprString(c.Fun); s != "context.Background" && s != "context.TODO" {
		return nil
	}
	return &analysis.SuggestedFix{
		Message:   "give Do the caller's context",
		TextEdits: []analysis.TextEdit{{Pos: c.Pos(), End: c.End(), NewText: []byte(ctx)}},
	}
}

// importsCtxErrors reports whether the file at pos imports context and
// errors under their own names, as the fixes' text needs.
func (ck *checker) importsCtxErrors(pos token.Pos) bool {
	for _, f := range ck.pass.Files {
		if f.Pos() <= pos && pos < f.End() {
			return importsAs(f, "context", "context") && importsAs(f, "errors", "errors")
		}
	}
	return false
}

// importsAs reports whether f imports path under the name name.
func importsAs(f *ast.File, path, name string) bool {
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p != path {
			continue
		}
		if imp.Name == nil || imp.Name.Name == name {
			return true
		}
	}
	return false
}

// breakersInRetry reports a breaker's Execute that a retry repeats, when
// the attempts of one request are enough failures in a row to open it: a
// retry of N attempts around a breaker that opens after K consecutive
// failures, N >= K (or a retry with no bound on its attempts). One caller
// whose request keeps failing then switches the dependency off for every
// caller. The Execute is the retried operation itself or in a function of
// the package the retried operation calls. Quiet when the retry runs
// inside Execute (one request counts once), when the attempts are fewer
// than the failures that open it, and when either is not known.
func (ck *checker) breakersInRetry() {
	calls := ck.res.BreakerCalls()
	if len(calls) == 0 {
		return
	}
	seen := map[*ast.CallExpr]bool{}
	// A helper's call (retryx.Do(func() error { return cb.Execute(...) }))
	// runs the breaker once per attempt of the helper's policy too.
	for _, l := range slices.Concat(ck.res.Layers, ck.res.HelperLayers) {
		if l.Body == nil || ck.inTest(l.Pos) {
			continue
		}
		n, bounded := l.Attempts()
		unbounded := l.Policy.Attempts.Known && l.Policy.Attempts.N == 0
		for _, bc := range calls {
			b := bc.Breaker
			if seen[bc.Call] || b.TripAfter == 0 || !(bounded && n >= b.TripAfter || unbounded) {
				continue
			}
			via, ok := ck.retriedExecute(l, bc)
			if !ok {
				continue
			}
			seen[bc.Call] = true
			name := "the breaker"
			if b.Name != "" {
				name = "breaker " + strconv.Quote(b.Name)
			}
			opens := fmt.Sprintf("%d failures", b.TripAfter)
			fewer := "make it need more failures to open than the retry makes"
			if b.Lib == retrymodel.BreakerGobreaker {
				opens = fmt.Sprintf("%d consecutive failures", b.TripAfter)
				fewer = "make ReadyToTrip need more failures than the retry makes"
			}
			if b.Trip != "" {
				opens = b.Trip
			}
			what := fmt.Sprintf("one request that fails all %d attempts is %d failures in a row", n, n)
			if unbounded {
				what = "one request that keeps failing is failures in a row with no bound"
				if me := l.Policy.MaxElapsed; me.Known && me.D > 0 {
					what = fmt.Sprintf("one request that keeps failing is failures in a row with no bound on their count for up to %v", me.D)
				}
			}
			msg := fmt.Sprintf("%s counts every attempt of the %s at %s%s as a failure: %s, and it opens after %s, so one caller's failing request switches the dependency off for every caller; run the retry inside the breaker's call so that a request counts once, or %s",
				name, l.Name, ck.short(l.Pos), via, what, opens, fewer)
			related := []analysis.RelatedInformation{{Pos: l.Pos, Message: "the retry"}}
			if b.New != nil {
				related = append(related, analysis.RelatedInformation{Pos: b.New.Pos(), Message: "breaker built here"})
			}
			ck.pass.Report(analysis.Diagnostic{
				Pos:      bc.Call.Pos(),
				End:      bc.Call.End(),
				Category: "breaker-in-retry",
				Message:  msg,
				Related:  related,
			})
		}
	}
}

// retriedExecute reports whether the layer retries the breaker call: it
// is one of the layer's operations, in a closure held in a local variable
// an operation calls, or in the declaration of a package function an
// operation calls (via names it).
func (ck *checker) retriedExecute(l *retrymodel.Layer, bc retrymodel.BreakerCall) (string, bool) {
	if bc.InRetry && l.Node == bc.Call {
		return " (a retry policy composed outside the breaker)", true
	}
	for _, op := range l.Ops {
		if op == bc.Call {
			return "", true
		}
		if lit := ck.res.ClosureCalled(op); lit != nil && lit.Pos() <= bc.Call.Pos() && bc.Call.End() <= lit.End() {
			return "", true // operation := func() error { ...Execute... }; retry.Do(func() error { return operation() })
		}
		fn := ck.res.Callee(op)
		if fn == nil {
			continue
		}
		if d := ck.res.Decl(fn); d != nil && d.Body != nil && d.Pos() <= bc.Call.Pos() && bc.Call.End() <= d.End() {
			return " (through " + fn.Name() + ")", true
		}
	}
	return "", false
}

// handBreakers reports a remote call on the caller's context whose every
// error a hand-rolled breaker of the package counts: a caller that gives
// up is a failure of the dependency, and the count that opens the breaker
// for every caller is reached by impatient callers.
func (ck *checker) handBreakers() {
	seen := map[*types.Var]bool{} // one finding per counter
	for _, hc := range ck.res.HandCounts() {
		if seen[hc.Field] || ck.inTest(hc.Count.Pos()) {
			continue
		}
		seen[hc.Field] = true
		opens := "the bound " + types.ExprString(hc.Trip)
		if hc.Past {
			opens = "one failure past " + types.ExprString(hc.Trip)
		}
		if hc.TripAfter > 0 {
			opens = fmt.Sprintf("%d failures", hc.TripAfter)
		}
		what := types.ExprString(hc.Call.Fun)
		related := []analysis.RelatedInformation{{Pos: hc.Gate, Message: "later calls turned away here"}, {Pos: hc.Call.Pos(), Message: "the counted call"}}
		if hc.Handed.IsValid() {
			what += " (the remote call handed in at " + ck.short(hc.Handed) + ")"
			related = append(related, analysis.RelatedInformation{Pos: hc.Handed, Message: "the remote call handed in"})
		}
		ck.pass.Report(analysis.Diagnostic{
			Pos:      hc.Count.Pos(),
			End:      hc.Count.End(),
			Category: "breaker-counts-cancel",
			Message: fmt.Sprintf("the hand-rolled breaker counts the caller's cancellation as a failure of the dependency: every error of %s, which runs on %s, the caller's context, is counted in %s with no test for context.Canceled or DeadlineExceeded, and at %s it turns later calls away (at %s), so callers that give up open it for every caller; leave context errors out before counting",
				what, hc.Ctx, hc.Field.Name(), opens, ck.short(hc.Gate)),
			Related: related,
		})
	}
}
