package retrystatus

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file holds the breaker check: a circuit breaker is a classifier
// too, of which errors are the dependency's. gobreaker with neither
// IsSuccessful nor IsExcluded counts every error, so when the operation it
// guards runs on the caller's context, callers that give up (a closed
// browser tab, a short queue deadline) fail calls that were healthy, and a
// few of them in a row open the breaker for every caller: the primary is
// switched off because some callers were impatient (seed 000).
//
// Quiet: Settings with an IsSuccessful or IsExcluded (whatever they
// exclude: a classifier that counts only transient failures is the point),
// an operation that makes no remote call, or one that runs on a context of
// its own (context.Background, or none), and breakers whose Settings come
// from elsewhere.

// breakers reports the package's breakers that count a caller's
// cancellation as a failure of the dependency.
func (ck *checker) breakers() {
	seen := map[*ast.CallExpr]bool{} // one finding per breaker
	for _, bc := range ck.res.BreakerCalls() {
		b := bc.Breaker
		if !b.CountsAll || bc.Op == nil || seen[b.New] || ck.inTest(bc.Call.Pos()) {
			continue
		}
		ctx, ok := ck.res.CallerContext(bc.Op, bc.Func)
		if !ok || !ck.res.Remote(bc.Op.Body) {
			continue
		}
		seen[b.New] = true
		name := "the breaker"
		if b.Name != "" {
			name = "breaker " + strconv.Quote(b.Name)
		}
		trip := "count toward its ReadyToTrip"
		if b.Trip != "" {
			trip = "open it after " + b.Trip + " (gobreaker's default ReadyToTrip)"
		}
		field := "IsExcluded"
		if !b.V2 {
			field = "IsSuccessful" // gobreaker v1 has no IsExcluded
		}
		msg := fmt.Sprintf("%s counts the caller's cancellation as a failure of the dependency: this Execute makes its remote call on %s, the caller's context, and the Settings at %s set neither IsSuccessful nor IsExcluded, so callers that give up (context.Canceled, context.DeadlineExceeded) %s for every caller; set %s to leave out context errors",
			name, ctx, ck.short(b.New.Pos()), trip, field)
		d := analysis.Diagnostic{
			Pos:      bc.Call.Pos(),
			End:      bc.Call.End(),
			Category: "breaker-counts-cancel",
			Message:  msg,
			Related:  []analysis.RelatedInformation{{Pos: b.New.Pos(), Message: "breaker built here"}},
		}
		if fix, ok := ck.breakerFix(b, field); ok {
			d.SuggestedFixes = []analysis.SuggestedFix{fix}
		}
		ck.pass.Report(d)
	}
}

// inTest reports a position in a _test.go file.
func (ck *checker) inTest(pos token.Pos) bool {
	f := ck.pass.Fset.File(pos)
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

// breakerFix adds the field to the Settings literal, when the literal's
// file imports context and errors under their own names.
func (ck *checker) breakerFix(b *retrymodel.Breaker, field string) (analysis.SuggestedFix, bool) {
	if b.Lit == nil || b.Lit.Rbrace == token.NoPos {
		return analysis.SuggestedFix{}, false
	}
	var file *ast.File
	for _, f := range ck.pass.Files {
		if f.Pos() <= b.Lit.Pos() && b.Lit.Pos() < f.End() {
			file = f
		}
	}
	if file == nil || !importsAs(file, "context", "context") || !importsAs(file, "errors", "errors") {
		return analysis.SuggestedFix{}, false
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
	return analysis.SuggestedFix{
		Message:   "set " + field + " to leave out context errors",
		TextEdits: []analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte(text)}},
	}, true
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
	for _, l := range ck.res.Layers {
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
			opens := fmt.Sprintf("%d consecutive failures", b.TripAfter)
			if b.Trip != "" {
				opens = b.Trip
			}
			what := fmt.Sprintf("one request that fails all %d attempts is %d failures in a row", n, n)
			if unbounded {
				what = "one request that keeps failing is failures in a row with no bound"
			}
			msg := fmt.Sprintf("%s counts every attempt of the %s at %s%s as a failure: %s, and it opens after %s, so one caller's failing request switches the dependency off for every caller; run the retry inside Execute so that a request counts once, or make ReadyToTrip need more failures than the retry makes",
				name, l.Name, ck.short(l.Pos), via, what, opens)
			ck.pass.Report(analysis.Diagnostic{
				Pos:      bc.Call.Pos(),
				End:      bc.Call.End(),
				Category: "breaker-in-retry",
				Message:  msg,
				Related: []analysis.RelatedInformation{
					{Pos: l.Pos, Message: "the retry"},
					{Pos: b.New.Pos(), Message: "breaker built here"},
				},
			})
		}
	}
}

// retriedExecute reports whether the layer retries the breaker call: it
// is one of the layer's operations, or in the declaration of a package
// function an operation calls (via names it).
func (ck *checker) retriedExecute(l *retrymodel.Layer, bc retrymodel.BreakerCall) (string, bool) {
	for _, op := range l.Ops {
		if op == bc.Call {
			return "", true
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
