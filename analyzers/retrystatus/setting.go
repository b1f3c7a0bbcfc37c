package retrystatus

import (
	"go/ast"
	"go/types"
)

// setting reports a boolean the retry loop reads but no attempt changes: a
// field reached from the function's receiver or parameters
// (c.cfg.DropRateLimitedBatches), or a bool parameter or package variable.
// A condition that joins one to a status test (setting && code == 429)
// is the setting's choice as much as the status's. A field of a value the
// loop itself assigns (resp.Close) changes with the attempt and is none.
func (w *walker) setting(e ast.Expr) bool {
	e = ast.Unparen(e)
	t := w.ck.info.TypeOf(e)
	if t == nil {
		return false
	}
	if b, ok := t.Underlying().(*types.Basic); !ok || b.Kind() != types.Bool {
		return false
	}
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if sel := w.ck.info.Selections[x]; sel == nil || sel.Kind() != types.FieldVal {
				return false
			}
			e = ast.Unparen(x.X)
			continue
		case *ast.StarExpr:
			e = ast.Unparen(x.X)
			continue
		case *ast.Ident:
			v, ok := w.ck.info.Uses[x].(*types.Var)
			return ok && w.ck.fixedVar(v)
		}
		return false
	}
}

// fixedVar reports a package variable, or a parameter or receiver of a
// function of the package that nothing in the package assigns (the
// model's index of writes: retrymodel.Result.Writes).
func (ck *checker) fixedVar(v *types.Var) bool {
	if v.Pkg() == nil || v.IsField() {
		return false
	}
	if v.Parent() == v.Pkg().Scope() {
		return true
	}
	if f, ok := ck.fixed[v]; ok {
		return f
	}
	if ck.fixed == nil {
		ck.fixed = make(map[*types.Var]bool)
	}
	f := false
	for _, fd := range ck.decls {
		if fd.Body != nil && fd.Pos() <= v.Pos() && v.Pos() < fd.Body.Pos() {
			ws, ok := ck.res.Writes(v)
			f = ok && len(ws) == 0
			break
		}
	}
	ck.fixed[v] = f
	return f
}
