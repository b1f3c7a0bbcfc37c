package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
)

// This file holds how a closure leaves its function for the escape rule
// (escape.go): the statements that let a value out, the values that hold
// it, and the package helpers that send, store or return their argument.

// escapes lists the statements of a function's own body that let a value
// out: a send, a store into what outlives the call, a return, and a call of
// a function of the package that does one of these with an argument.
func (c *checker) escapes(sc *fnScope, depth int) []escape {
	var out []escape
	inspectOwn(sc.body, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.SendStmt:
			out = append(out, escape{at: n, how: "sent on " + exprText(n.Chan), parts: []ast.Expr{n.Value}})
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return
			}
			for i, l := range n.Lhs {
				if !c.outlives(sc, l, false) {
					continue
				}
				how := "stored in " + exprText(l)
				if call, ok := astutil.Unparen(n.Rhs[i]).(*ast.CallExpr); ok && isBuiltin(c.info, call, "append") {
					how = "appended to " + exprText(l)
				}
				out = append(out, escape{at: n, how: how, parts: []ast.Expr{n.Rhs[i]}, lhs: l})
			}
		case *ast.ReturnStmt:
			if len(n.Results) > 0 {
				out = append(out, escape{at: n, how: "returned", parts: n.Results})
			}
		case *ast.CallExpr:
			if depth >= 2 {
				return
			}
			fn, ok := typeutil.Callee(c.info, n).(*types.Func)
			if !ok || fn.Pkg() != c.pass.Pkg {
				return
			}
			for i, a := range n.Args {
				if how, ok := c.paramEscapes(sc, n, fn, i, depth+1); ok {
					out = append(out, escape{at: n, how: "handed to " + effects.CalleeText(n) + ", which " + how, parts: []ast.Expr{a}, carried: n.Args})
				}
			}
		}
	})
	return out
}

// paramEscapes reports whether fn, a function of this package, lets its
// parameter i out (sends it, stores it where it outlives the caller too,
// returns it... not counted: the caller sees the returned value itself).
func (c *checker) paramEscapes(caller *fnScope, call *ast.CallExpr, fn *types.Func, i, depth int) (string, bool) {
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return "", false
	}
	sig := fn.Type().(*types.Signature)
	if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
		return "", false
	}
	sc := c.scopeOf(decl, decl.Body)
	pv := c.paramVar(decl, i)
	if pv == nil {
		return "", false
	}
	for _, esc := range c.escapes(sc, depth) {
		if _, ret := esc.at.(*ast.ReturnStmt); ret {
			continue
		}
		if !c.holdsVar(sc, esc.parts, pv, 0) || c.busyAfter(sc, esc.at, nil) {
			continue
		}
		// A store into the callee's receiver or parameter outlives the
		// caller only when what the caller gave there does.
		if esc.lhs != nil {
			if j, isParam := sc.params[rootVar(c.info, esc.lhs)]; isParam {
				arg := c.argAt(call, j)
				if arg == nil || !c.outlives(caller, arg, true) {
					continue
				}
			}
		}
		return active(esc.how), true
	}
	return "", false
}

// active turns "sent on p.ch" into "sends it on p.ch", for "handed to
// p.enqueue, which sends it on p.ch".
func active(how string) string {
	for _, r := range [][2]string{{"sent on ", "sends it on "}, {"stored in ", "stores it in "}, {"appended to ", "appends it to "}, {"handed to ", "hands it to "}} {
		if strings.HasPrefix(how, r[0]) {
			return r[1] + how[len(r[0]):]
		}
	}
	return how
}

// argAt returns what the caller gives for parameter j (-1: the receiver).
func (c *checker) argAt(call *ast.CallExpr, j int) ast.Expr {
	if j < 0 {
		if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	if j < len(call.Args) {
		return call.Args[j]
	}
	return nil
}

// outlives reports whether a store into e is seen after the function
// returns: a package variable, or a field or element reached from a
// parameter, the receiver or a package variable through a pointer, a map
// or a slice. deref says e itself is read through a pointer already.
func (c *checker) outlives(sc *fnScope, e ast.Expr, deref bool) bool {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		if v == nil {
			return false
		}
		if v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			return true
		}
		_, isParam := sc.params[v]
		return isParam && deref // a parameter reassigned is only a local
	case *ast.SelectorExpr:
		sel := c.info.Selections[e]
		if sel == nil || sel.Kind() != types.FieldVal {
			if v, ok := c.info.Uses[e.Sel].(*types.Var); ok && sel == nil {
				return v.Pkg() != nil && v.Parent() == v.Pkg().Scope() // pkg.Var
			}
			return false
		}
		return c.outlives(sc, e.X, deref || sel.Indirect() || shared(c.info.TypeOf(e.X)))
	case *ast.IndexExpr:
		return c.outlives(sc, e.X, deref || shared(c.info.TypeOf(e.X)))
	case *ast.StarExpr:
		return c.outlives(sc, e.X, true)
	}
	return false
}

// shared reports a type whose values share what they point at: a store
// through one is seen through every copy.
func shared(t types.Type) bool {
	if t == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Slice:
		return true
	}
	return false
}

// rootVar is the variable a selector or index chain starts from.
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := astutil.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			return v
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// heldLits returns the function literals the expressions hold by value:
// the literal itself, in a composite literal, behind &, in a conversion or
// append, in a local variable (its values and what was stored into its
// fields), or in the result of a function of the package that returns its
// argument.
func (c *checker) heldLits(sc *fnScope, es []ast.Expr, depth int) []*ast.FuncLit {
	var out []*ast.FuncLit
	c.walkHeld(sc, es, depth, func(e ast.Expr) {
		if lit, ok := e.(*ast.FuncLit); ok {
			out = append(out, lit)
		}
	})
	return out
}

// holdsVar reports whether the expressions hold the value of variable v.
func (c *checker) holdsVar(sc *fnScope, es []ast.Expr, v *types.Var, depth int) bool {
	found := false
	c.walkHeld(sc, es, depth, func(e ast.Expr) {
		if id, ok := e.(*ast.Ident); ok && c.info.Uses[id] == v {
			found = true
		}
	})
	return found
}

// walkHeld calls f with every expression the values of es are made of.
func (c *checker) walkHeld(sc *fnScope, es []ast.Expr, depth int, f func(ast.Expr)) {
	seen := make(map[*types.Var]bool)
	var walk func(e ast.Expr, d int)
	walk = func(e ast.Expr, d int) {
		if e == nil || d > 8 {
			return
		}
		e = astutil.Unparen(e)
		f(e)
		switch x := e.(type) {
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					walk(kv.Value, d+1)
				} else {
					walk(el, d+1)
				}
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				walk(x.X, d+1)
			}
		case *ast.StarExpr:
			walk(x.X, d+1)
		case *ast.Ident:
			v, _ := c.info.Uses[x].(*types.Var)
			if v == nil || seen[v] || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
				return
			}
			if _, isParam := sc.params[v]; isParam {
				return
			}
			if !within(v.Pos(), sc.body) {
				return // captured from an enclosing function
			}
			seen[v] = true
			for _, a := range c.flow.Assigns(v) {
				if a.RHS != nil && within(a.Stmt, sc.body) {
					if _, multi := astutil.Unparen(a.RHS).(*ast.CallExpr); multi && c.tuple(a.RHS) {
						continue
					}
					walk(a.RHS, d+1)
				}
			}
			for _, r := range sc.stores[v] {
				walk(r, d+1)
			}
		case *ast.CallExpr:
			if tv, ok := c.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				walk(x.Args[0], d+1)
				return
			}
			if isBuiltin(c.info, x, "append") {
				for _, a := range x.Args {
					walk(a, d+1)
				}
				return
			}
			if depth+d > 4 {
				return
			}
			fn, ok := typeutil.Callee(c.info, x).(*types.Func)
			if !ok || fn.Pkg() != c.pass.Pkg {
				return
			}
			for i, a := range x.Args {
				if c.returnsParam(fn, i, depth+1) {
					walk(a, d+1)
				}
			}
		}
	}
	for _, e := range es {
		walk(e, 0)
	}
}

// tuple reports a call with more than one result.
func (c *checker) tuple(e ast.Expr) bool {
	t, ok := c.info.TypeOf(e).(*types.Tuple)
	return ok && t.Len() > 1
}

// returnsParam reports whether fn, a function of this package, returns a
// value holding its parameter i (a constructor: newRequest(fn) returns
// &request{fn: fn}).
func (c *checker) returnsParam(fn *types.Func, i, depth int) bool {
	if depth > 2 {
		return false
	}
	decl := c.model.Decl(fn.Origin())
	if decl == nil || decl.Body == nil {
		return false
	}
	pv := c.paramVar(decl, i)
	if pv == nil {
		return false
	}
	sc := c.scopeOf(decl, decl.Body)
	found := false
	inspectOwn(decl.Body, func(n ast.Node) {
		if r, ok := n.(*ast.ReturnStmt); ok && !found && c.holdsVar(sc, r.Results, pv, depth) {
			found = true
		}
	})
	return found
}

func isBuiltin(info *types.Info, call *ast.CallExpr, name string) bool {
	id, ok := astutil.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}

func within(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }

// carries reports whether the escaping value also carries the context v
// (ctx itself, ctx.Done(), a context derived from it) outside function
// literals, directly or through what it holds: its consumer gets to see
// that it is done.
func (c *checker) carries(sc *fnScope, parts []ast.Expr, v *types.Var) bool {
	found := false
	c.walkHeld(sc, parts, 0, func(e ast.Expr) {
		if !found {
			found = c.usesOutsideLits(e, v)
		}
	})
	return found
}

// usesOutsideLits reports whether n uses v outside function literals (a
// closure in the held value captures ctx; it does not carry it).
func (c *checker) usesOutsideLits(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			if c.info.Uses[m] == v {
				found = true
			}
		}
		return !found
	})
	return found
}
