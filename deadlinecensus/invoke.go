package deadlinecensus

import (
	"go/types"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/ssa"
)

// invokeNeed resolves an interface call that no fact on the interface
// method answers (an interface the caller's own package declares, held in
// a field its constructor fills) by the types that reach the call's
// receiver in this package: a VTA call graph over the package's functions,
// built once and only when a method of that name needs time. The need is
// every implementation's that needs time on the same context parameter;
// an implementation that needs none (a local stand-in) adds nothing.
func (a *analysis_) invokeNeed(site ssa.CallInstruction) *NeedFact {
	m := site.Common().Method
	if m == nil || !a.needyMethod(m.Name()) {
		return nil
	}
	if a.vta == nil {
		a.vta = a.packageGraph()
	}
	node := a.vta.Nodes[site.Parent()]
	if node == nil {
		return nil
	}
	var out *NeedFact
	for _, e := range node.Out {
		if e.Site != site || e.Callee.Func == nil {
			continue
		}
		f := a.funcNeed(e.Callee.Func)
		if f == nil {
			continue
		}
		if out == nil {
			out = &NeedFact{Param: f.Param}
		}
		if f.Param == out.Param {
			for _, n := range f.Needs {
				if len(out.Needs) < maxNeeds {
					out.Needs = append(out.Needs, n)
				}
			}
		}
	}
	return out
}

// needyMethod reports whether a method of this name needs time: one of the
// package's own, or one with an imported fact.
func (a *analysis_) needyMethod(name string) bool {
	if a.needyNames == nil {
		a.needyNames = map[string]bool{}
		for fn := range a.needs {
			if fn.Signature.Recv() != nil {
				a.needyNames[fn.Name()] = true
			}
		}
		for _, of := range a.pass.AllObjectFacts() {
			if fn, ok := of.Object.(*types.Func); ok {
				if _, ok := of.Fact.(*NeedFact); ok && fn.Signature().Recv() != nil {
					a.needyNames[fn.Name()] = true
				}
			}
		}
	}
	return a.needyNames[name]
}

// packageGraph is the VTA call graph of the package's functions (an empty
// graph if VTA cannot be built on this package's SSA).
func (a *analysis_) packageGraph() (g *callgraph.Graph) {
	defer func() {
		if recover() != nil {
			g = callgraph.New(nil)
		}
	}()
	funcs := map[*ssa.Function]bool{}
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		funcs[fn] = true
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, fn := range a.ssa.SrcFuncs {
		add(fn)
	}
	// The methods a value made into an interface here can be called
	// through, of the names that need time: VTA resolves a call only to
	// functions it is given.
	prog := a.ssa.Pkg.Prog
	for fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				mi, ok := instr.(*ssa.MakeInterface)
				if !ok {
					continue
				}
				ms := prog.MethodSets.MethodSet(mi.X.Type())
				for i := 0; i < ms.Len(); i++ {
					if sel := ms.At(i); a.needyNames[sel.Obj().Name()] {
						if m := prog.MethodValue(sel); m != nil {
							funcs[m] = true
						}
					}
				}
			}
		}
	}
	return vta.CallGraph(funcs, nil)
}
