package effects

import (
	"fmt"
	"go/ast"
	"go/types"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// WritesFact marks a function that passes one of its context parameters
// to work that must happen (a write, status update, release, ack, publish,
// delete, commit): called on an expired context, it fails. It is exported
// so a caller in another package is checked through the function, the way
// printf's wrapper facts work.
type WritesFact struct {
	Param int    // index of the context parameter
	Kind  string // "status write", "release", ...
	Via   string // the call that does the work: db.ExecContext
	Posn  string // where: store/store.go:31
	Store string // the store package the work goes to, "" when not known (bounded.go compares backends)
	// Adds: some write the function makes on that context leaves a new
	// record each time (adds.go), so calling the function twice does too.
	Adds bool
}

// AFact marks WritesFact as an analysis fact.
func (*WritesFact) AFact() {}

func (f *WritesFact) String() string {
	s := fmt.Sprintf("%s with ctx param %d via %s at %s", f.Kind, f.Param, f.Via, f.Posn)
	if f.Adds {
		s += " (adds)"
	}
	return s
}

// computeFacts finds this package's functions that write with a context
// parameter, to a fixed point (a function that calls such a function with
// its own context writes too), and exports their facts.
func (c *Result) computeFacts() {
	type cand struct {
		fn     *types.Func
		decl   *ast.FuncDecl
		params []int
		calls  []*ast.CallExpr
	}
	var cands []*cand
	for fn, fd := range FuncDecls(c.pass) {
		sig := fn.Type().(*types.Signature)
		cd := &cand{fn: fn, decl: fd}
		for i := 0; i < sig.Params().Len(); i++ {
			if retrymodel.IsContext(sig.Params().At(i).Type()) {
				cd.params = append(cd.params, i)
			}
		}
		if len(cd.params) == 0 {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				cd.calls = append(cd.calls, call)
			}
			return true
		})
		cands = append(cands, cd)
	}
	for changed, iter := true, 0; changed && iter < 8; iter++ {
		changed = false
		for _, cd := range cands {
			// A function's fact is its first write; a later one that adds
			// (or a callee's fact that comes to add) sets Adds.
			if f := c.facts[cd.fn]; f != nil && f.Adds {
				continue
			}
			sig := cd.fn.Type().(*types.Signature)
		calls:
			for _, call := range cd.calls {
				w := c.Classify(call)
				if w == nil {
					continue
				}
				for _, i := range cd.params {
					p := sig.Params().At(i)
					if p.Name() == "" || p.Name() == "_" {
						continue
					}
					if !c.flow.Descends(w.Ctx, Ref{V: p, Text: p.Name()}, call.Pos(), cd.decl.Body.Pos(), 0) {
						continue
					}
					f := c.facts[cd.fn]
					switch {
					case f == nil:
						c.facts[cd.fn] = &WritesFact{
							Param: i,
							Kind:  kindOf(cd.fn.Name(), w.Kind),
							Via:   w.Callee,
							Posn:  c.short(call.Pos()),
							Store: w.Store,
							Adds:  w.Adds,
						}
						changed = true
					case w.Adds && i == f.Param:
						f.Adds = true
						changed = true
					}
					if w.Adds {
						break calls
					}
					continue calls
				}
			}
		}
	}
	for fn, f := range c.facts {
		c.pass.ExportObjectFact(fn, f)
	}
}

// ImplFact returns the WritesFact of a method of this package that
// implements the interface method m: a call through the interface reaches
// that write (a NodePoolManager whose Kubernetes implementation updates
// the node). Some implementation suffices; the others (a fake for tests, a
// second backend) do not make the call safe on a done context.
func (c *Result) ImplFact(m *types.Func) (*types.Func, *WritesFact) {
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, nil
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok {
		return nil, nil
	}
	var best *types.Func
	for _, fn := range c.writingMethods(m.Name()) {
		if best != nil && !before(fn, best, c.pass.Pkg) {
			continue
		}
		fsig := fn.Type().(*types.Signature)
		if fsig.Recv() == nil {
			continue
		}
		recv := fsig.Recv().Type()
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		if types.IsInterface(recv) {
			continue
		}
		if types.Implements(recv, iface) || types.Implements(types.NewPointer(recv), iface) {
			best = fn
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, c.factOf(best)
}

// writingMethods lists the methods named name that have a WritesFact: this
// package's (so far, during computeFacts), then the dependencies'.
func (c *Result) writingMethods(name string) []*types.Func {
	var out []*types.Func
	for fn := range c.facts {
		if fn.Name() == name {
			out = append(out, fn)
		}
	}
	if c.depWriters == nil {
		c.depWriters = make(map[string][]*types.Func)
		for _, of := range c.pass.AllObjectFacts() {
			if _, ok := of.Fact.(*WritesFact); !ok {
				continue
			}
			if fn, ok := of.Object.(*types.Func); ok && fn.Pkg() != c.pass.Pkg {
				c.depWriters[fn.Name()] = append(c.depWriters[fn.Name()], fn)
			}
		}
	}
	return append(out, c.depWriters[name]...)
}

// before orders candidate implementations: this package's first, then by
// package path and position, so the choice does not depend on map order.
func before(a, b *types.Func, here *types.Package) bool {
	if (a.Pkg() == here) != (b.Pkg() == here) {
		return a.Pkg() == here
	}
	if a.Pkg().Path() != b.Pkg().Path() {
		return a.Pkg().Path() < b.Pkg().Path()
	}
	return a.Pos() < b.Pos()
}
