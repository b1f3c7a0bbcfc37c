package deadlinecensus

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Limits bound the backward walk from one pipeline. A walk that hits one
// keeps a deterministic subset: it goes breadth first, callers in a fixed
// order (by name, package and call position), so the rows it keeps are
// those with the shortest paths, ties broken by that order.
type Limits struct {
	Rows  int // entry paths listed per pipeline
	Steps int // functions visited per pipeline
	Depth int // functions on one path
}

// DefaultLimits are the limits of `retryvet census` without -max-rows or
// -max-steps.
var DefaultLimits = Limits{Rows: 1000, Steps: 200000, Depth: 40}

func (l Limits) String() string {
	return fmt.Sprintf("rows=%d steps=%d depth=%d", l.Rows, l.Steps, l.Depth)
}

// A Truncation says that a pipeline's walk hit a limit, and which.
type Truncation struct {
	RowsKept int    // rows listed (before rows with the same key are merged)
	Limit    string // "rows", "steps" or "depth": the first limit hit
	Limits   Limits
}

// An item is one function on the walk's frontier: the context flow traced
// so far and the path from it to the pipeline.
type item struct {
	fn   *ssa.Function
	flow deadline.Flow
	path []*ssa.Function
}

// walker walks the call graph backward from a pipeline to its entries,
// following the context the pipeline receives to where it was made.
type walker struct {
	p         *Program
	tracer    *deadline.Tracer
	creators  map[*ssa.Function][]*ssa.Function // functions that take a function as a value
	handlers  map[*ssa.Function]deadline.Set    // handlers wrapped in http.TimeoutHandler
	instances func(*ssa.Function) []*ssa.Function
	hasInsts  map[*ssa.Function]bool
	infra     *infraIndex // routes in front of handlers (infra.go), built on first use

	lim    Limits
	sorted map[*callgraph.Node][]*callgraph.Edge // In edges in walk order
	strs   map[*ssa.Function]string              // fn.String(), see str

	req   deadline.Requirement
	out   []*Row
	steps int
	next  []item // the frontier one level further from the pipeline
	trunc *Truncation
}

func newWalker(p *Program, lim Limits) *walker {
	w := &walker{
		p:        p,
		tracer:   &deadline.Tracer{Folder: p.folder(map[*types.Package]*durconst.Folder{})},
		creators: map[*ssa.Function][]*ssa.Function{},
		handlers: map[*ssa.Function]deadline.Set{},
		lim:      lim,
		sorted:   map[*callgraph.Node][]*callgraph.Edge{},
		strs:     map[*ssa.Function]string{},
	}
	insts := map[*ssa.Function][]*ssa.Function{}
	funcs := p.funcs
	if funcs == nil {
		funcs = ssautil.AllFunctions(p.Prog)
	}
	// In a fixed order: the creators lists and the handlers map are built
	// from it, and the walk's order (so what a truncated walk keeps)
	// follows them.
	// Only instances and the analysed functions matter here: sorting the
	// program's every function (its dependencies' too) cost more than the
	// walk.
	var some []*ssa.Function
	for fn := range funcs {
		if o := fn.Origin(); (o != nil && o != fn) || w.isAnalyzed(fn) {
			some = append(some, fn)
		}
	}
	for _, fn := range w.sortFuncs(some) {
		if o := fn.Origin(); o != nil && o != fn {
			insts[o] = append(insts[o], fn)
		}
		if !w.isAnalyzed(fn) || fn.Synthetic != "" {
			continue
		}
		w.index(fn)
	}
	w.hasInsts = map[*ssa.Function]bool{}
	for o, is := range insts {
		w.hasInsts[o] = true
		w.sortFuncs(is)
	}
	for _, cs := range w.creators {
		w.sortFuncs(cs)
	}
	w.instances = func(fn *ssa.Function) []*ssa.Function {
		if is := insts[fn]; len(is) > 0 {
			return is
		}
		return []*ssa.Function{fn}
	}
	return w
}

func (w *walker) isAnalyzed(fn *ssa.Function) bool {
	if fn == nil {
		return false
	}
	if fn.Pkg == nil {
		if o := fn.Origin(); o != nil && o != fn {
			return w.isAnalyzed(o)
		}
		return false
	}
	return w.p.analyzed[fn.Pkg.Pkg] != nil
}

// index records which functions fn takes as values (closures, method
// values, functions handed to libraries) and the handlers it wraps in
// http.TimeoutHandler.
func (w *walker) index(fn *ssa.Function) {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if call, ok := instr.(ssa.CallInstruction); ok {
				if callee := call.Common().StaticCallee(); callee != nil && isTimeoutHandler(callee) {
					if h := handlerFunc(w.p.Prog, call.Common().Args[0]); h != nil {
						if c, ok := instr.(*ssa.Call); ok {
							w.handlers[h] = w.timeoutSet(c)
						}
					}
				}
			}
			var ops [16]*ssa.Value
			for i, op := range instr.Operands(ops[:0]) {
				if op == nil || *op == nil {
					continue
				}
				f, ok := (*op).(*ssa.Function)
				if !ok {
					continue
				}
				if call, ok := instr.(ssa.CallInstruction); ok && i == 0 && call.Common().Value == f {
					continue // a static call, in the call graph already
				}
				w.creators[f] = appendOnce(w.creators[f], fn)
			}
		}
	}
}

func appendOnce(fs []*ssa.Function, f *ssa.Function) []*ssa.Function {
	for _, g := range fs {
		if g == f {
			return fs
		}
	}
	return append(fs, f)
}

func isTimeoutHandler(fn *ssa.Function) bool {
	return fn.Pkg != nil && fn.Pkg.Pkg.Path() == "net/http" && fn.Name() == "TimeoutHandler" && fn.Parent() == nil
}

// handlerFunc finds the function behind an http.Handler value:
// http.HandlerFunc(f), a closure, a value whose type has ServeHTTP.
func handlerFunc(prog *ssa.Program, v ssa.Value) *ssa.Function {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			if fn := handlerFunc(prog, x.X); fn != nil {
				return fn
			}
			if m := prog.LookupMethod(x.X.Type(), nil, "ServeHTTP"); m != nil {
				return m
			}
			return nil
		case *ssa.ChangeType:
			v = x.X
		case *ssa.MakeClosure:
			fn, _ := x.Fn.(*ssa.Function)
			return fn
		case *ssa.Function:
			return x
		default:
			return nil
		}
	}
}

func (w *walker) timeoutSet(c *ssa.Call) deadline.Set {
	// http.TimeoutHandler(h, dt, msg): the same folding as WithTimeout.
	return w.tracer.DeadlineSet(c, "http.TimeoutHandler")
}

// walkPipeline lists the entry paths to a pipeline (its instances, for a
// generic one), breadth first, within the walker's limits; the Truncation
// is nil when no limit was hit.
func (w *walker) walkPipeline(insts []*ssa.Function, req deadline.Requirement) ([]*Row, *Truncation) {
	w.req, w.out, w.steps, w.next, w.trunc = req, nil, 0, nil, nil
	for _, fn := range insts {
		w.push(fn, w.start(fn), []*ssa.Function{fn})
	}
	for len(w.next) > 0 && w.trunc == nil {
		level := w.next
		w.next = nil
		for _, it := range level {
			w.steps++
			if w.steps > w.lim.Steps {
				w.truncate("steps")
				break
			}
			if len(w.out) >= w.lim.Rows {
				w.truncate("rows")
				break
			}
			w.walk(it.fn, it.flow, it.path)
		}
	}
	if len(w.out) > w.lim.Rows {
		// A level's last function may emit more than one row.
		w.out = w.out[:w.lim.Rows]
		w.truncate("rows")
	}
	if w.trunc != nil {
		w.trunc.RowsKept = len(w.out)
	}
	return w.out, w.trunc
}

func (w *walker) truncate(limit string) {
	if w.trunc == nil {
		w.trunc = &Truncation{Limit: limit, Limits: w.lim}
	}
}

// push puts a function on the next level of the walk.
func (w *walker) push(fn *ssa.Function, flow deadline.Flow, path []*ssa.Function) {
	w.next = append(w.next, item{fn, flow, path})
}

// start is the flow the walk from pipeline fn begins with.
func (w *walker) start(fn *ssa.Function) deadline.Flow {
	ctx := -1
	for i, prm := range fn.Params {
		if retrymodel.IsContext(prm.Type()) {
			ctx = i
			break
		}
	}
	switch {
	case ctx >= 0:
		return deadline.Flow{Origin: deadline.Param, Index: ctx}
	case setsDeadline(fn):
		return deadline.Flow{Origin: deadline.Opaque, Pos: fn.Pos(), What: "the pipeline takes no context.Context and sets its own deadline"}
	}
	return deadline.Flow{Origin: deadline.Background, Pos: fn.Pos(), What: noContext}
}

// sortFuncs orders functions by name, package and position, in place.
func (w *walker) sortFuncs(fs []*ssa.Function) []*ssa.Function {
	slices.SortStableFunc(fs, w.cmpFunc)
	return fs
}

func (w *walker) cmpFunc(a, b *ssa.Function) int {
	if a == b {
		return 0
	}
	if c := strings.Compare(w.str(a), w.str(b)); c != 0 {
		return c
	}
	if c := strings.Compare(w.pkgID(a), w.pkgID(b)); c != 0 {
		return c
	}
	return cmpPos(w.p.Prog.Fset, a.Pos(), b.Pos())
}

// str is fn.String(), computed once per function: the walk's sorts
// compare it often.
func (w *walker) str(fn *ssa.Function) string {
	s, ok := w.strs[fn]
	if !ok {
		s = fn.String()
		w.strs[fn] = s
	}
	return s
}

// pkgID tells a package from its test variant (same path, same names).
func (w *walker) pkgID(fn *ssa.Function) string {
	for f := fn; f != nil; f = f.Origin() {
		if f.Pkg != nil {
			if pkg := w.p.all[f.Pkg.Pkg]; pkg != nil {
				return pkg.ID
			}
			return f.Pkg.Pkg.Path()
		}
		if f.Origin() == f {
			break
		}
	}
	return ""
}

func cmpPos(fset *token.FileSet, a, b token.Pos) int {
	pa, pb := fset.Position(a), fset.Position(b)
	if c := strings.Compare(pa.Filename, pb.Filename); c != 0 {
		return c
	}
	return pa.Offset - pb.Offset
}

// inEdges returns node's incoming edges in the walk's order: by caller,
// then call position. The call graph's own order is not stable.
func (w *walker) inEdges(node *callgraph.Node) []*callgraph.Edge {
	if es, ok := w.sorted[node]; ok {
		return es
	}
	es := slices.Clone(node.In)
	slices.SortStableFunc(es, func(a, b *callgraph.Edge) int {
		if c := w.cmpFunc(a.Caller.Func, b.Caller.Func); c != 0 {
			return c
		}
		return cmpPos(w.p.Prog.Fset, a.Site.Pos(), b.Site.Pos())
	})
	w.sorted[node] = es
	return es
}

// genericBody: the body of a generic function that has instances; the
// instances are what runs.
func (w *walker) genericBody(fn *ssa.Function) bool {
	for f := fn; f != nil; f = f.Parent() {
		if f.TypeParams().Len() > 0 && len(f.TypeArgs()) == 0 && w.hasInsts[f] {
			return true
		}
	}
	return false
}

const noContext = "the pipeline takes no context.Context: no caller's deadline reaches it"

// setsDeadline reports whether fn or its closures call context.WithTimeout
// or WithDeadline.
func setsDeadline(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(ssa.CallInstruction); ok {
				if callee := c.Common().StaticCallee(); callee != nil && callee.Pkg != nil && callee.Pkg.Pkg.Path() == "context" && strings.HasPrefix(callee.Name(), "With") && (strings.Contains(callee.Name(), "Timeout") || strings.Contains(callee.Name(), "Deadline")) {
					return true
				}
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		if setsDeadline(anon) {
			return true
		}
	}
	return false
}

func (w *walker) resolved(f deadline.Flow) bool {
	return f.Origin != deadline.Param && f.Origin != deadline.FreeVar
}

// onPath reports whether fn is on the path already: recursion, or the
// same function in a test variant of its package.
func (w *walker) onPath(fn *ssa.Function, path []*ssa.Function) bool {
	var n string
	for _, p := range path {
		if p == fn {
			return true
		}
		if p.Pkg != fn.Pkg && p.Name() == fn.Name() {
			if n == "" {
				n = name(fn)
			}
			if name(p) == n {
				return true
			}
		}
	}
	return false
}

// walk takes one step of the walk: fn is an entry (emit a row) or its
// callers go on the next level.
func (w *walker) walk(fn *ssa.Function, flow deadline.Flow, path []*ssa.Function) {
	if kind := stopKind(fn); kind != "" {
		w.emit(fn, kind, flow, path)
		return
	}
	if len(path) > w.lim.Depth {
		w.truncate("depth")
		return
	}
	if flow.Origin == deadline.FreeVar {
		parent := fn.Parent()
		fls, ok := w.tracer.ResolveFreeVarAll(fn, flow.Index, flow.Deref)
		if parent == nil || !ok {
			flow.Origin, flow.What = deadline.Opaque, "a captured context made where the trace cannot see"
			w.emit(fn, entryKind(fn), flow, path)
			return
		}
		if w.onPath(parent, path) {
			return
		}
		for _, fl := range fls { // one walk per deadline source
			w.push(parent, join(flow, fl), prepend(parent, path))
		}
		return
	}
	var edges []*callgraph.Edge
	recursive := false
	if node := w.p.Graph.Nodes[fn]; node != nil {
		for _, e := range w.inEdges(node) {
			if !w.isAnalyzed(e.Caller.Func) || w.genericBody(e.Caller.Func) {
				continue
			}
			if w.onPath(e.Caller.Func, path) {
				recursive = true // the paths through the recursion are walked already
				continue
			}
			edges = append(edges, e)
		}
	}
	if len(edges) == 0 {
		creators := w.creators[fn]
		if fn.Parent() != nil {
			creators = []*ssa.Function{fn.Parent()}
		}
		var next []*ssa.Function
		for _, c := range creators {
			if !w.onPath(c, path) {
				next = append(next, c)
			}
		}
		if len(next) == 0 {
			if recursive && len(creators) == 0 && entryKind(fn) != "exported" {
				// Only the functions already on the path call it, and
				// nothing outside can: the walk has reached this
				// recursion from its entries.
				return
			}
			w.emit(fn, entryKind(fn), flow, path)
			return
		}
		if !w.resolved(flow) {
			// The function is called by code outside the analysed
			// packages (a library handed it as a value): its context
			// comes from there.
			w.emit(fn, entryKind(fn), flow, path)
			return
		}
		for _, c := range next {
			w.push(c, flow, prepend(c, path))
		}
		return
	}
	goEmitted := false
	seen := map[ssa.CallInstruction]bool{}
	for _, e := range edges {
		if seen[e.Site] {
			continue
		}
		seen[e.Site] = true
		caller := e.Caller.Func
		_, isGo := e.Site.(*ssa.Go)
		nfs := []deadline.Flow{flow}
		if !w.resolved(flow) {
			arg := argFor(e.Site, fn, flow.Index)
			if arg == nil {
				nfs[0] = deadline.Flow{Origin: deadline.Opaque, What: "a call the trace cannot map", Sets: flow.Sets, Partial: flow.Partial}
			} else {
				nfs = nfs[:0]
				for _, f := range w.tracer.TraceAll(arg) { // one per deadline source
					nfs = append(nfs, join(flow, f))
				}
			}
		}
		for _, nf := range nfs {
			if isGo && w.resolved(nf) {
				// A goroutine whose context is settled once it starts: it is
				// the entry.
				if !goEmitted || !w.resolved(flow) || len(nfs) > 1 {
					w.emit(fn, "goroutine", nf, path)
					goEmitted = true
				}
				continue
			}
			w.push(caller, nf, prepend(caller, path))
		}
	}
}

// join continues flow (traced up to a parameter or free variable) with
// next, the trace of the value bound to it one level up.
func join(flow, next deadline.Flow) deadline.Flow {
	sets := append(append([]deadline.Set(nil), flow.Sets...), next.Sets...)
	next.Sets = sets
	next.Partial = next.Partial || flow.Partial
	return next
}

func prepend(fn *ssa.Function, path []*ssa.Function) []*ssa.Function {
	return append([]*ssa.Function{fn}, path...)
}

// argFor returns the value a call site passes for callee's parameter i.
func argFor(site ssa.CallInstruction, callee *ssa.Function, i int) ssa.Value {
	c := site.Common()
	if c.IsInvoke() {
		if i == 0 {
			return c.Value
		}
		if i-1 < len(c.Args) {
			return c.Args[i-1]
		}
		return nil
	}
	if len(c.Args) == len(callee.Params) && i < len(c.Args) {
		return c.Args[i]
	}
	return nil
}

// stopKind says whether fn is an entry the walk stops at whatever calls it.
func stopKind(fn *ssa.Function) string {
	if fn.Parent() == nil && fn.Pkg != nil && fn.Signature.Recv() == nil {
		name := fn.Name()
		if name == "main" && fn.Pkg.Pkg.Name() == "main" {
			return "main"
		}
		if name == "init" || strings.HasPrefix(name, "init#") {
			return "init"
		}
		if isTestFunc(fn) {
			return "test"
		}
	}
	if isHandler(fn) {
		return "http-handler"
	}
	return ""
}

func isTestFunc(fn *ssa.Function) bool {
	if fn.Prog == nil || !fn.Pos().IsValid() {
		return false
	}
	file := fn.Prog.Fset.File(fn.Pos())
	if file == nil || !strings.HasSuffix(file.Name(), "_test.go") {
		return false
	}
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if strings.HasPrefix(fn.Name(), p) {
			return true
		}
	}
	return false
}

// isHandler: func(http.ResponseWriter, *http.Request), as a function, a
// closure or a ServeHTTP method.
func isHandler(fn *ssa.Function) bool {
	params := fn.Signature.Params()
	if params.Len() != 2 {
		return false
	}
	return isNamed(params.At(0).Type(), "net/http", "ResponseWriter") && isNamed(params.At(1).Type(), "net/http", "Request")
}

func isNamed(t types.Type, path, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// entryKind classifies a function nothing in the analysed code calls.
func entryKind(fn *ssa.Function) string {
	if k := stopKind(fn); k != "" {
		return k
	}
	for f := fn; f != nil; f = f.Parent() {
		if f.Parent() == nil && isTestFunc(f) {
			return "test"
		}
	}
	if fn.Parent() == nil {
		if obj, ok := fn.Object().(*types.Func); ok && obj.Exported() {
			if recv := fn.Signature.Recv(); recv == nil || exportedType(recv.Type()) {
				return "exported"
			}
		}
	}
	return "other"
}

func exportedType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Exported()
	}
	return false
}

// emit records a row for entry fn.
func (w *walker) emit(fn *ssa.Function, kind string, flow deadline.Flow, path []*ssa.Function) {
	if kind == "http-handler" && flow.Origin == deadline.Request {
		if s, ok := w.handlers[fn]; ok {
			flow.Sets = append(flow.Sets, s)
		}
		flow.Sets = append(flow.Sets, w.infraSets(fn)...) // infra.go
	}
	if flow.Origin == deadline.Request {
		// A deadline the values file says infrastructure sets in front of a handler.
		if s, ok := deadline.HandlerSet(w.p.Prog, w.p.funcs, path); ok {
			flow.Sets = append(flow.Sets[:len(flow.Sets):len(flow.Sets)], s)
		}
	}
	d := deadline.Summarize(flow)
	row := &Row{
		Entry:    name(fn),
		Kind:     kind,
		D:        d,
		CanStart: w.req.CanStart(d),
		P99:      w.req.CoversP99(d),
	}
	for _, f := range path {
		row.Path = append(row.Path, name(f))
		row.PathPos = append(row.PathPos, w.p.posn(f.Pos()))
	}
	row.TestFile = inTestFile(fn)
	switch d.Kind {
	case deadline.Known, deadline.Unfolded:
		row.Source = w.p.posn(d.Src)
		if d.Kind == deadline.Unfolded && d.Set != nil && d.Set.Expr != "" {
			row.Note = d.Set.Call + "(" + d.Set.Expr + ") cannot be folded to a constant"
			if d.Bound > 0 {
				row.Note += "; at most " + deadline.Format(d.Bound)
			}
		}
	case deadline.None:
		row.Source = w.p.posn(d.Src)
		switch flow.Origin {
		case deadline.Request:
			row.Note = "the request's context: net/http sets no deadline"
		case deadline.Detached:
			row.Note = "context.WithoutCancel drops the caller's deadline"
		default:
			if flow.What == noContext {
				row.Note = noContext
			}
		}
	case deadline.Unknown:
		row.Source = w.p.posn(d.Src)
		row.Note = d.What
	case deadline.FromCaller:
		row.Note = "the context is a parameter of " + name(fn)
	}
	w.noteInfra(row, d) // infra.go
	if n := d.ValueNote(w.p.posn); n != "" {
		row.Note = n // a default, or a value from the values file
		if d.Set.From != "" {
			row.Source = d.Set.From
		}
	}
	w.out = append(w.out, row)
}

// name renders a function for the census: its full name, generic
// instances by their origin.
func name(fn *ssa.Function) string { return deadline.FuncName(fn) }

// remoteVia follows the call graph from the calls inside layer l (held by
// fn, or by a closure in it) for a few levels and returns the first
// function it reaches that the retry model knows makes a remote call.
func (w *walker) remoteVia(fn *ssa.Function, l *retrymodel.Layer, results map[*types.Package]*retrymodel.Result) string {
	region := l.Body
	if region == nil {
		region = l.Node
	}
	if region == nil {
		return ""
	}
	lo, hi := region.Pos(), region.End()
	remote := func(g *ssa.Function) bool {
		if g.Pkg == nil {
			return false
		}
		if o := g.Origin(); o != nil {
			g = o
		}
		obj, _ := g.Object().(*types.Func)
		res := results[g.Pkg.Pkg]
		if obj == nil || res == nil {
			return false
		}
		ff := res.Func(obj)
		return ff != nil && ff.Remote
	}
	seen := map[*ssa.Function]bool{}
	var found string
	var visit func(g *ssa.Function, depth int)
	visit = func(g *ssa.Function, depth int) {
		if found != "" || seen[g] {
			return
		}
		seen[g] = true
		if remote(g) {
			found = name(g)
			return
		}
		if depth >= 4 {
			return
		}
		if node := w.p.Graph.Nodes[g]; node != nil {
			for _, e := range w.outEdges(node) {
				visit(e.Callee.Func, depth+1)
			}
		}
	}
	var scan func(f *ssa.Function)
	scan = func(f *ssa.Function) {
		node := w.p.Graph.Nodes[f]
		if node == nil {
			return
		}
		for _, e := range w.outEdges(node) {
			if pos := e.Site.Pos(); pos >= lo && pos <= hi {
				visit(e.Callee.Func, 0)
			}
		}
		for _, anon := range f.AnonFuncs {
			if anon.Pos() >= lo && anon.Pos() <= hi {
				scan(anon)
			}
		}
	}
	scan(fn)
	return found
}

// outEdges returns node's outgoing edges by call position, then callee.
func (w *walker) outEdges(node *callgraph.Node) []*callgraph.Edge {
	es := slices.Clone(node.Out)
	slices.SortStableFunc(es, func(a, b *callgraph.Edge) int {
		if c := cmpPos(w.p.Prog.Fset, a.Site.Pos(), b.Site.Pos()); c != 0 {
			return c
		}
		return w.cmpFunc(a.Callee.Func, b.Callee.Func)
	})
	return es
}
