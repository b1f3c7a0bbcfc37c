package retrytimeout

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/retryvet/retryvet/internal/analysisdoc"
	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Name is the analyzer's stable name (flags, -json, ignore directives).
const Name = "retrytimeout"

//go:embed doc.go
var doc string

// Analyzer reports the time behaviour of retry layers: attempt-only
// retries, waits without jitter, Retry-After ignored, waits that ignore
// cancellation, per-attempt timeouts below p99, schedules longer than their
// budget, total timeouts on streaming calls, and waits that never happen.
var Analyzer = &analysis.Analyzer{
	Name:     Name,
	Doc:      analysisdoc.Extract(doc, Name),
	URL:      analysisdoc.URL(Name),
	Run:      directive.Filter(Name, run),
	Requires: []*analysis.Analyzer{inspect.Analyzer, retrymodel.Analyzer},
}

// checker carries what the findings share while one package is analysed.
type checker struct {
	pass *analysis.Pass
	res  *retrymodel.Result
	insp *inspector.Inspector
	// reported keeps one diagnostic per kind and position; pending holds
	// them until flush merges those at the same position.
	reported map[string]bool
	pending  []analysis.Diagnostic
}

func run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer res.Hold()()
	if res.Inert() {
		return nil, nil
	}
	c := &checker{
		pass:     pass,
		res:      res,
		insp:     pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		reported: make(map[string]bool),
	}
	// One attempt's timeout around a whole retry (dialtimeout.go): also
	// where the retry is in another package.
	c.attemptBudgetsTotal()
	c.sharedArgCtxs() // sharedctx.go
	c.unscaledHints() // hintunit.go: wherever the conversion is
	c.selectBreaks()  // selectbreak.go: a wait's cancel case that breaks the select only
	c.waitOverflows() // overflow.go: scale × 2^attempt with no bound on the attempt
	c.zeroTimeouts()  // zerotimeout.go: WithTimeout on a field whose 0 means no limit
	c.waitUnits()     // waitunit.go: a bare integer given as a retry library's time.Duration
	// Fast path: no retry layer and nothing that can stream.
	if len(res.Layers) == 0 && !importsStreaming(pass.Pkg) {
		c.flush()
		return nil, nil
	}
	c.retryAfterOnly429()
	layers := append([]*retrymodel.Layer(nil), res.Layers...)
	sort.SliceStable(layers, func(i, j int) bool { return layers[i].Pos < layers[j].Pos })
	for _, l := range layers {
		if c.skipLayer(l) {
			continue
		}
		c.checkLayer(l)
	}
	c.checkStreaming()
	c.flush()
	return nil, nil
}

// checkLayer runs the per-layer findings. At most one diagnostic of each
// kind is reported per layer, each at the position where the thing to
// change is written; an attempt-only retry whose wait also ignores
// cancellation is reported once, at the wait, since the one rewrite fixes
// both.
func (c *checker) checkLayer(l *retrymodel.Layer) {
	attemptOnly := c.attemptOnly(l)
	if !c.uncancellableWait(l, attemptOnly) && attemptOnly != "" {
		c.report(l.Pos, "attempt-only", "attempt-only retry: "+attemptOnly+"; "+attemptOnlyAdvice, nil)
	}
	c.stillCounter(l) // stillcounter.go
	c.noJitter(l)
	c.retryAfterIgnored(l)
	c.perAttemptBelowP99(l)
	c.overBudget(l)
	c.attemptDeadlineEndsRetry(l)
	c.ctxErrRetried(l)
	c.deferredCancel(l)   // defercancel.go
	c.cancelBeforeRead(l) // defercancel.go
}

// skipLayer leaves out layers whose time behaviour is nobody's concern:
// layers in test files (a test has no caller's deadline but its own), and
// layers in main or init with no context in scope (start-up, before any
// request exists).
func (c *checker) skipLayer(l *retrymodel.Layer) bool {
	if c.inTestFile(l.Pos) {
		return true
	}
	if l.Func != nil && l.Func.Type().(*types.Signature).Recv() == nil &&
		(l.Func.Name() == "main" && l.Func.Pkg().Name() == "main" || l.Func.Name() == "init") {
		if c.res.ContextInScope(l, l.Pos) == nil {
			return true
		}
	}
	return false
}

func (c *checker) inTestFile(pos token.Pos) bool {
	return strings.HasSuffix(c.pass.Fset.Position(pos).Filename, "_test.go")
}

// report records one diagnostic per kind and position.
func (c *checker) report(pos token.Pos, kind, msg string, fixes []analysis.SuggestedFix) {
	key := fmt.Sprintf("%s@%d", kind, pos)
	if c.reported[key] {
		return
	}
	c.reported[key] = true
	c.pending = append(c.pending, analysis.Diagnostic{Pos: pos, Category: kind, Message: msg, SuggestedFixes: fixes})
}

// flush reports the recorded diagnostics, merging those at the same
// position into one: a time.Sleep that ignores ctx and has no jitter is one
// line to change, and one message says both.
func (c *checker) flush() {
	sort.SliceStable(c.pending, func(i, j int) bool { return c.pending[i].Pos < c.pending[j].Pos })
	for i := 0; i < len(c.pending); {
		d := c.pending[i]
		j := i + 1
		for ; j < len(c.pending) && c.pending[j].Pos == d.Pos; j++ {
			o := c.pending[j]
			d.Message += "; also " + o.Message
			d.Category += "," + o.Category
			d.SuggestedFixes = append(d.SuggestedFixes, o.SuggestedFixes...)
		}
		c.pass.Report(d)
		i = j
	}
}

func (c *checker) short(pos token.Pos) string { return retrymodel.Shorten(c.pass.Fset, pos) }

// ---- schedule arithmetic shared by the findings ----

// waitList renders waits as "1s, 2s, 4s".
func waitList(ws []time.Duration) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmtDur(w)
	}
	return strings.Join(parts, ", ")
}

func sum(ws []time.Duration) time.Duration {
	var t time.Duration
	for _, w := range ws {
		t += w
	}
	return t
}

// knownWaits returns the layer's waits between attempts when the model
// knows all of them, trimmed to attempts-1.
func knownWaits(l *retrymodel.Layer) ([]time.Duration, bool) {
	n, ok := l.Attempts()
	if !ok || !l.Policy.WaitsKnown {
		return nil, false
	}
	ws := l.Policy.Waits
	if int64(len(ws)) > n-1 {
		ws = ws[:n-1]
	}
	if int64(len(ws)) < n-1 {
		return nil, false
	}
	return ws, true
}

// describe names a layer in a message: "retry loop", "backoff.Retry".
func describe(l *retrymodel.Layer) string {
	if l.Name != "" {
		return l.Name
	}
	return l.Kind.String()
}

// importsStreaming reports whether pkg can make a streaming call: it
// imports net/http or an SDK with streaming methods.
func importsStreaming(pkg *types.Package) bool {
	for _, imp := range pkg.Imports() {
		p := imp.Path()
		if p == "net/http" || strings.HasPrefix(p, "github.com/openai/openai-go") || strings.HasPrefix(p, "github.com/anthropics/anthropic-sdk-go") {
			return true
		}
	}
	return false
}

// enclosingFuncType returns the signature and node of the innermost
// function around pos within the layer's function.
func (c *checker) enclosingFunc(pos token.Pos) (ast.Node, *types.Signature) {
	for _, f := range c.pass.Files {
		if f.Pos() > pos || pos > f.End() {
			continue
		}
		var node ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil || n.Pos() > pos || pos >= n.End() {
				return false
			}
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				node = n
			}
			return true
		})
		switch n := node.(type) {
		case *ast.FuncDecl:
			if obj, ok := c.pass.TypesInfo.Defs[n.Name].(*types.Func); ok {
				return n, obj.Type().(*types.Signature)
			}
		case *ast.FuncLit:
			if sig, ok := c.pass.TypesInfo.TypeOf(n).(*types.Signature); ok {
				return n, sig
			}
		}
		return nil, nil
	}
	return nil, nil
}

// schedule renders the model's description of a layer's waits for a
// message: "" when it only repeats the wait expression.
func schedule(l *retrymodel.Layer) string {
	s := l.Policy.Schedule
	if strings.HasPrefix(s, "waits ") && len(l.Policy.Waits) == 0 {
		return "waits not known statically"
	}
	switch s {
	case "constant (value not constant)":
		return "a constant wait whose value is not known statically"
	case "exponential (values not constant)":
		return "exponential waits whose values are not known statically"
	}
	if strings.HasPrefix(s, "library default (") && strings.HasSuffix(s, ")") {
		s = "library default: " + strings.TrimSuffix(strings.TrimPrefix(s, "library default ("), ")")
	}
	return s
}

// shownWaits renders the waits a message can vouch for: the known waits up
// to attempts-1 when the attempt count is known; otherwise the first few
// followed by "..." (a schedule the model lists for an unknown count says
// nothing about how many waits there are). prefix reports that the list
// is not the whole schedule.
func shownWaits(l *retrymodel.Layer) (text string, prefix bool) {
	n, counted := l.Attempts()
	ws, prefix := listedWaits(l.Policy.Waits, n, counted, counted && l.Policy.WaitsKnown)
	return waitsText(ws, prefix), prefix
}

// shownDefaultWaits renders the waits a layer makes by default
// (Policy.DefaultWaits) the same way; the default schedule is whole when
// the attempts are bounded by default. longest is the longest wait listed.
func shownDefaultWaits(l *retrymodel.Layer) (text string, longest time.Duration, prefix bool) {
	n, counted := l.Attempts()
	ws, prefix := listedWaits(l.Policy.DefaultWaits, n, counted, !l.Policy.DefaultMore)
	if len(ws) == 0 {
		return "", 0, false
	}
	return waitsText(ws, prefix), slices.Max(ws), prefix
}

// listedWaits cuts a schedule to what a message lists: attempts-1 waits
// when n attempts are counted, the first three when complete says the
// list is not the whole schedule (prefix).
func listedWaits(ws []time.Duration, n int64, counted, complete bool) ([]time.Duration, bool) {
	if counted && int64(len(ws)) > n-1 {
		ws = ws[:max(n-1, 0)]
	}
	prefix := !complete || counted && int64(len(ws)) < n-1
	if prefix && len(ws) > 3 {
		ws = ws[:3]
	}
	return ws, prefix
}

func waitsText(ws []time.Duration, prefix bool) string {
	if prefix {
		return waitList(ws) + ", ..."
	}
	return waitList(ws)
}

// fmtDur prints a duration for a message: as durconst does, rounded to
// 10ms above a second (a backoff factor of 1.25 makes 9.765625s).
func fmtDur(d time.Duration) string {
	if d >= time.Second {
		d = d.Round(10 * time.Millisecond)
	}
	return durconst.Format(d)
}
