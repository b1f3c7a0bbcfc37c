package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A wait through a func value: r.sleep(d), where the field or variable is
// given time.Sleep (so a test can replace it) or a sleep helper. What it
// does is what the values the package writes to it do (Writes; a test
// file's writes leave production code as it is): a wait when one of them
// waits, cancellable when every one that waits is. A value the package
// does not see (a parameter of an exported constructor, an exported
// field) leaves a func of a sleeper's type a wait whose cancellability is
// unknown.

// FuncValueWait returns what a call of a func value waits through (the
// functions it is given that wait, "time.Sleep"), and whether that wait is
// cancellable; ok is false when the call is no wait.
func (r *Result) FuncValueWait(call *ast.CallExpr) (what []string, cancellable Tri, ok bool) {
	w, ok := r.cancelIx().funcWaits[call]
	return w.via, w.cancellable, ok
}

// funcValueWait answers for a call the model reads, and keeps the answer
// for FuncValueWait.
func (p *pkgCtx) funcValueWait(call *ast.CallExpr) (waitSite, bool) {
	w, ok := p.readFuncValueWait(call)
	if ok && p.waiter != nil {
		p.res.cancelIx().funcWaits[call] = w
	}
	return w, ok
}

func (p *pkgCtx) readFuncValueWait(call *ast.CallExpr) (waitSite, bool) {
	v := varOf(p.info, call.Fun)
	if v == nil {
		return waitSite{}, false
	}
	arg := sleeperArg(v.Type())
	if arg < 0 || arg >= len(call.Args) {
		return waitSite{}, false
	}
	w := waitSite{node: call, dur: call.Args[arg], cancellable: Yes, funcValue: true}
	waits, unknown := false, false
	vals, known := p.res.Writes(v)
	if !known || v.Pkg() != p.pass.Pkg || v.Exported() && v.IsField() || p.res.cancelIx().params[v] {
		unknown = true
	}
	for _, e := range vals {
		if e != nil && p.res.inTestFile(e.Pos()) && !p.res.inTestFile(call.Pos()) {
			continue
		}
		s, c := p.sleeperOf(e)
		switch s {
		case Unknown:
			unknown = true
		case Yes:
			waits = true
			w.via = append(w.via, c.name)
			if !c.cancellable {
				w.cancellable = No
			}
		}
	}
	switch {
	case !waits && !unknown:
		return waitSite{}, false
	case unknown && w.cancellable == Yes:
		w.cancellable = Unknown
	}
	return w, true
}

// sleeperArg is the index of the time.Duration parameter of a sleeper's
// type, func(time.Duration) or func(context.Context, time.Duration) error;
// -1 for another type.
func sleeperArg(t types.Type) int {
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Variadic() {
		return -1
	}
	ps, rs := sig.Params(), sig.Results()
	isDur := func(t types.Type) bool {
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
	}
	switch {
	case ps.Len() == 1 && rs.Len() == 0 && isDur(ps.At(0).Type()):
		return 0
	case ps.Len() == 2 && rs.Len() <= 1 && IsContext(ps.At(0).Type()) && isDur(ps.At(1).Type()):
		return 1
	}
	return -1
}

type sleeper struct {
	name        string
	cancellable bool
}

// sleeperOf says whether a value given to a func field waits: Yes for
// time.Sleep, a sleep helper or a literal that waits; No for a function
// or literal that does not (nil included); Unknown for anything else.
func (p *pkgCtx) sleeperOf(e ast.Expr) (Tri, sleeper) {
	if e == nil {
		return Unknown, sleeper{}
	}
	e = astutil.Unparen(e)
	if isNil(p.info, e) {
		return No, sleeper{}
	}
	if lit, ok := e.(*ast.FuncLit); ok {
		ws := p.waitsIn(lit.Body)
		if len(ws) == 0 {
			return No, sleeper{}
		}
		s := sleeper{name: "a function literal", cancellable: true}
		for _, w := range ws {
			s.cancellable = s.cancellable && w.cancellable == Yes
		}
		return Yes, s
	}
	var fn *types.Func
	switch e := e.(type) {
	case *ast.Ident:
		fn, _ = p.info.Uses[e].(*types.Func)
	case *ast.SelectorExpr:
		fn, _ = p.info.Uses[e.Sel].(*types.Func)
	}
	if fn == nil {
		return Unknown, sleeper{}
	}
	name := FuncName(fn)
	if fn.Pkg() != nil && fn.Pkg() != p.pass.Pkg {
		name = fn.Pkg().Name() + "." + fn.Name()
	}
	if isFunc(fn, "time", "Sleep") {
		return Yes, sleeper{name: "time.Sleep"}
	}
	if p.waiter == nil && fn.Pkg() == p.pass.Pkg {
		return Unknown, sleeper{} // not yet indexed (indexHelpers is running)
	}
	if w, ok := p.waiterOf(fn); ok {
		return Yes, sleeper{name: name, cancellable: w.cancellable}
	}
	return No, sleeper{} // a function that does not wait
}
