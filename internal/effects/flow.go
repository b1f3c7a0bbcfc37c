package effects

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file answers "is this context the one given, or derived from it?"
// Contexts only ever become done, never undone, and a child is done when its
// parent is; so a call is on an expired context when its context argument is
// the expired variable or was derived from it, except through
// context.WithoutCancel (and context.Background/TODO, which are fresh).
// Assignments are followed by position: the latest assignment to a variable
// before the use, within bounds, is the value used. That is a syntactic
// approximation of flow, good enough for the straight-line code of cleanups.

// An Assign is one value given to a variable.
type Assign struct {
	Stmt token.Pos // the assigning statement
	RHS  ast.Expr  // the value (a multi-value call for tuple assignments); nil when unknown
}

// A Ref names a context: a local variable or parameter, or a field read
// through a chain of selectors (w.ctx).
type Ref struct {
	V    *types.Var
	Text string
	Sel  bool
}

// Flow follows the contexts of one package by the positions of the
// assignments to them.
type Flow struct {
	info    *types.Info
	pkg     *types.Package
	model   *retrymodel.Result
	assigns map[*types.Var][]Assign
}

// NewFlow indexes the assignments of the package's files.
func NewFlow(pass *analysis.Pass, model *retrymodel.Result) *Flow {
	f := &Flow{info: pass.TypesInfo, pkg: pass.Pkg, model: model, assigns: make(map[*types.Var][]Assign)}
	f.index(pass.Files)
	return f
}

// Assigns lists the values given to v, in source order.
func (c *Flow) Assigns(v *types.Var) []Assign { return c.assigns[v] }

func (c *Flow) index(files []*ast.File) {
	add := func(id *ast.Ident, rhs ast.Expr, stmt token.Pos) {
		if id == nil || id.Name == "_" {
			return
		}
		obj := c.info.Defs[id]
		if obj == nil {
			obj = c.info.Uses[id]
		}
		if v, ok := obj.(*types.Var); ok {
			c.assigns[v] = append(c.assigns[v], Assign{Stmt: stmt, RHS: rhs})
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok != token.DEFINE && n.Tok != token.ASSIGN {
					return true
				}
				for i, l := range n.Lhs {
					id, _ := astutil.Unparen(l).(*ast.Ident)
					var rhs ast.Expr
					if len(n.Rhs) == len(n.Lhs) {
						rhs = n.Rhs[i]
					} else if len(n.Rhs) == 1 {
						if _, ok := astutil.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
							rhs = n.Rhs[0]
						}
					}
					add(id, rhs, n.Pos())
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					var rhs ast.Expr
					if len(n.Values) == len(n.Names) {
						rhs = n.Values[i]
					} else if len(n.Values) == 1 {
						rhs = n.Values[0]
					} else {
						continue // zero value
					}
					add(id, rhs, n.Pos())
				}
			case *ast.RangeStmt:
				if k, ok := n.Key.(*ast.Ident); ok {
					add(k, nil, n.Pos())
				}
				if v, ok := n.Value.(*ast.Ident); ok {
					add(v, nil, n.Pos())
				}
			}
			return true
		})
	}
}

// Latest returns the last assignment to v positioned in (after, before).
func (c *Flow) Latest(v *types.Var, before, after token.Pos) (Assign, bool) {
	var best Assign
	found := false
	for _, a := range c.assigns[v] {
		if a.Stmt < before && a.Stmt > after && (!found || a.Stmt > best.Stmt) {
			best, found = a, true
		}
	}
	return best, found
}

// RefOf names the context expression e, when it is a variable or a field.
func (c *Flow) RefOf(e ast.Expr) (Ref, bool) {
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.Ident:
		obj := c.info.Uses[e]
		if obj == nil {
			obj = c.info.Defs[e]
		}
		if v, ok := obj.(*types.Var); ok {
			return Ref{V: v, Text: e.Name}, true
		}
	case *ast.SelectorExpr:
		sel := c.info.Selections[e]
		if sel == nil || sel.Kind() != types.FieldVal || !selectorChain(e.X) {
			return Ref{}, false
		}
		return Ref{V: sel.Obj().(*types.Var), Text: types.ExprString(e), Sel: true}, true
	}
	return Ref{}, false
}

func selectorChain(e ast.Expr) bool {
	switch e := astutil.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return selectorChain(e.X)
	case *ast.StarExpr:
		return selectorChain(e.X)
	}
	return false
}

// Descends reports whether the context expression e, evaluated at position
// at, is t or derived from t without WithoutCancel. Reassignments of t
// itself are followed only after position after (the point where t was
// learned to be done).
func (c *Flow) Descends(e ast.Expr, t Ref, at, after token.Pos, depth int) bool {
	if depth > 12 {
		return false
	}
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.Ident:
		v, _ := c.info.Uses[e].(*types.Var)
		if v == nil {
			return false
		}
		if !t.Sel && v == t.V {
			if a, ok := c.Latest(v, at, after); ok {
				return a.RHS != nil && c.Descends(a.RHS, t, a.Stmt, after, depth+1)
			}
			return true
		}
		if !retrymodel.IsContext(v.Type()) {
			return false
		}
		if a, ok := c.Latest(v, at, token.NoPos); ok && a.RHS != nil {
			return c.Descends(a.RHS, t, a.Stmt, after, depth+1)
		}
		return false
	case *ast.SelectorExpr:
		if t.Sel {
			if r, ok := c.RefOf(e); ok && r.V == t.V && r.Text == t.Text {
				return true
			}
		}
		return false
	case *ast.CallExpr:
		if fn, ok := typeutil.Callee(c.info, e).(*types.Func); ok && fn.Pkg() != nil {
			if fn.Pkg().Path() == "context" {
				switch fn.Name() {
				case "WithoutCancel", "Background", "TODO":
					return false
				}
			} else if c.model.Detaches(fn) {
				// A helper whose result no cancellation of its argument
				// reaches (xcontext.ValueOnly): the model's data flow,
				// carried to other packages as a fact.
				return false
			}
		}
		for _, a := range e.Args {
			if tv, ok := c.info.Types[a]; ok && retrymodel.IsContext(tv.Type) && c.Descends(a, t, at, after, depth+1) {
				return true
			}
		}
	}
	return false
}

// ContextFunc returns the name of the package context function called, or "".
func ContextFunc(info *types.Info, call *ast.CallExpr) string {
	if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "context" {
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() == nil {
			return fn.Name()
		}
	}
	return ""
}
