package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Jitter is decided by data flow, not by names: a wait has jitter when a
// random source reaches its duration (math/rand, math/rand/v2,
// crypto/rand, a clock's low digits), and has none when every source of
// its value is known and none is random: constants, the attempt counter,
// parameters and fields holding a plain value, what the server sent
// (Retry-After), pure standard-library functions of those. A "jitter" that
// is a constant fraction of the backoff has none. A source the model
// cannot see (a call through a function value or an interface, a function
// of another module) leaves the answer unknown.

// randomWalk follows a duration's sources through one package.
type randomWalk struct {
	p    *pkgCtx
	seen map[any]bool
	// args binds a helper's parameters to the caller's arguments while
	// the walk is inside the helper.
	args map[*types.Var]ast.Expr
}

// randomReach says whether a random source reaches e.
func (p *pkgCtx) randomReach(e ast.Expr) Tri {
	w := &randomWalk{p: p, seen: map[any]bool{}, args: map[*types.Var]ast.Expr{}}
	return w.expr(e, 0)
}

// waitJitter says whether a wait's duration has a random part: for a
// helper that computes its duration, with the helper's parameters bound to
// the arguments of the call in the loop.
func (p *pkgCtx) waitJitter(ws *waitSite) Tri {
	if ws.dur == nil {
		if ws.table != nil {
			return No // an imported helper's waits, folded exactly
		}
		return Unknown
	}
	w := &randomWalk{p: p, seen: map[any]bool{}, args: map[*types.Var]ast.Expr{}}
	if ws.helper != nil && ws.call != nil {
		if fn, _ := p.info.Defs[ws.helper.Name].(*types.Func); fn != nil {
			sig := fn.Type().(*types.Signature)
			if !sig.Variadic() && sig.Params().Len() == len(ws.call.Args) {
				for i, a := range ws.call.Args {
					w.args[sig.Params().At(i)] = a
				}
			}
			if s, ok := astutil.Unparen(ws.call.Fun).(*ast.SelectorExpr); ok && sig.Recv() != nil && p.info.Selections[s] != nil {
				w.args[sig.Recv()] = s.X
			}
		}
	}
	return w.expr(ws.dur, 0)
}

// join combines the answers of several sources: random if any is, unknown
// if any is hidden, else not random.
func join(ts ...Tri) Tri {
	out := No
	for _, t := range ts {
		switch t {
		case Yes:
			return Yes
		case Unknown:
			out = Unknown
		}
	}
	return out
}

// joinAll is join that stops at the first random source.
func (w *randomWalk) joinAll(es []ast.Expr, depth int) Tri {
	out := No
	for _, e := range es {
		out = join(out, w.expr(e, depth+1))
		if out == Yes {
			return Yes
		}
	}
	return out
}

const maxRandomDepth = 24

func (w *randomWalk) expr(e ast.Expr, depth int) Tri {
	if e == nil {
		return No
	}
	if depth > maxRandomDepth {
		return Unknown
	}
	p := w.p
	e = astutil.Unparen(e)
	if tv, ok := p.info.Types[e]; ok && (tv.Value != nil || tv.IsNil() || tv.IsType()) {
		return No
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		return No
	case *ast.Ident:
		return w.ident(e, depth)
	case *ast.BinaryExpr:
		return w.joinAll([]ast.Expr{e.X, e.Y}, depth)
	case *ast.UnaryExpr:
		if e.Op == token.ARROW {
			return Unknown // a value received from a channel
		}
		return w.expr(e.X, depth+1)
	case *ast.IndexExpr:
		return w.joinAll([]ast.Expr{e.X, e.Index}, depth)
	case *ast.SliceExpr:
		return w.joinAll([]ast.Expr{e.X, e.Low, e.High, e.Max}, depth)
	case *ast.SelectorExpr:
		return w.selector(e, depth)
	case *ast.CallExpr:
		return w.call(e, -1, depth)
	case *ast.CompositeLit:
		var es []ast.Expr
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			es = append(es, el)
		}
		return w.joinAll(es, depth)
	case *ast.TypeAssertExpr:
		return w.expr(e.X, depth+1)
	case *ast.StarExpr:
		return w.expr(e.X, depth+1)
	}
	return Unknown
}

// ident follows a variable to every value it is given.
func (w *randomWalk) ident(id *ast.Ident, depth int) Tri {
	p := w.p
	v, ok := p.info.Uses[id].(*types.Var)
	if !ok {
		return Unknown
	}
	if a, ok := w.args[v]; ok {
		return w.expr(a, depth+1)
	}
	if w.seen[v] {
		return No // a cycle adds no source of its own (wait = wait * 2)
	}
	w.seen[v] = true
	if v.Pkg() != p.pass.Pkg {
		return plainValue(v.Type())
	}
	if v.Parent() == v.Pkg().Scope() {
		// A package variable: its declared value and every assignment.
		return w.assigned(v, nil, depth)
	}
	scope := p.funcScope(&ast.Ident{NamePos: v.Pos()})
	if isParam(scope, v) {
		// A parameter of the function the walk started in: one value
		// for the whole retry, not a draw per wait, when it is a plain
		// value; a function or interface may hide one.
		return plainValue(v.Type())
	}
	return w.assigned(v, scope, depth)
}

// isParam reports whether v is a parameter or receiver of the function
// declared by scope.
func isParam(scope ast.Node, v *types.Var) bool {
	fd, ok := scope.(*ast.FuncDecl)
	if !ok {
		return false
	}
	in := func(fl *ast.FieldList) bool {
		return fl != nil && fl.Pos() <= v.Pos() && v.Pos() < fl.End()
	}
	return in(fd.Recv) || in(fd.Type.Params)
}

// plainValue is the answer for a value the walk cannot follow further but
// whose type cannot hold a draw of its own: a number, a duration, a string
// or a struct of them read once is one value, fixed between waits.
func plainValue(t types.Type) Tri {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return No
	case *types.Pointer:
		return plainValue(u.Elem())
	case *types.Struct, *types.Slice, *types.Array, *types.Map:
		return No
	}
	return Unknown
}

// assigned joins every value v is given in scope (the package when nil):
// assignments, declarations, range keys, increments, and writes through
// &v by a call.
func (w *randomWalk) assigned(v *types.Var, scope ast.Node, depth int) Tri {
	p := w.p
	out, found := No, false
	see := func(t Tri) { found, out = true, join(out, t) }
	visit := func(n ast.Node) bool {
		if out == Yes {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok && len(n.Rhs) == len(n.Lhs) {
					// addr.Port = 1024 + rand.Intn(n): a field of the value
					// is part of the value.
					if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok && p.identVar(id) == v {
						see(w.expr(n.Rhs[i], depth+1))
					}
					continue
				}
				id, ok := astutil.Unparen(lhs).(*ast.Ident)
				if !ok || p.identVar(id) != v {
					continue
				}
				switch {
				case len(n.Rhs) == len(n.Lhs):
					see(w.expr(n.Rhs[i], depth+1))
				case len(n.Rhs) == 1:
					if call, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
						see(w.call(call, i, depth+1))
					} else {
						see(w.expr(n.Rhs[0], depth+1))
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if p.info.Defs[id] != v {
					continue
				}
				switch {
				case len(n.Values) == len(n.Names):
					see(w.expr(n.Values[i], depth+1))
				case len(n.Values) == 1:
					if call, ok := astutil.Unparen(n.Values[0]).(*ast.CallExpr); ok {
						see(w.call(call, i, depth+1))
					}
				}
			}
		case *ast.RangeStmt:
			for _, k := range []ast.Expr{n.Key, n.Value} {
				if id, ok := k.(*ast.Ident); ok && p.identVar(id) == v {
					see(w.expr(n.X, depth+1))
				}
			}
		case *ast.CallExpr:
			// fmt.Sscanf(s, "%d", &v): the call writes v from its inputs.
			for _, a := range n.Args {
				u, ok := astutil.Unparen(a).(*ast.UnaryExpr)
				if !ok || u.Op != token.AND {
					continue
				}
				if id, ok := astutil.Unparen(u.X).(*ast.Ident); ok && p.identVar(id) == v {
					see(w.call(n, -1, depth+1))
				}
			}
		}
		return true
	}
	if scope != nil {
		ast.Inspect(scope, visit)
	} else {
		for _, f := range p.pass.Files {
			ast.Inspect(f, visit)
		}
	}
	if !found && out == No {
		// Given no value the walk can see (a closure's parameter, a
		// result of a type switch): as good as its type.
		return plainValue(v.Type())
	}
	return out
}

// selector follows a field read to every value the package stores in the
// field (x.f = e, T{f: e}); a field of another package's type holds what
// was stored at construction. A qualified identifier is its object.
func (w *randomWalk) selector(e *ast.SelectorExpr, depth int) Tri {
	p := w.p
	sel := p.info.Selections[e]
	if sel == nil {
		if v, ok := p.info.Uses[e.Sel].(*types.Var); ok && v.Pkg() != p.pass.Pkg {
			return plainValue(v.Type())
		}
		return Unknown
	}
	if sel.Kind() != types.FieldVal {
		return Unknown // a method value
	}
	fld, _ := sel.Obj().(*types.Var)
	if fld == nil {
		return Unknown
	}
	if t := plainValue(fld.Type()); t != No {
		return t
	}
	if fld.Pkg() != p.pass.Pkg || w.seen[fld] {
		return No
	}
	w.seen[fld] = true
	out := No
	for _, f := range p.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if out == Yes {
				return false
			}
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					return true
				}
				for i, lhs := range n.Lhs {
					if s, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok && p.info.Uses[s.Sel] == fld {
						out = join(out, w.expr(n.Rhs[i], depth+1))
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && p.info.Uses[id] == fld {
					out = join(out, w.expr(n.Value, depth+1))
				}
			}
			return true
		})
	}
	return out
}

// call answers for a call's result (result i of a tuple, or its only
// result when i < 0).
func (w *randomWalk) call(call *ast.CallExpr, i int, depth int) Tri {
	p := w.p
	if tv, ok := p.info.Types[call.Fun]; ok && tv.IsType() {
		return w.joinAll(call.Args, depth) // a conversion
	}
	if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok {
		if _, ok := p.info.Uses[id].(*types.Builtin); ok {
			return w.joinAll(call.Args, depth) // min, max, len, ...
		}
	}
	fn := typeutil.StaticCallee(p.info, call)
	if fn == nil || fn.Pkg() == nil {
		return Unknown // a function value or an interface method
	}
	path := fn.Pkg().Path()
	switch path {
	case "math/rand", "math/rand/v2", "crypto/rand":
		return Yes
	case "time":
		switch fn.Name() {
		case "UnixNano", "Nanosecond", "UnixMicro":
			return Yes // a clock's low digits, used as a cheap draw
		}
	}
	if decl := p.res.decls[fn]; decl != nil && decl.Body != nil && fn.Pkg() == p.pass.Pkg {
		return w.helper(fn, decl, call, i, depth)
	}
	if !strings.Contains(strings.Split(path, "/")[0], ".") {
		// The standard library: a function of its inputs (strconv,
		// math, fmt.Sscanf, a header read). The receiver is an input.
		args := append([]ast.Expr(nil), call.Args...)
		if s, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && p.info.Selections[s] != nil {
			args = append(args, s.X)
		}
		return w.joinAll(args, depth)
	}
	return Unknown
}

// helper follows a package function's results on every return, with its
// parameters bound to the call's arguments.
func (w *randomWalk) helper(fn *types.Func, decl *ast.FuncDecl, call *ast.CallExpr, i int, depth int) Tri {
	p := w.p
	if w.seen[decl] {
		return No
	}
	w.seen[decl] = true
	defer delete(w.seen, decl)
	sig := fn.Type().(*types.Signature)
	if sig.Variadic() || sig.Params().Len() != len(call.Args) {
		return Unknown
	}
	saved := w.args
	inner := make(map[*types.Var]ast.Expr, len(saved)+len(call.Args))
	for k, v := range saved {
		inner[k] = v
	}
	for j, a := range call.Args {
		inner[sig.Params().At(j)] = a
	}
	if s, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && sig.Recv() != nil && p.info.Selections[s] != nil {
		inner[sig.Recv()] = s.X
	}
	// Named results are assigned in the body; plain returns give them.
	if i < 0 {
		i = 0
	}
	var out Tri = No
	named := sig.Results().Len() > i && sig.Results().At(i).Name() != ""
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit || out == Yes {
			return false
		}
		ret, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		w.args = inner
		defer func() { w.args = saved }()
		switch {
		case len(ret.Results) == sig.Results().Len() && i < len(ret.Results):
			out = join(out, w.expr(ret.Results[i], depth+1))
		case len(ret.Results) == 1 && sig.Results().Len() > 1:
			if c, ok := astutil.Unparen(ret.Results[0]).(*ast.CallExpr); ok {
				out = join(out, w.call(c, i, depth+1))
			} else {
				out = Unknown
			}
		case len(ret.Results) == 0 && named:
			out = join(out, w.assigned(sig.Results().At(i), decl, depth+1))
		default:
			out = Unknown
		}
		return false
	})
	return out
}

// fixedWait reports a wait whose duration is one value for every attempt
// although it is not known statically: constants and fields or package
// variables the loop does not change (a delay set at construction), with a
// helper's parameters bound to the call's arguments. It returns the field
// or variable read, for messages.
func (p *pkgCtx) fixedWait(ws *waitSite, body ast.Node) (string, bool) {
	if ws.dur == nil {
		return "", false
	}
	args := map[*types.Var]ast.Expr{}
	if ws.helper != nil && ws.call != nil {
		fn, _ := p.info.Defs[ws.helper.Name].(*types.Func)
		if fn == nil {
			return "", false
		}
		sig := fn.Type().(*types.Signature)
		if sig.Recv() != nil {
			if s, ok := astutil.Unparen(ws.call.Fun).(*ast.SelectorExpr); ok {
				args[sig.Recv()] = s.X
			}
		}
		for i := 0; i < sig.Params().Len() && i < len(ws.call.Args); i++ {
			args[sig.Params().At(i)] = ws.call.Args[i]
		}
	}
	var what string
	var fixed func(e ast.Expr, depth int) bool
	fixed = func(e ast.Expr, depth int) bool {
		e = astutil.Unparen(e)
		if depth > 6 {
			return false
		}
		if tv, ok := p.info.Types[e]; ok && (tv.Value != nil || tv.IsType()) {
			return true
		}
		switch e := e.(type) {
		case *ast.BinaryExpr:
			return fixed(e.X, depth+1) && fixed(e.Y, depth+1)
		case *ast.CallExpr:
			if tv, ok := p.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
				return fixed(e.Args[0], depth+1)
			}
		case *ast.SelectorExpr:
			fld, ok := p.info.Uses[e.Sel].(*types.Var)
			if !ok || plainValue(fld.Type()) != No || p.assignsField(body, fld) {
				return false
			}
			if sel := p.info.Selections[e]; sel == nil {
				what = types.ExprString(e) // another package's variable
				return true
			}
			what = e.Sel.Name
			return fixed(e.X, depth+1)
		case *ast.Ident:
			v, ok := p.info.Uses[e].(*types.Var)
			if !ok {
				return false
			}
			if a, ok := args[v]; ok {
				return fixed(a, depth+1)
			}
			if v.Parent() == v.Pkg().Scope() {
				what = e.Name
				return !p.assignsVar(body, v)
			}
			// A receiver or parameter of the loop's function: one value
			// for the whole retry.
			return isParam(p.funcScope(&ast.Ident{NamePos: v.Pos()}), v) && !p.assignsVar(body, v)
		}
		return false
	}
	if !fixed(ws.dur, 0) || what == "" {
		return "", false
	}
	return what, true
}

// assignsField reports an assignment to field fld in body.
func (p *pkgCtx) assignsField(body ast.Node, fld *types.Var) bool {
	return contains(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		return ok && slices.ContainsFunc(as.Lhs, func(lhs ast.Expr) bool {
			s, ok := astutil.Unparen(lhs).(*ast.SelectorExpr)
			return ok && p.info.Uses[s.Sel] == fld
		})
	})
}

// assignsVar reports an assignment to v in body.
func (p *pkgCtx) assignsVar(body ast.Node, v *types.Var) bool {
	is := func(e ast.Expr) bool {
		id, ok := astutil.Unparen(e).(*ast.Ident)
		return ok && p.identVar(id) == v
	}
	return contains(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			return slices.ContainsFunc(n.Lhs, is)
		case *ast.IncDecStmt:
			return is(n.X)
		}
		return false
	})
}
