package expiredctx

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/retryvet/retryvet/internal/analysisdoc"
	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

//go:embed doc.go
var doc string

// Name is the analyzer's stable name.
const Name = "expiredctx"

// Analyzer reports cleanup and status writes that run on a context that has
// already expired.
var Analyzer = &analysis.Analyzer{
	Name:      Name,
	Doc:       analysisdoc.Extract(doc, Name),
	URL:       analysisdoc.URL(Name),
	Run:       directive.Filter(Name, run),
	Requires:  []*analysis.Analyzer{inspect.Analyzer, retrymodel.Analyzer, effects.Analyzer},
	FactTypes: []analysis.Fact{(*RunnerFact)(nil)},
}

// checker holds what one run over a package shares.
type checker struct {
	pass   *analysis.Pass
	info   *types.Info
	model  *retrymodel.Result
	insp   *inspector.Inspector
	module string
	writes *effects.Result // which calls write (internal/effects)
	flow   *effects.Flow   // which contexts derive from which
	fixed  map[ast.Node]map[string]bool

	doneFacts map[*types.Func]*doneSummary // this package's functions that fail on a done ctx (done.go)
	unread    map[*ast.CallExpr]bool       // calls whose error nobody reads (cancelled.go)

	runners map[*types.Func]*RunnerFact // this package's cleanup runners (runner.go)
	// byCaller: deadlines the callers put on a function's ctx (callerset.go).
	byCaller map[ast.Node][]ctxSet
}

func run(pass *analysis.Pass) (any, error) {
	writes := pass.ResultOf[effects.Analyzer].(*effects.Result)
	if writes == nil {
		return nil, nil // fast path: no context, nothing to expire; the standard library is in the table
	}
	model := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer model.Hold()()
	c := &checker{
		pass:   pass,
		info:   pass.TypesInfo,
		model:  model,
		insp:   pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		module: effects.ModulePath(pass),
		writes: writes,
		flow:   writes.Flow(),
		fixed:  make(map[ast.Node]map[string]bool),

		doneFacts: make(map[*types.Func]*doneSummary),
	}
	c.computeRunnerFacts()
	c.computeDoneFacts()

	var exps []*expiry
	for _, f := range pass.Files {
		exps = append(exps, c.regions(f)...)
	}
	exps = append(exps, c.deferred()...)
	exps = append(exps, c.bounded()...)
	reported := make(map[*ast.CallExpr]bool)
	c.escapedClosures(reported) // escape.go: closures that run after their context's cancel
	c.sharedDeadlines()         // fallback.go: a fallback loop on one deadline
	c.sequentialBackups()       // backup.go: a backup call on the first call's deadline
	if len(exps) == 0 {
		c.cancelledUses(reported)
		return nil, nil
	}
	// Regular checks first, innermost (latest check) first; then the
	// deferred reasons, the certain one (cancel order) first.
	sort.SliceStable(exps, func(i, j int) bool {
		a, b := exps[i], exps[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.check > b.check
	})

	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || reported[call] {
				return true
			}
			w := c.writes.Classify(call)
			if w == nil {
				w = c.runnerWrite(call) // taken by bounded expiries only (applies)
			}
			if w == nil {
				return true
			}
			for _, e := range exps {
				if !c.applies(e, w) {
					continue
				}
				reported[call] = true
				c.report(f, w, e)
				break
			}
			return true
		})
	}
	c.cancelledUses(reported)
	return nil, nil
}

// applies reports whether write w runs on e's expired context.
func (c *checker) applies(e *expiry, w *effects.Write) bool {
	call := w.Call
	if e.only != nil {
		if call != e.only {
			return false
		}
	} else if call.Pos() < e.start || call.Pos() >= e.end {
		return false
	}
	at := call.Pos()
	if e.only != nil {
		at = e.deferPos // a direct defer evaluates its arguments when registered
	}
	if !c.flow.Descends(w.Ctx, e.ctx, at, e.after, 0) {
		return false
	}
	if e.lit != nil && c.successOnly(call, e.lit) {
		return false
	}
	if w.Kind == runnerKind && e.bounded == nil {
		return false
	}
	if e.bounded != nil && c.sameBackend(e, w) {
		return false // one backend: too slow for the call, too slow for the write
	}
	return true
}

func (c *checker) report(f *ast.File, w *effects.Write, e *expiry) {
	arg := call0(w)
	ctxText := exprText(arg)
	what := w.Callee + " fails at once"
	if w.Via != "" {
		what += " (it " + w.Via + ")"
	}
	what += " and " + consequence(w.Kind)
	if w.Kind == "shutdown" {
		what = w.Callee + " returns at once without waiting for in-flight requests"
	}
	if w.Kind == runnerKind {
		what = w.Callee + " " + w.Via + ": their I/O on it fails at once and what they undo is left behind"
	}
	kind := w.Kind
	if kind == "shutdown" {
		kind = "server shutdown"
	}
	if e.deferred {
		kind = "deferred " + kind
	}
	sep := ": "
	if e.bounded != nil {
		sep = ", " // when already ends in a clause: "... set at x.go:29, Requeue fails at once"
	}
	msg := fmt.Sprintf("%s uses %s%s%s%s; run it on context.WithoutCancel(%s) with its own timeout",
		kind, ctxText, e.when, sep, what, ctxText)
	diag := analysis.Diagnostic{Pos: w.Call.Pos(), End: w.Call.End(), Message: msg}
	if fix, ok := c.fix(f, w, e); ok {
		diag.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	c.pass.Report(diag)
}

func call0(w *effects.Write) ast.Expr { return w.Ctx }

// consequence says what is lost when a write of this kind fails.
func consequence(kind string) string {
	switch kind {
	case "status write":
		return "the item stays in progress"
	case "release":
		return "the lock or lease stays held until it times out"
	case "lock":
		return "the lock is not taken and the work it guards does not run"
	case "ack":
		return "the message is delivered again"
	case "nack":
		return "the message is not handed back until its lease runs out"
	case "publish":
		return "the message is never sent"
	case "delete":
		return "the record is left behind"
	case "commit":
		return "the work is rolled back"
	case "rollback":
		return "the transaction stays open until the connection drops"
	}
	return "the write is lost"
}

func exprText(e ast.Expr) string {
	s := types.ExprString(e)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func (c *checker) short(pos token.Pos) string { return retrymodel.Shorten(c.pass.Fset, pos) }
