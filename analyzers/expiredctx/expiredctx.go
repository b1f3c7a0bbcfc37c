package expiredctx

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/retryvet/retryvet/internal/analysisdoc"
	"github.com/retryvet/retryvet/internal/directive"
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
	Requires:  []*analysis.Analyzer{inspect.Analyzer, retrymodel.Analyzer},
	FactTypes: []analysis.Fact{(*WritesFact)(nil), (*OpWritesFact)(nil), (*RunnerFact)(nil)},
	// The writes of the package, for doubleretry (result.go).
	ResultType: reflect.TypeOf((*Writes)(nil)),
}

// checker holds what one run over a package shares.
type checker struct {
	pass    *analysis.Pass
	info    *types.Info
	model   *retrymodel.Result
	insp    *inspector.Inspector
	module  string
	assigns map[*types.Var][]assign
	facts   map[*types.Func]*WritesFact // facts of this package's functions

	depWriters map[string][]*types.Func // methods of other packages with a WritesFact, by name (fact.go)
	fixed      map[ast.Node]map[string]bool

	doneFacts map[*types.Func]*doneSummary // this package's functions that fail on a done ctx (done.go)
	unread    map[*ast.CallExpr]bool       // calls whose error nobody reads (cancelled.go)

	opFacts map[*types.Func]*OpWritesFact // this package's functions that do a given etcd op (etcdop.go)
	runners map[*types.Func]*RunnerFact   // this package's cleanup runners (runner.go)
	// byCaller: deadlines the callers put on a function's ctx (callerset.go).
	byCaller map[ast.Node][]ctxSet
}

func run(pass *analysis.Pass) (any, error) {
	if !importsContext(pass.Pkg) || isStd(pass) {
		return (*Writes)(nil), nil // fast path: no context, nothing to expire; the standard library is in the table
	}
	c := &checker{
		pass:    pass,
		info:    pass.TypesInfo,
		model:   pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result),
		insp:    pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		module:  modulePath(pass),
		assigns: make(map[*types.Var][]assign),
		facts:   make(map[*types.Func]*WritesFact),
		fixed:   make(map[ast.Node]map[string]bool),

		doneFacts: make(map[*types.Func]*doneSummary),
	}
	c.indexAssigns()
	c.computeOpFacts()
	c.computeFacts()
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
	if len(exps) == 0 {
		c.cancelledUses(reported)
		return &Writes{c: c}, nil
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
			w := c.classify(call)
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
	return &Writes{c: c}, nil
}

// applies reports whether write w runs on e's expired context.
func (c *checker) applies(e *expiry, w *write) bool {
	call := w.call
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
	if !c.descends(w.ctx, e.ctx, at, e.after, 0) {
		return false
	}
	if e.lit != nil && c.successOnly(call, e.lit) {
		return false
	}
	if w.kind == runnerKind && e.bounded == nil {
		return false
	}
	if e.bounded != nil && sameBackend(e, w) {
		return false // one backend: too slow for the call, too slow for the write
	}
	return true
}

func (c *checker) report(f *ast.File, w *write, e *expiry) {
	arg := call0(w)
	ctxText := exprText(arg)
	what := w.callee + " fails at once"
	if w.via != "" {
		what += " (it " + w.via + ")"
	}
	what += " and " + consequence(w.kind)
	if w.kind == "shutdown" {
		what = w.callee + " returns at once without waiting for in-flight requests"
	}
	if w.kind == runnerKind {
		what = w.callee + " " + w.via + ": their I/O on it fails at once and what they undo is left behind"
	}
	kind := w.kind
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
	diag := analysis.Diagnostic{Pos: w.call.Pos(), End: w.call.End(), Message: msg}
	if fix, ok := c.fix(f, w, e); ok {
		diag.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	c.pass.Report(diag)
}

func call0(w *write) ast.Expr { return w.ctx }

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

func importsContext(pkg *types.Package) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == "context" {
			return true
		}
	}
	return false
}

// modulePath is the path of the module being analysed, or a guess from the
// package path when the driver does not say.
func modulePath(pass *analysis.Pass) string {
	if pass.Module != nil && pass.Module.Path != "" {
		return pass.Module.Path
	}
	parts := strings.Split(pass.Pkg.Path(), "/")
	if len(parts) >= 3 && strings.Contains(parts[0], ".") {
		return strings.Join(parts[:3], "/")
	}
	return parts[0]
}

// isStd reports whether the package is part of the standard library.
func isStd(pass *analysis.Pass) bool {
	first, _, _ := strings.Cut(pass.Pkg.Path(), "/")
	return pass.Module == nil && !strings.Contains(first, ".")
}

func inModule(path, module string) bool {
	return path == module || strings.HasPrefix(path, module+"/")
}
