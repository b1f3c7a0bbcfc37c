package retrystatus

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file holds the opt-in check for retry decisions nobody can see
// (-retrystatus.retrylog, or -retrylog through the retryvet command):
// "if you do not log decisions, you cannot debug decisions". A hand-rolled
// retry loop, or a retry-go / backoff call, that goes round again without
// a log line, a metric or a trace event in its retried region, and (for a
// library) without the hook the library offers (retry.OnRetry,
// backoff.RetryNotify, backoff.WithNotify, a failsafe-go retry policy's
// OnRetry), retries in silence: when a
// dependency degrades, nothing says that calls now take three attempts.
//
// It is off by default: whether every retry must be visible is a team's
// policy, and many libraries rightly leave logging to their caller.
// Clients and SDKs that retry inside are not reported (their hooks are
// their own; retryablehttp logs each retry by default).

// retryLog is the flag's value; the retryvet command's -retrylog sets the
// flag (Analyzer.Flags.Set(RetryLogFlag, ...)).
var retryLog bool

// RetryLogFlag is the name of the analyzer flag that turns the check on.
const RetryLogFlag = "retrylog"

func init() {
	Analyzer.Flags.BoolVar(&retryLog, RetryLogFlag, false,
		"report retry layers that go round again without logging, counting or tracing the decision (off by default)")
}

// unlogged reports l when its retry path records nothing.
func (ck *checker) unlogged(l *retrymodel.Layer) {
	if !retryLog || ck.isExample(l) || strings.HasSuffix(ck.pass.Fset.Position(l.Pos).Filename, "_test.go") {
		return
	}
	if n, ok := l.Attempts(); ok && n <= 1 {
		return // it never goes round again (a condition that always leaves)
	}
	var fix string
	switch l.Kind {
	case retrymodel.Loop:
		fix = `log the attempt, the error and the wait where the loop goes round again, e.g. slog.Warn("retrying", "attempt", n, "err", err, "wait", d)`
	case retrymodel.Library:
		call, ok := l.Node.(*ast.CallExpr)
		if !ok || ck.hooked(call) || l.Policy.Listener.IsValid() {
			return
		}
		fix = ck.libraryHook(call)
		if fix == "" {
			return // a library with no hook the check knows
		}
	default:
		return
	}
	regions := []ast.Node{}
	if l.Body != nil {
		regions = append(regions, l.Body)
	}
	for _, fn := range l.OpFuncs {
		if d := ck.decls[fn.Origin()]; d != nil && d.Body != nil {
			regions = append(regions, d.Body)
		}
	}
	if len(regions) == 0 {
		return
	}
	for _, r := range regions {
		if ck.records(r, 0) {
			return
		}
	}
	what := l.Name
	if d := l.Describe(); d != "" {
		what += " (" + d + ")"
	}
	ck.pass.Report(analysis.Diagnostic{
		Pos:      l.Pos,
		Category: "unlogged-retry",
		Message:  fmt.Sprintf("retry decision not recorded: %s goes round again without a log line, metric or trace event, so nobody sees that calls now take several attempts; %s", what, fix),
	})
}

// libraryHook says which hook the library offers, "" when the check does
// not know the library.
func (ck *checker) libraryHook(call *ast.CallExpr) string {
	fn, ok := typeutil.Callee(ck.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	path := fn.Pkg().Path()
	switch {
	case strings.HasPrefix(path, "github.com/avast/retry-go"):
		return "add retry.OnRetry(func(n uint, err error) { ... }) to log each attempt"
	case strings.HasPrefix(path, "github.com/cenkalti/backoff/v5"):
		return "pass backoff.WithNotify(func(err error, d time.Duration) { ... }) to log each attempt"
	case strings.HasPrefix(path, "github.com/cenkalti/backoff"):
		return "use backoff.RetryNotify with a notify func that logs the error and the wait"
	case path == "github.com/failsafe-go/failsafe-go":
		return "add OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[R]) { ... }) to the retry policy's builder to log the attempt, e.LastError() and e.Delay"
	}
	return ""
}

// hooked reports a library call given a notify hook: RetryNotify, an
// OnRetry or WithNotify option, or options passed on as opts... (which may
// hold one).
func (ck *checker) hooked(call *ast.CallExpr) bool {
	if fn, ok := typeutil.Callee(ck.info, call).(*types.Func); ok && strings.Contains(fn.Name(), "Notify") {
		return true
	}
	if call.Ellipsis.IsValid() {
		return true
	}
	for _, a := range call.Args {
		c, ok := astutil.Unparen(a).(*ast.CallExpr)
		if !ok {
			continue
		}
		if fn, ok := typeutil.Callee(ck.info, c).(*types.Func); ok {
			switch fn.Name() {
			case "OnRetry", "WithNotify", "Notify":
				return true
			}
		}
	}
	return false
}

// records reports a log, metric, trace or hook call in n, or in a
// function of the package n calls (to depth 2: a helper that logs).
func (ck *checker) records(n ast.Node, depth int) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if ck.recordCall(call) {
			found = true
			return false
		}
		if depth < 2 {
			if fn, ok := typeutil.Callee(ck.info, call).(*types.Func); ok {
				if d := ck.decls[fn.Origin()]; d != nil && d.Body != nil && ck.records(d.Body, depth+1) {
					found = true
					return false
				}
			}
		}
		return true
	})
	return found
}

// telemetryPkgs are metric and trace packages by path fragment.
var telemetryPkgs = []string{
	"prometheus", "go.opentelemetry.io/otel", "opentracing", "statsd", "datadog-go", "expvar", "go-metrics", "/metrics",
}

// logVerbs are method and func-field names that log, whatever the logger.
var logVerbs = map[string]bool{
	"print": true, "printf": true, "println": true, "log": true, "logf": true, "logw": true,
	"debug": true, "debugf": true, "debugw": true, "info": true, "infof": true, "infow": true,
	"warn": true, "warnf": true, "warnw": true, "warning": true, "warningf": true,
	"error": true, "errorf": true, "errorw": true, "trace": true, "tracef": true, "notice": true, "noticef": true,
}

// recordCall reports a call that makes the retry visible: into a logging,
// metrics or tracing package, fmt's Print family, a logging verb on any
// value (a project's logger interface), or a func-typed field or variable
// named as a hook (onRetry, notify, logf).
func (ck *checker) recordCall(call *ast.CallExpr) bool {
	callee := typeutil.Callee(ck.info, call)
	if fn, ok := callee.(*types.Func); ok && fn.Pkg() != nil {
		path := fn.Pkg().Path()
		switch path {
		case "fmt":
			return strings.HasPrefix(fn.Name(), "Print") || strings.HasPrefix(fn.Name(), "Fprint")
		case "errors", "github.com/pkg/errors", "golang.org/x/xerrors":
			return false
		case "testing":
			return true
		}
		if retrymodel.LogPackage(path) {
			return true
		}
		for _, p := range telemetryPkgs {
			if strings.Contains(path, p) {
				return true
			}
		}
		recv := fn.Type().(*types.Signature).Recv()
		if recv != nil && len(call.Args) > 0 && logVerbs[strings.ToLower(fn.Name())] {
			return true // s.logger.Warnf(...), on a logger of the project's own
		}
		return false
	}
	// A call through a func value: a hook or a logger field.
	var name string
	switch f := astutil.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	default:
		return false
	}
	lower := strings.ToLower(name)
	if logVerbs[lower] {
		return true
	}
	for _, w := range []string{"retry", "notify", "hook", "log", "observ", "callback", "event"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return len(name) > 2 && (name[:2] == "on" || name[:2] == "On") && unicode.IsUpper(rune(name[2]))
}
