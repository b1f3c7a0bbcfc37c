package expiredctx

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file finds the cleanup runners: functions that call the function
// values registered in a collection, handing them their own context,
//
//	func (c *Cleanup) run(ctx context.Context) error {
//		for i := len(c.fns) - 1; i >= 0; i-- {
//			errs = append(errs, c.fns[i](ctx)) // the closures Add stored
//		}
//	}
//
// What the closures do is not visible at the call (they are registered
// elsewhere, often by another package), but undoing work is I/O: a runner
// called on an expired context runs every registered cleanup on it. A
// caller that hands its context parameter to a runner is a runner too
// (rollback's InvokeIfErr, Invoke, invokeOrErr, invokeLIFO). Only the
// failure branch of a call bounded by a deadline the function sets
// (bounded.go) treats a runner call as a write.

// RunnerFact marks a function that runs function values registered in a
// slice or map (a field of its receiver or of a parameter) with one of its
// context parameters. Exported so a caller in another package is checked
// through the function, like WritesFact.
type RunnerFact struct {
	Param int    // index of the context parameter
	Field string // the collection: Cleanup.fns
	Posn  string // where the registered functions are called: sandbox/cleanup.go:80
}

// AFact marks RunnerFact as an analysis fact.
func (*RunnerFact) AFact() {}

func (f *RunnerFact) String() string {
	return fmt.Sprintf("runs %s with ctx param %d at %s", f.Field, f.Param, f.Posn)
}

// computeRunnerFacts finds this package's runners, to a fixed point, and
// exports their facts.
func (c *checker) computeRunnerFacts() {
	c.runners = make(map[*types.Func]*RunnerFact)
	type cand struct {
		fn     *types.Func
		decl   *ast.FuncDecl
		params []*types.Var // the named context parameters, by index (nil when not one)
		calls  []*ast.CallExpr
	}
	var cands []*cand
	for fn, fd := range effects.FuncDecls(c.pass) {
		sig := fn.Type().(*types.Signature)
		cd := &cand{fn: fn, decl: fd, params: make([]*types.Var, sig.Params().Len())}
		named := false
		for i := 0; i < sig.Params().Len(); i++ {
			p := sig.Params().At(i)
			if retrymodel.IsContext(p.Type()) && p.Name() != "" && p.Name() != "_" {
				cd.params[i], named = p, true
			}
		}
		if !named {
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
	// paramOf returns the index of the context parameter that arg is, or
	// is derived from, or -1.
	paramOf := func(cd *cand, arg ast.Expr, at *ast.CallExpr) int {
		for i, p := range cd.params {
			if p != nil && c.flow.Descends(arg, effects.Ref{V: p, Text: p.Name()}, at.Pos(), cd.decl.Body.Pos(), 0) {
				return i
			}
		}
		return -1
	}
	// First the functions that call registered function values themselves;
	// then, to a fixed point, those that hand their ctx to a runner.
	for _, cd := range cands {
	direct:
		for _, call := range cd.calls {
			if field, ok := c.registered(cd.decl, call); ok {
				for _, a := range call.Args {
					if i := paramOf(cd, a, call); i >= 0 {
						c.runners[cd.fn] = &RunnerFact{Param: i, Field: field, Posn: c.short(call.Pos())}
						break direct
					}
				}
			}
		}
	}
	for changed, iter := true, 0; changed && iter < 8; iter++ {
		changed = false
		for _, cd := range cands {
			if c.runners[cd.fn] != nil {
				continue
			}
			for _, call := range cd.calls {
				if w, rf := c.runnerCall(call); w != nil {
					if i := paramOf(cd, w.Ctx, call); i >= 0 {
						f := *rf
						f.Param = i
						c.runners[cd.fn] = &f
					}
				}
				if c.runners[cd.fn] != nil {
					changed = true
					break
				}
			}
		}
	}
	for fn, f := range c.runners {
		c.pass.ExportObjectFact(fn, f)
	}
}

// runnerKind is the kind of a runner call taken as a write: only the
// failure branches of bounded calls take it (applies).
const runnerKind = "cleanup"

// runnerWrite returns call as a write when its callee is a runner.
func (c *checker) runnerWrite(call *ast.CallExpr) *effects.Write {
	w, _ := c.runnerCall(call)
	return w
}

// runnerCall returns call as a write, with the callee's fact, when its
// callee is a runner and it is given a context at the runner's parameter.
func (c *checker) runnerCall(call *ast.CallExpr) (*effects.Write, *RunnerFact) {
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil, nil
	}
	fn = fn.Origin()
	f := c.runners[fn]
	if f == nil && fn.Pkg() != c.pass.Pkg {
		var imp RunnerFact
		if c.pass.ImportObjectFact(fn, &imp) {
			f = &imp
		}
	}
	if f == nil || f.Param >= len(call.Args) {
		return nil, nil
	}
	return &effects.Write{
		Call: call, Ctx: call.Args[f.Param], Kind: runnerKind, Callee: effects.CalleeText(call),
		Via: "runs the functions registered in " + f.Field + " on it (at " + f.Posn + ")",
	}, f
}

// registered reports whether call calls a function value taken from a
// slice or map held in a field of fn's receiver or parameters (c.fns[i],
// or cb ranging over c.fns), whose last result is an error: work that can
// fail, registered to be run later. It returns the field's name.
func (c *checker) registered(fd *ast.FuncDecl, call *ast.CallExpr) (string, bool) {
	if _, isFunc := typeutil.Callee(c.info, call).(*types.Func); isFunc {
		return "", false
	}
	tv, ok := c.info.Types[call.Fun]
	if !ok || tv.IsType() {
		return "", false
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok || sig.Results().Len() == 0 || !isError(sig.Results().At(sig.Results().Len()-1).Type()) {
		return "", false
	}
	coll := c.collectionOf(fd, call.Fun)
	if coll == nil {
		return "", false
	}
	sel, ok := coll.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	s := c.info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal {
		return "", false
	}
	switch c.info.TypeOf(sel).Underlying().(type) {
	case *types.Slice, *types.Map:
	default:
		return "", false
	}
	root := sel.X
	for {
		if x, ok := astutil.Unparen(root).(*ast.SelectorExpr); ok {
			root = x.X
			continue
		}
		break
	}
	id, ok := astutil.Unparen(root).(*ast.Ident)
	if !ok || !c.ownParam(fd, c.info.Uses[id]) {
		return "", false
	}
	owner := types.TypeString(s.Recv(), func(*types.Package) string { return "" })
	if p, ok := s.Recv().(*types.Pointer); ok {
		owner = types.TypeString(p.Elem(), func(*types.Package) string { return "" })
	}
	return owner + "." + sel.Sel.Name, true
}

// collectionOf returns the collection a function value e is taken from
// while the function runs all of it: X for X[i] where i is a loop's
// variable, and for a variable, the collection it ranges over or such an
// element it was assigned from. A lookup by key (a dispatch table's
// handlers[name]) runs one handler, not the registered work.
func (c *checker) collectionOf(fd *ast.FuncDecl, e ast.Expr) ast.Expr {
	for depth := 0; depth < 4; depth++ {
		switch x := astutil.Unparen(e).(type) {
		case *ast.IndexExpr:
			id, ok := astutil.Unparen(x.Index).(*ast.Ident)
			if !ok || !loopVar(fd, c.info, c.info.Uses[id]) {
				return nil
			}
			return astutil.Unparen(x.X)
		case *ast.Ident:
			v, _ := c.info.Uses[x].(*types.Var)
			if v == nil {
				return nil
			}
			if r := rangeOver(fd, c.info, v); r != nil {
				return astutil.Unparen(r)
			}
			as := c.flow.Assigns(v)
			if len(as) != 1 || as[0].RHS == nil {
				return nil
			}
			e = as[0].RHS
			continue
		}
		return nil
	}
	return nil
}

// rangeOver returns X when v is the value variable of `for _, v := range X`
// in fd.
func rangeOver(fd *ast.FuncDecl, info *types.Info, v *types.Var) ast.Expr {
	var out ast.Expr
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		r, ok := n.(*ast.RangeStmt)
		if !ok || out != nil {
			return out == nil
		}
		if id, ok := r.Value.(*ast.Ident); ok && info.Defs[id] == v {
			out = r.X
		}
		return true
	})
	return out
}

// loopVar reports whether obj is declared by a for loop's init or as a
// range key in fd.
func loopVar(fd *ast.FuncDecl, info *types.Info, obj types.Object) bool {
	if obj == nil {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			if a, ok := n.Init.(*ast.AssignStmt); ok {
				for _, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok && info.Defs[id] == obj {
						found = true
					}
				}
			}
		case *ast.RangeStmt:
			if id, ok := n.Key.(*ast.Ident); ok && info.Defs[id] == obj {
				found = true
			}
		}
		return !found
	})
	return found
}

// ownParam reports whether obj is fd's receiver or one of its parameters.
func (c *checker) ownParam(fd *ast.FuncDecl, obj types.Object) bool {
	if obj == nil {
		return false
	}
	fn, _ := c.info.Defs[fd.Name].(*types.Func)
	if fn == nil {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == obj {
		return true
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if sig.Params().At(i) == obj {
			return true
		}
	}
	return false
}
