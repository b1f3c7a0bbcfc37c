package deadlinecensus

import (
	_ "embed"
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/retryvet/retryvet/internal/analysisdoc"
	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Name is the analyzer's stable name.
const Name = "deadlinecensus"

//go:embed doc.go
var doc string

// Analyzer reports, where a deadline is set, a deadline that is shorter
// than the retry of a pipeline it reaches needs, or than the pipeline's
// declared p99.
var Analyzer = &analysis.Analyzer{
	Name: Name,
	Doc:  analysisdoc.Extract(doc, Name),
	URL:  analysisdoc.URL(Name),
	Run:  directive.Filter(Name, run),
	// Not buildssa: SSA is built only for a package that has a pipeline or
	// calls into one (lazy.go). As a required analyzer it ran on every
	// dependency go vet visits for facts. ctrlflow is what buildssa needs
	// (noreturn facts); vet's lostcancel runs it anyway.
	Requires:  []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer, retrymodel.Analyzer},
	FactTypes: []analysis.Fact{(*NeedFact)(nil)},
}

// NeedFact says that a function passes one of its context parameters to
// a pipeline (directly or through ctx-passing functions): the deadline on
// that context must leave the pipeline's retry the time it needs.
type NeedFact struct {
	// Param is the index of the context parameter, counting the receiver
	// first for methods (as SSA does).
	Param int
	Needs []Need
}

// A Need is one pipeline reached through the context parameter.
type Need struct {
	Req deadline.Requirement
	Via []string // the functions from the fact's function to the pipeline
}

// AFact marks NeedFact as an analysis fact.
func (*NeedFact) AFact() {}

func (f *NeedFact) String() string {
	var parts []string
	for _, n := range f.Needs {
		s := fmt.Sprintf("needs %s on param %d for %s", n.Req.RequiredString(), f.Param, n.Req.Pipeline)
		if n.Req.P99 > 0 {
			s += fmt.Sprintf(" (p99 %s)", deadline.Format(n.Req.P99))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// maxNeeds bounds the pipelines a fact carries.
const maxNeeds = 4

type analysis_ struct {
	pass   *analysis.Pass
	res    *retrymodel.Result
	ssa    *buildssa.SSA
	tracer *deadline.Tracer
	needs  map[*ssa.Function]*NeedFact // functions of this package
	// reported dedups diagnostics: one per position and message.
	reported map[string]bool
	// handlers whose request context reaches a pipeline, checked where
	// they are wrapped in http.TimeoutHandler.
	handlers map[*ssa.Function][]handlerNeed
	// vta resolves interface calls no fact answers (invoke.go), built on
	// first use; needyNames are the method names that need time.
	vta        *callgraph.Graph
	needyNames map[string]bool
}

type handlerNeed struct {
	need  *NeedFact
	steps []string
}

func run(pass *analysis.Pass) (any, error) {
	if !importsContext(pass.Pkg) {
		return nil, nil
	}
	res := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer res.Hold()()
	if !needsSSA(pass, res) {
		// Nothing here can need time on a context; a malformed manifest
		// beside a registration is still said.
		(&analysis_{pass: pass, res: res}).infraHandlers(nil)
		return nil, nil
	}
	s, err := buildSSA(pass)
	if err != nil {
		return nil, err
	}
	folder := durconst.New(pass.TypesInfo, pass.Files)
	a := &analysis_{
		pass:     pass,
		res:      res,
		ssa:      s,
		tracer:   &deadline.Tracer{Folder: func(*ssa.Function) *durconst.Folder { return folder }},
		needs:    map[*ssa.Function]*NeedFact{},
		reported: map[string]bool{},
		handlers: map[*ssa.Function][]handlerNeed{},
	}
	// The package's own pipelines.
	for _, fn := range s.SrcFuncs {
		obj, _ := fn.Object().(*types.Func)
		if obj == nil || fn.Parent() != nil {
			continue
		}
		req, ok := deadline.PipelineOf(res, pass.TypesInfo, obj)
		if !ok {
			continue
		}
		if k := ctxParam(fn); k >= 0 {
			a.needs[fn] = &NeedFact{Param: k, Needs: []Need{{Req: req, Via: []string{retrymodel.FuncName(obj)}}}}
		}
	}
	// Propagate through ctx-passing functions until nothing changes, then
	// check every deadline set in the package against what it reaches.
	for range 8 {
		if !a.propagate(s.SrcFuncs, false) {
			break
		}
	}
	a.propagate(s.SrcFuncs, true)
	a.timeoutHandlers(s.SrcFuncs)
	a.infraHandlers(s.SrcFuncs) // infra.go
	a.interfaceNeeds()
	for fn, f := range a.needs {
		if obj, ok := fn.Object().(*types.Func); ok && fn.Parent() == nil && len(fn.TypeArgs()) == 0 {
			pass.ExportObjectFact(obj, f)
		}
	}
	return nil, nil
}

func importsContext(pkg *types.Package) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == "context" || imp.Path() == "net/http" { // a handler passes r.Context() without importing context
			return true
		}
	}
	return false
}

// ctxParam returns the index of fn's first context.Context parameter.
func ctxParam(fn *ssa.Function) int {
	for i, p := range fn.Params {
		if retrymodel.IsContext(p.Type()) {
			return i
		}
	}
	return -1
}

// needOf returns what calling callee through site needs, from this
// package's own summaries or an imported fact.
func (a *analysis_) needOf(site ssa.CallInstruction) (*NeedFact, string) {
	c := site.Common()
	if c.IsInvoke() {
		var f NeedFact
		if c.Method != nil && a.pass.ImportObjectFact(c.Method, &f) {
			return &f, c.Method.Name()
		}
		if f := a.invokeNeed(site); f != nil {
			return f, c.Method.Name()
		}
		return nil, ""
	}
	callee := c.StaticCallee()
	if callee == nil {
		return nil, ""
	}
	return a.funcNeed(callee), ""
}

// funcNeed is what calling callee needs, from this package's summaries or
// an imported fact.
func (a *analysis_) funcNeed(callee *ssa.Function) *NeedFact {
	if o := callee.Origin(); o != nil {
		callee = o
	}
	if f := a.needs[callee]; f != nil {
		return f
	}
	obj, _ := callee.Object().(*types.Func)
	if obj == nil || obj.Pkg() == a.pass.Pkg {
		return nil
	}
	var f NeedFact
	if a.pass.ImportObjectFact(obj, &f) {
		return &f
	}
	return nil
}

// propagate visits every call of a function that needs time on its
// context. A context that comes from the caller's own parameter makes the
// caller need it too; a deadline set on the way is checked (when report is
// set). It returns whether a summary changed.
func (a *analysis_) propagate(fns []*ssa.Function, report bool) bool {
	changed := false
	var all []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		all = append(all, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, fn := range fns {
		if fn.Parent() == nil {
			add(fn)
		}
	}
	for _, fn := range all {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				site, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				need, _ := a.needOf(site)
				if need == nil {
					continue
				}
				arg := argAt(site, need.Param)
				if arg == nil {
					continue
				}
				for _, flow := range a.tracer.TraceAll(arg) { // each deadline source apart
					at := fn
					steps := []string{deadline.ShortFuncName(fn)}
					// A closure's captured context: follow it to where the
					// closure was made.
					for flow.Origin == deadline.FreeVar && at.Parent() != nil {
						fl, ok := a.tracer.ResolveFreeVar(at, flow.Index, flow.Deref)
						if !ok {
							break
						}
						flow = join(flow, fl)
						at = at.Parent()
						steps = append([]string{deadline.ShortFuncName(at)}, steps...)
					}
					if report {
						a.check(flow, need, steps)
					}
					if report && flow.Origin == deadline.Request && isHandler(at) && passThrough(flow, need) {
						a.handlers[at] = append(a.handlers[at], handlerNeed{need: need, steps: steps})
					}
					if flow.Origin == deadline.Param && at.Parent() == nil && passThrough(flow, need) {
						if a.addNeed(at, flow.Index, need) {
							changed = true
						}
					}
				}
			}
		}
	}
	return changed
}

// passThrough: the context reaches the pipeline with no deadline on the
// way that already decides it (a deadline below what is needed is
// reported where it is set, not again at every caller).
func passThrough(flow deadline.Flow, need *NeedFact) bool {
	d := deadline.Summarize(flow)
	if d.Kind != deadline.Known {
		return true
	}
	for _, n := range need.Needs {
		if n.Req.CanStart(d) == retrymodel.No || n.Req.CoversP99(d) == retrymodel.No {
			return false
		}
	}
	return true
}

func (a *analysis_) addNeed(fn *ssa.Function, param int, callee *NeedFact) bool {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, _ := fn.Object().(*types.Func)
	if obj == nil {
		return false
	}
	f := a.needs[fn]
	if f == nil {
		f = &NeedFact{Param: param}
		a.needs[fn] = f
	}
	if f.Param != param {
		return false // one context parameter per function
	}
	changed := false
	for _, n := range callee.Needs {
		if slices.Contains(n.Via, retrymodel.FuncName(obj)) {
			continue // recursion
		}
		dup := false
		for _, m := range f.Needs {
			if m.Req.Pipeline == n.Req.Pipeline {
				dup = true
			}
		}
		if dup || len(f.Needs) >= maxNeeds {
			continue
		}
		f.Needs = append(f.Needs, Need{Req: n.Req, Via: append([]string{retrymodel.FuncName(obj)}, n.Via...)})
		changed = true
	}
	return changed
}

// argAt returns the argument a site passes for parameter k (receiver
// first, as SSA counts).
func argAt(site ssa.CallInstruction, k int) ssa.Value {
	c := site.Common()
	if c.IsInvoke() {
		k--
	}
	if k < 0 || k >= len(c.Args) {
		return nil
	}
	return c.Args[k]
}

// check reports a deadline set on the way that is below what a pipeline
// needs or below its p99, at the place where the deadline is set.
func (a *analysis_) check(flow deadline.Flow, need *NeedFact, steps []string) {
	d := deadline.Summarize(flow)
	if d.Kind != deadline.Known || d.Set == nil || !d.Src.IsValid() {
		return
	}
	for _, n := range need.Needs {
		via := strings.Join(append(slices.Clip(steps), n.Via...), " -> ")
		if n.Req.CanStart(d) == retrymodel.No {
			a.report(d.Src, deadline.NeverStartsMessage(n.Req, d.D, d.SetHere(a.pass.Fset))+"; path: "+via)
		}
		if n.Req.CoversP99(d) == retrymodel.No {
			a.report(d.Src, deadline.BelowP99Message(n.Req, d.D)+"; path: "+via)
		}
	}
}

func (a *analysis_) report(pos token.Pos, msg string) {
	key := fmt.Sprint(pos) + msg
	if a.reported[key] {
		return
	}
	a.reported[key] = true
	a.pass.Report(analysis.Diagnostic{Pos: pos, Message: msg})
}

// interfaceNeeds exports a need on the methods of the package's interfaces
// when every implementation the package declares needs time on the same
// context parameter: a caller in another package that holds the interface
// is then checked as well (the least that any implementation needs).
func (a *analysis_) interfaceNeeds() {
	scope := a.pass.Pkg.Scope()
	var concrete []types.Type
	var ifaces []*types.TypeName
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if types.IsInterface(tn.Type()) {
			ifaces = append(ifaces, tn)
		} else {
			concrete = append(concrete, tn.Type())
		}
	}
	prog := a.ssa.Pkg.Prog
	for _, tn := range ifaces {
		iface, _ := tn.Type().Underlying().(*types.Interface)
		if iface == nil || iface.NumMethods() == 0 {
			continue
		}
		for i := 0; i < iface.NumExplicitMethods(); i++ {
			m := iface.ExplicitMethod(i)
			var best *NeedFact
			impls := 0
			ok := true
			for _, t := range concrete {
				var impl types.Type
				switch {
				case types.Implements(t, iface):
					impl = t
				case types.Implements(types.NewPointer(t), iface):
					impl = types.NewPointer(t)
				default:
					continue
				}
				impls++
				fn := prog.LookupMethod(impl, m.Pkg(), m.Name())
				if fn != nil && fn.Synthetic != "" {
					if obj, _ := fn.Object().(*types.Func); obj != nil {
						fn = prog.FuncValue(obj)
					}
				}
				f := a.needs[fn]
				if fn == nil || f == nil || len(f.Needs) == 0 {
					ok = false
					break
				}
				if best == nil || minNeed(f) < minNeed(best) {
					best = f
				}
			}
			if ok && impls > 0 && best != nil {
				a.pass.ExportObjectFact(m, &NeedFact{Param: best.Param, Needs: best.Needs})
			}
		}
	}
}

func minNeed(f *NeedFact) (m int64) {
	m = 1 << 62
	for _, n := range f.Needs {
		if n.Req.Known && int64(n.Req.Required) < m {
			m = int64(n.Req.Required)
		}
	}
	return m
}

// timeoutHandlers checks http.TimeoutHandler(h, d, msg) where h is a
// handler of this package whose request context reaches a pipeline.
func (a *analysis_) timeoutHandlers(fns []*ssa.Function) {
	if len(a.handlers) == 0 {
		return
	}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				c, ok := instr.(*ssa.Call)
				if !ok {
					continue
				}
				callee := c.Call.StaticCallee()
				if callee == nil || !isTimeoutHandler(callee) {
					continue
				}
				h := handlerFunc(fn.Prog, c.Call.Args[0])
				if h == nil {
					continue
				}
				set := a.tracer.DeadlineSet(c, "http.TimeoutHandler")
				for _, hn := range a.handlers[h] {
					a.check(deadline.Flow{Origin: deadline.Request, Sets: []deadline.Set{set}}, hn.need, hn.steps)
				}
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	for _, fn := range fns {
		if fn.Parent() == nil {
			visit(fn)
		}
	}
	// A deadline the values file says infrastructure sets in front of a handler.
	for h, hns := range a.handlers {
		if set, ok := deadline.HandlerSet(h.Prog, nil, []*ssa.Function{h}); ok {
			for _, hn := range hns {
				a.check(deadline.Flow{Origin: deadline.Request, Sets: []deadline.Set{set}}, hn.need, hn.steps)
			}
		}
	}
}
