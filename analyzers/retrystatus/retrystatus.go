package retrystatus

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/analysisdoc"
	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Name is the analyzer's stable name.
const Name = "retrystatus"

//go:embed doc.go
var doc string

// Analyzer reports retry classifiers that enumerate 5xx codes, retry
// permanent codes, or retry every 429 without reading the error.
var Analyzer = &analysis.Analyzer{
	Name:       Name,
	Doc:        analysisdoc.Extract(doc, Name),
	URL:        analysisdoc.URL(Name),
	Run:        directive.Filter(Name, run),
	Requires:   []*analysis.Analyzer{inspect.Analyzer, retrymodel.Analyzer},
	FactTypes:  []analysis.Fact{(*ClassifierFact)(nil), (*OverloadGapFact)(nil), (*ErrStatusFact)(nil)},
	ResultType: reflect.TypeOf((*Result)(nil)),
}

// Result lists the retry decisions found, for tests and other tools.
type Result struct {
	Decisions int // retry decisions evaluated
	// Status lists the positions (dir/file.go:line) of the decisions that
	// test a status code, one per decision.
	Status []string
}

// checker holds what one package's analysis shares.
type checker struct {
	pass     *analysis.Pass
	info     *types.Info
	res      *retrymodel.Result
	decls    map[*types.Func]*ast.FuncDecl
	sums     map[ast.Node]*summary
	used     map[*types.Func]bool // functions that decide a retry here
	reported map[string]bool
	atAtom   map[token.Pos]bool               // atoms a finding was reported at (report)
	fixed    map[*types.Var]bool              // fixedVar's answers (setting.go)
	gaps     map[*types.Func]*OverloadGapFact // overload.go
	waitMemo map[waitKey]bool                 // mayWait's answers for the statements walked (nowait.go)
	errStat  map[*types.Func]string           // errStatus's answers (opstatus.go)
	retrying map[*types.Func]bool             // functions holding a retry layer (opstatus.go)
}

// waitKey is a statement asked about with the function mayWait skips.
type waitKey struct {
	n    ast.Node
	skip *types.Func
}

func run(pass *analysis.Pass) (any, error) {
	model := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer model.Hold()()
	if model.Inert() {
		return &Result{}, nil
	}
	ck := &checker{
		pass:     pass,
		info:     pass.TypesInfo,
		res:      model,
		decls:    map[*types.Func]*ast.FuncDecl{},
		sums:     map[ast.Node]*summary{},
		used:     map[*types.Func]bool{},
		reported: map[string]bool{},
		atAtom:   map[token.Pos]bool{},
		waitMemo: map[waitKey]bool{},
		errStat:  map[*types.Func]string{},
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					ck.decls[fn] = fd
				}
			}
		}
	}
	if !mentionsCodes(pass) {
		// No code to classify by; a retry can still have no classifier, or
		// one that retries only connection errors.
		for _, l := range ck.res.Layers {
			ck.noClassifier(l, nil)
			ck.stopsOnClient(l)
			ck.dataCodes(l)
			ck.unlogged(l)         // retrylog.go, opt-in
			ck.streams(l)          // stream.go
			ck.droppedResponses(l) // bodyleak.go
		}
		ck.packageChecks()
		ck.exportErrStatus(ck.sortedFuncs()) // opstatus.go
		return &Result{}, nil
	}

	var decisions []*decision
	byLayer := map[*retrymodel.Layer][]*decision{}
	for _, l := range ck.res.Layers {
		ds := ck.decisionsOf(l)
		byLayer[l] = ds
		decisions = append(decisions, ds...)
	}
	// A helper handed a classifier that retries one error type of the
	// package decides at each call, by what the operation handed to it
	// returns of that type: its own layer sees only a call of a parameter.
	var typed []*retrymodel.Layer
	for _, l := range ck.res.HelperLayers {
		if ck.res.LayerErrorType(l) == nil {
			continue
		}
		ds := ck.decisionsOf(l)
		byLayer[l] = ds
		decisions = append(decisions, ds...)
		typed = append(typed, l)
	}
	for _, d := range decisions {
		for fn := range d.funcs {
			ck.used[fn] = true
		}
	}
	res := &Result{Decisions: len(decisions)}
	for _, d := range decisions {
		if !ck.isExample(d.layer) {
			ck.check(d)
		}
		if len(d.atoms) > 0 {
			res.Status = append(res.Status, ck.short(d.layer.Pos))
		}
	}
	for _, l := range ck.res.Layers {
		if !ck.isExample(l) {
			ck.noClassifier(l, byLayer[l])
			ck.stopsOnClient(l)
			ck.dataCodes(l)
		}
		ck.unlogged(l)                     // retrylog.go, opt-in
		ck.streams(l)                      // stream.go
		ck.droppedResponses(l)             // bodyleak.go
		ck.transportGivenUp(l, byLayer[l]) // transporterr.go
		ck.noWait(l, byLayer[l])           // nowait.go
	}
	for _, l := range typed {
		ck.transportGivenUp(l, byLayer[l])
	}
	ck.packageChecks()
	ck.exportFacts()
	return res, nil
}

// packageChecks are the checks of the package as a whole, not of one
// layer's decisions: run whether or not the package names a status code.
func (ck *checker) packageChecks() {
	ck.stopsAWSRetryer()
	ck.polarity()
	ck.breakers()        // breaker.go
	ck.handBreakers()    // breaker.go
	ck.breakersInRetry() // breaker.go
	ck.errorSiblings()   // errclass.go
	ck.overloadGaps()    // overload.go
	// A helper's call retries the operation handed to it; what that
	// operation opens is the caller's (the helper's policy is checked at
	// the helper's own layer).
	for _, l := range ck.res.HelperLayers {
		ck.streams(l)           // stream.go
		ck.noClassifier(l, nil) // noclassifier.go
	}
}

// isExample reports a layer in a testable example (func ExampleXxx in a
// _test.go file): documentation that shows a call, not a retry policy
// anyone runs in production.
func (ck *checker) isExample(l *retrymodel.Layer) bool {
	if l.Func == nil || !strings.HasPrefix(l.Func.Name(), "Example") {
		return false
	}
	sig := l.Func.Type().(*types.Signature)
	return sig.Recv() == nil && sig.Params().Len() == 0 && sig.Results().Len() == 0 &&
		strings.HasSuffix(ck.pass.Fset.Position(l.Pos).Filename, "_test.go")
}

// mentionsCodes is the fast path: a package with no 4xx/5xx constant, no
// reference to an http.Status constant and no code/100 has nothing to
// check or export.
func mentionsCodes(pass *analysis.Pass) bool {
	found := false
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.INT && len(n.Value) == 3 && (n.Value[0] == '4' || n.Value[0] == '5') {
					found = true
				}
			case *ast.SelectorExpr:
				if strings.HasPrefix(n.Sel.Name, "Status") {
					found = true
				}
				if obj := pass.TypesInfo.Uses[n.Sel]; obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "google.golang.org/grpc/codes" {
					found = true // a gRPC code
				}
			case *ast.BinaryExpr:
				// code/100: the class of a status code.
				if lit, ok := n.Y.(*ast.BasicLit); ok && n.Op == token.QUO && lit.Value == "100" {
					found = true
				}
			case *ast.CallExpr:
				// a classifier of another module's package: ae.Temporary() on
				// its error type, whose codes its ClassifierFact carries.
				if fn := typeutil.StaticCallee(pass.TypesInfo, n); fn != nil && fn.Pkg() != nil && fn.Pkg() != pass.Pkg && !isStd(fn.Pkg()) {
					var f ClassifierFact
					found = pass.ImportObjectFact(fn.Origin(), &f)
				}
			}
			return true
		})
		if found {
			return true
		}
	}
	return false
}

// A decision is one retry decision of a layer, evaluated for every code.
type decision struct {
	layer    *retrymodel.Layer
	provider bool // a classifier from another package talks to an LLM API
	atoms    []*atom
	funcs    map[*types.Func]bool
	retried  map[int]bool // some path that tests the status retries it
	stopped  map[int]bool // some path that tests the status gives up
	noBody   map[int]bool // some path retries it without reading the error's code or type
	blind    map[int]bool // ... and without changing the request (new token, shorter input)
	// stopBlind: some path gives the status up without reading the
	// error's code or type.
	stopBlind map[int]bool
	// bare: some path retries the status with no wait on the way to
	// the next attempt (a loop's decision), at the statement that
	// starts it (a recursion's call of itself; NoPos for a loop).
	bare map[int]token.Pos
}

func newDecision(l *retrymodel.Layer) *decision {
	return &decision{layer: l, funcs: map[*types.Func]bool{},
		retried: map[int]bool{}, stopped: map[int]bool{}, noBody: map[int]bool{}, blind: map[int]bool{}, stopBlind: map[int]bool{}, bare: map[int]token.Pos{}}
}

// decisionsOf returns the retry decisions of a layer: its classifier, and
// the conditions of its retried region that choose between another attempt
// and giving up.
func (ck *checker) decisionsOf(l *retrymodel.Layer) []*decision {
	var out []*decision
	// A loop's classifier is a condition of its body, read with its
	// polarity by the body walk; other layers hand a predicate to the
	// library (RetryIf, CheckRetry, OnError): true = retry.
	if l.Kind != retrymodel.Loop && l.Kind != retrymodel.Reissued {
		if d := ck.classifierDecision(l); d != nil {
			out = append(out, d)
		}
	}
	switch l.Kind {
	case retrymodel.Loop:
		var body *ast.BlockStmt
		switch n := l.Node.(type) {
		case *ast.ForStmt:
			body = n.Body
		case *ast.RangeStmt:
			body = n.Body
		case *ast.FuncDecl:
			body = n.Body // a retry by recursion: its call of itself is the next attempt
		}
		if body != nil {
			out = append(out, ck.walkDecision(l, body, modeLoop, ck.loopLabel(l)))
		}
	case retrymodel.Reissued:
		if d := ck.reissueDecision(l); d != nil {
			out = append(out, d)
		}
	case retrymodel.Library:
		m, ok := ck.libraryMode(l)
		if !ok {
			break
		}
		var bodies []*ast.BlockStmt
		switch b := l.Body.(type) {
		case *ast.BlockStmt:
			bodies = append(bodies, b)
		case *ast.FuncLit:
			bodies = append(bodies, b.Body)
		}
		for _, fn := range l.OpFuncs {
			if d := ck.decls[fn.Origin()]; d != nil && d.Body != nil {
				bodies = append(bodies, d.Body)
			}
		}
		for _, b := range bodies {
			out = append(out, ck.walkDecision(l, b, m, ""))
		}
	}
	return out
}

// libraryMode says how a library's retried operation signals its verdict.
func (ck *checker) libraryMode(l *retrymodel.Layer) (mode, bool) {
	// A classifier that retries one error type of the package (a retry
	// helper handed evaluate, also through the func value a retrier
	// factory made): what the operation returns of that type is retried,
	// the rest given up (errtype.go in the model).
	if ck.res.LayerErrorType(l) != nil {
		return modeRetryable, true
	}
	call, ok := l.Node.(*ast.CallExpr)
	if !ok {
		return 0, false
	}
	fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return 0, false
	}
	path := fn.Pkg().Path()
	switch {
	case path == "github.com/sethvargo/go-retry":
		return modeRetryable, true
	case path == "k8s.io/apimachinery/pkg/util/wait":
		return modeWaitCond, true
	case path == "k8s.io/client-go/util/retry":
		return 0, false // its predicate decides; the operation only fails
	}
	// backoff (Permanent), retry-go (Unrecoverable) and other libraries:
	// a non-nil error is retried.
	return modeErrOp, true
}

// classifierDecision is the decision of the layer's classifier (RetryIf,
// CheckRetry, OnError): a predicate, true = retry.
func (ck *checker) classifierDecision(l *retrymodel.Layer) *decision {
	fn := l.Policy.ClassifierFunc
	var node ast.Node
	pos := l.Pos
	if c := l.Policy.Classifier; c != nil {
		pos = c.Pos()
		switch c := c.(type) {
		case *ast.FuncLit:
			node = c
		case *ast.Ident:
			if v, ok := ck.info.Uses[c].(*types.Var); ok {
				if value, ok := ck.res.WrittenOnce(v); ok {
					if lit, ok := ast.Unparen(value).(*ast.FuncLit); ok {
						node = lit
					}
				}
			}
			if f, ok := ck.info.Uses[c].(*types.Func); ok && fn == nil {
				fn = f
			}
		case *ast.SelectorExpr:
			if f, ok := ck.info.Uses[c.Sel].(*types.Func); ok && fn == nil {
				fn = f
			}
		}
	}
	if node == nil && fn != nil {
		if d := ck.decls[fn.Origin()]; d != nil {
			node = d
		}
	}
	d := newDecision(l)
	if node != nil {
		s := ck.summary(node)
		if s == nil || !s.dep {
			return nil
		}
		if fn != nil {
			d.funcs[fn.Origin()] = true
		}
		for f := range s.funcs {
			d.funcs[f] = true
		}
		d.atoms, d.provider = s.atoms, s.provider
		for c, cv := range s.codes {
			d.retried[c] = cv.v&vT != 0
			d.stopped[c] = cv.v&vF != 0
			d.noBody[c] = cv.v&vT != 0 && !cv.body
			d.blind[c] = d.noBody[c]
			d.stopBlind[c] = d.stopped[c] && !cv.body
		}
		return d
	}
	if fn == nil || fn.Pkg() == ck.pass.Pkg {
		return nil
	}
	var f ClassifierFact
	if !ck.pass.ImportObjectFact(fn.Origin(), &f) {
		return nil
	}
	a := &atom{kind: atomFact, pos: pos, operand: "code", via: f.Name + " at " + f.Posn, home: f.Home}
	for _, c := range f.Codes {
		if c.Listed {
			a.codes = append(a.codes, c.Code)
		}
		if c.Covered {
			a.covered = append(a.covered, c.Code)
		}
		d.retried[c.Code] = c.True
		d.stopped[c.Code] = c.False
		d.noBody[c.Code] = c.True && !c.BodyRead
		d.blind[c.Code] = d.noBody[c.Code]
		d.stopBlind[c.Code] = c.False && !c.BodyRead
	}
	d.provider = f.Provider
	d.atoms = []*atom{a}
	return d
}

// walkDecision evaluates a retried region (a loop body, an operation) for
// every code.
func (ck *checker) walkDecision(l *retrymodel.Layer, body *ast.BlockStmt, m mode, label string) *decision {
	d := newDecision(l)
	col := newCollector()
	var marker types.Type
	if m == modeRetryable {
		marker = ck.res.LayerErrorType(l)
	}
	sends := ck.sendErrsIn(body)
	// A retry by recursion: the function's call of itself is the next
	// attempt, and falling off its end gives up.
	var self *types.Func
	if fd, ok := l.Node.(*ast.FuncDecl); ok && m == modeLoop {
		self, _ = ck.info.Defs[fd.Name].(*types.Func)
	}
	for _, c := range universe {
		w := &walker{ck: ck, code: c, mode: m, col: col, label: label, marker: marker, region: body, sendErrs: sends, self: self, layerWaits: l.Waits}
		for _, f := range w.stmts(body.List, pathState{}) {
			// A path on which the send failed has no status to decide on
			// (transporterr.go judges it).
			if !f.st.dep || f.st.failed == 1 {
				continue
			}
			retry, stop := false, false
			switch f.kind {
			case fRetry:
				retry = true
			case fStop:
				stop = true
			case fNext:
				retry = m == modeLoop && self == nil
				stop = self != nil
			case fContinue, fBreak:
				if m != modeLoop {
					continue
				}
				mine := f.label == "" || f.label == label
				retry = mine && f.kind == fContinue
				stop = !retry
			}
			if retry {
				d.retried[c] = true
				if !f.st.waited {
					if _, ok := d.bare[c]; !ok || f.at < d.bare[c] {
						d.bare[c] = f.at
					}
				}
				if !f.st.body {
					d.noBody[c] = true
					if !f.st.changes {
						d.blind[c] = true
					}
				}
			}
			if stop {
				d.stopped[c] = true
				if !f.st.body && !f.st.gated {
					d.stopBlind[c] = true
				}
			}
		}
	}
	d.atoms, d.funcs, d.provider = col.atoms, col.funcs, col.provider
	return d
}

// loopLabel returns the label of a retry loop, if it has one.
func (ck *checker) loopLabel(l *retrymodel.Layer) string {
	label := ""
	if l.FuncNode == nil {
		return ""
	}
	ast.Inspect(l.FuncNode, func(n ast.Node) bool {
		if ls, ok := n.(*ast.LabeledStmt); ok && ls.Stmt == l.Node {
			label = ls.Label.Name
		}
		return label == ""
	})
	return label
}

// ---- findings ----

func (ck *checker) check(d *decision) {
	atoms := slices.Clone(d.atoms)
	slices.SortStableFunc(atoms, func(a, b *atom) int { return int(a.pos) - int(b.pos) })

	// 1. Enumerated 5xx.
	listed, first := namedBy(universe, func(c int) bool { return c >= 500 && !isGRPC(c) && d.retried[c] }, atoms, false)
	// One 5xx code is a choice (503 alone: "come back later"), not an
	// enumeration of a range that misses its other members.
	if len(listed) > 1 {
		// An enumeration is a defect when it gives up on one of the
		// transient server errors every API sends (500, 502, 503, 504),
		// or on 529 where the API sends it (an LLM API) or 500 is missed.
		var missing []int
		for _, c := range []int{500, 502, 503, 504, overloaded} {
			if d.stopped[c] && !d.retried[c] {
				missing = append(missing, c)
			}
		}
		if n := len(missing); n > 0 && missing[n-1] == overloaded && missing[0] != 500 && !ck.targets(d, overloadPkg, overloadLit) {
			missing = missing[:n-1]
			if len(missing) == 0 && !first.home {
				ck.overloadGap(d.layer, listed, first) // told where it is called for such an API (overload.go)
			}
		}
		if len(missing) > 0 {
			verb := "are"
			if len(missing) == 1 {
				verb = "is"
			}
			operand := first.operand
			if operand == "" {
				operand = "code"
			}
			msg := fmt.Sprintf("retry decision lists 5xx codes %s%s: %s %s not retried; use %s >= 500",
				joinCodes(listed, false), viaText(first), andList(missing), verb, operand)
			ck.report(first, "5xx", msg, ck.rangeFix(first))
		}
	}

	// A list of transient answers (429 and 503: limited, unavailable) that
	// leaves out what a proxy or load balancer in front of the server
	// answers for the same restart or overload (502, 504).
	if len(listed) == 1 && listed[0] == 503 && d.retried[tooMany] {
		ck.gatewayCodes(d, first)
	}

	// 2. Permanent codes retried.
	// A permanent code retried only after the error's code or message was
	// read is a classified exception (a known race), not a blind retry.
	perm, pa := namedBy(permanent, func(c int) bool { return d.retried[c] && d.blind[c] }, atoms, true)
	if len(perm) > 0 {
		each := eachAttempt(d.layer)
		msg := fmt.Sprintf("retry decision retries %s%s: the same request fails the same way %s; give up on them",
			joinCodes(perm, true), viaText(pa), each)
		if slices.Contains(perm, 413) {
			msg += " (413: shrink the input instead)"
		}
		ck.report(pa, "permanent", msg, nil)
	}

	// A few permanent codes given up on, the others retried.
	if len(perm) == 0 {
		ck.stopList(d, atoms) // stoplist.go
	}

	// 4. 429 given up on while 5xx is retried.
	ck.stops429(d, atoms)

	// 3. Every 429 retried without reading the error, against an API that
	// reports an exhausted quota as 429 (OpenAI and compatible, Gemini).
	if d.noBody[429] && ck.provider(d) {
		var qa *atom
		for _, a := range atoms {
			if a.lists(429) || a.covers(429) {
				qa = a
				break
			}
		}
		if qa != nil {
			times := "is retried until the attempts run out"
			if n, ok := d.layer.Attempts(); ok {
				times = fmt.Sprintf("is attempted %d times before it fails", n)
			}
			msg := fmt.Sprintf("retry decision retries every 429 without reading the error's code or type%s: an exhausted quota (%s) %s; give up when the code says so",
				viaText(qa), ck.quotaCode(d), times)
			ck.report(qa, "429", msg, nil)
		}
	}
}

// namedBy returns the codes of cs that keep accepts and an atom lists
// (or, with covered, covers: a range), with the first such atom.
func namedBy(cs []int, keep func(int) bool, atoms []*atom, covered bool) ([]int, *atom) {
	var out []int
	var first *atom
	for _, c := range cs {
		if !keep(c) {
			continue
		}
		for _, a := range atoms {
			if a.lists(c) || covered && a.covers(c) {
				out = append(out, c)
				if first == nil || a.pos < first.pos {
					first = a
				}
				break
			}
		}
	}
	return out, first
}

func viaText(a *atom) string {
	if a.via == "" {
		return ""
	}
	return " (in " + a.via + ")"
}

func (ck *checker) report(a *atom, kind, msg string, fixes []analysis.SuggestedFix) {
	if a.home {
		return // reported in the classifier's own package
	}
	key := fmt.Sprintf("%d/%s", a.pos, kind)
	if ck.reported[key] {
		return
	}
	ck.reported[key] = true
	ck.atAtom[a.pos] = true
	ck.pass.Report(analysis.Diagnostic{Pos: a.pos, Message: msg, SuggestedFixes: fixes})
}

// rangeFix rewrites a || chain of == (or && chain of !=) so that its 5xx
// codes become one range check.
func (ck *checker) rangeFix(a *atom) []analysis.SuggestedFix {
	if a.chain == nil {
		return nil
	}
	src := ck.source(a.chain)
	if src == nil {
		return nil
	}
	sep, rng := " || ", a.operand+" >= 500"
	if !a.chainOr {
		sep, rng = " && ", a.operand+" < 500"
	}
	var parts []string
	placed := false
	for i, leaf := range a.leaves {
		if a.codes[i] >= 500 {
			if !placed {
				parts = append(parts, rng)
				placed = true
			}
			continue
		}
		parts = append(parts, string(src(leaf)))
	}
	return []analysis.SuggestedFix{{
		Message:   "Retry every 5xx with a range check",
		TextEdits: []analysis.TextEdit{{Pos: a.chain.Pos(), End: a.chain.End(), NewText: []byte(strings.Join(parts, sep))}},
	}}
}

// source returns a function that gives the source text of a node of the
// file holding n.
func (ck *checker) source(n ast.Node) func(ast.Node) []byte {
	tf := ck.pass.Fset.File(n.Pos())
	if tf == nil {
		return nil
	}
	content, err := ck.pass.ReadFile(tf.Name())
	if err != nil {
		return nil
	}
	return func(x ast.Node) []byte {
		return content[tf.Offset(x.Pos()):tf.Offset(x.End())]
	}
}

// ---- facts ----

func (ck *checker) exportFacts() {
	fns := ck.sortedFuncs()
	ck.exportErrStatus(fns) // opstatus.go
	for _, fn := range fns {
		if !fn.Exported() {
			continue // only exported functions are used by other packages
		}
		decl := ck.decls[fn]
		if codes, ok := ck.res.FuncCodeSet(fn); ok && anyStatus(codes) {
			continue // the model exports its codes (CodesFact)
		}
		s := ck.summary(decl)
		if s == nil || !s.dep {
			continue
		}
		f := &ClassifierFact{Name: retrymodel.FuncName(fn), Posn: ck.short(decl.Pos()), Home: ck.used[fn],
			Provider: s.provider || ck.mentionsProvider(decl), ErrOnTrue: ck.errOnTrue(decl)}
		var listed, covered []int
		for _, a := range s.atoms {
			listed = append(listed, a.codes...)
			covered = append(covered, a.covered...)
		}
		for _, c := range universe {
			cv := s.codes[c]
			f.Codes = append(f.Codes, CodeResult{
				Code: c, True: cv.v&vT != 0, False: cv.v&vF != 0,
				Listed: slices.Contains(listed, c), Covered: slices.Contains(covered, c),
				BodyRead: cv.body,
			})
		}
		ck.pass.ExportObjectFact(fn, f)
	}
}

// sortedFuncs lists the package's declared functions in source order.
func (ck *checker) sortedFuncs() []*types.Func {
	fns := make([]*types.Func, 0, len(ck.decls))
	for fn := range ck.decls {
		fns = append(fns, fn)
	}
	slices.SortFunc(fns, func(a, b *types.Func) int { return int(a.Pos() - b.Pos()) })
	return fns
}

func (ck *checker) short(pos token.Pos) string { return retrymodel.Shorten(ck.pass.Fset, pos) }

// providerPkg and providerLit recognise APIs whose 429 can be an exhausted
// quota rather than a rate limit: OpenAI and the OpenAI-compatible APIs
// (openai insufficient_quota, sent as 429) and Gemini (RESOURCE_EXHAUSTED
// covers both). Anthropic's API is left out on purpose: its 429 is only
// ever rate_limit_error (a spent credit balance or spend limit comes as 400
// or 402), so retrying every 429 from it is right.
var (
	providerPkg = regexp.MustCompile(`openai|generative-ai-go|google\.golang\.org/genai|cloud\.google\.com/go/vertexai`)
	providerLit = regexp.MustCompile(`(?i)api\.openai\.com|openai\.azure\.com|/chat/completions|insufficient_quota|generativelanguage\.googleapis|aiplatform\.googleapis|resource_exhausted`)
)

// provider reports whether a decision retries calls to an API whose 429
// can be a quota error (see providerPkg): the
// function holding the layer, the retried region or a classifier it
// consults uses an LLM SDK or names an LLM endpoint, or the layer reaches
// an SDK retry of one.
func (ck *checker) provider(d *decision) bool {
	return d.provider || ck.targets(d, providerPkg, providerLit)
}

// An API that answers 529 (overloaded): Anthropic's, and the gateways and
// SDKs in front of LLM APIs. Elsewhere 529 is not sent, so a list that
// already has 500 misses nothing.
var (
	overloadPkg = regexp.MustCompile(`anthropic|openai|generative-ai-go|google\.golang\.org/genai|cloud\.google\.com/go/vertexai|bedrockruntime|langchaingo`)
	overloadLit = regexp.MustCompile(`(?i)api\.anthropic\.com|/v1/messages|overloaded_error|api\.openai\.com|/chat/completions|generativelanguage\.googleapis|aiplatform\.googleapis`)
)

// targets reports whether the function holding d's layer, its retried
// region or a classifier it consults names a package matching pkg or a
// string matching lit, or the layer reaches an SDK retry of such a package.
func (ck *checker) targets(d *decision, pkg, lit *regexp.Regexp) bool {
	l := d.layer
	for _, n := range []ast.Node{l.FuncNode, l.Node, l.Body, l.Policy.Classifier} {
		if n != nil && ck.mentions(n, pkg, lit) {
			return true
		}
	}
	for fn := range d.funcs {
		if decl := ck.decls[fn]; decl != nil && ck.mentions(decl, pkg, lit) {
			return true
		}
	}
	for _, c := range ck.res.Inner(l) {
		for _, li := range c.Layers {
			if pkg.MatchString(strings.ToLower(li.Name)) {
				return true
			}
		}
	}
	return false
}

// quotaCode names the provider's quota error in a message: Gemini's
// RESOURCE_EXHAUSTED when the layer's function names Gemini, else OpenAI's
// insufficient_quota.
func (ck *checker) quotaCode(d *decision) string {
	found := false
	for _, n := range []ast.Node{d.layer.FuncNode, d.layer.Node, d.layer.Body} {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.BasicLit:
				found = found || x.Kind == token.STRING && geminiLit.MatchString(x.Value)
			case *ast.Ident:
				if pn, ok := ck.info.Uses[x].(*types.PkgName); ok {
					found = found || geminiPkg.MatchString(pn.Imported().Path())
				}
			}
			return !found
		})
	}
	if found {
		return "RESOURCE_EXHAUSTED"
	}
	return "insufficient_quota"
}

var (
	geminiPkg = regexp.MustCompile(`generative-ai-go|google\.golang\.org/genai|cloud\.google\.com/go/vertexai`)
	geminiLit = regexp.MustCompile(`(?i)generativelanguage\.googleapis|aiplatform\.googleapis|resource_exhausted`)
)

func (ck *checker) mentionsProvider(n ast.Node) bool {
	return ck.mentions(n, providerPkg, providerLit)
}

// mentions reports a package matching pkg, or a string literal matching
// lit, used in n.
func (ck *checker) mentions(n ast.Node, pkg, lit *regexp.Regexp) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if found {
			return false
		}
		switch x := x.(type) {
		case *ast.Ident:
			switch obj := ck.info.Uses[x].(type) {
			case *types.PkgName:
				found = pkg.MatchString(obj.Imported().Path())
			case nil:
			case *types.Const:
				// A string constant of the package ("/v1/messages") names
				// what its value does.
				if obj.Pkg() != nil && obj.Pkg() != ck.pass.Pkg {
					found = pkg.MatchString(obj.Pkg().Path())
				} else if obj.Val().Kind() == constant.String {
					found = lit.MatchString(obj.Val().ExactString())
				}
			default:
				if obj.Pkg() != nil && obj.Pkg() != ck.pass.Pkg {
					found = pkg.MatchString(obj.Pkg().Path())
				}
			}
		case *ast.BasicLit:
			found = x.Kind == token.STRING && lit.MatchString(x.Value)
		}
		return !found
	})
	return found
}

// isStd reports a standard-library package (no dot in its first path
// element): its functions classify no status of a retry.
func isStd(p *types.Package) bool {
	first, _, _ := strings.Cut(p.Path(), "/")
	return !strings.Contains(first, ".")
}
