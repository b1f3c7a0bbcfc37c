package retrystatus

import (
	"go/ast"
	"go/token"
	"go/types"
)

// fieldBinding returns the one value an unexported struct field of this
// package is ever given (`&Client{retryOnStatus: map[int]bool{...}}` in a
// constructor, or `c.retryOnStatus = ...`), or nil: when it is given
// several, changed in place (c.f[k] = v, delete, &c.f), or exported (other
// packages may set it), the set it holds is not known.
func (ck *checker) fieldBinding(v *types.Var) *binding {
	if v.Pkg() != ck.pass.Pkg || v.Exported() {
		return nil
	}
	if ck.fields == nil {
		ck.indexFields()
	}
	b := ck.fields[v]
	if b == nil || b.n != 1 || b.expr == nil {
		return nil
	}
	return b
}

// indexFields records every value given to an unexported field of the
// package: keyed composite literals and assignments through a selector.
func (ck *checker) indexFields() {
	ck.fields = map[*types.Var]*binding{}
	field := func(e ast.Expr) *types.Var {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		v, ok := ck.info.Uses[sel.Sel].(*types.Var)
		if !ok || !v.IsField() || v.Pkg() != ck.pass.Pkg || v.Exported() {
			return nil
		}
		return v
	}
	get := func(v *types.Var) *binding {
		b := ck.fields[v]
		if b == nil {
			b = &binding{}
			ck.fields[v] = b
		}
		return b
	}
	// changed marks a field whose value is modified in place.
	changed := func(e ast.Expr) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.SelectorExpr:
				if v := field(x); v != nil {
					get(v).n += 2
				}
			}
			return
		}
	}
	for _, f := range ck.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				st, ok := structOf(ck.info.TypeOf(n))
				if !ok {
					return true
				}
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					id, ok := kv.Key.(*ast.Ident)
					if !ok {
						continue
					}
					for i := 0; i < st.NumFields(); i++ {
						if fv := st.Field(i); fv.Name() == id.Name && fv.Pkg() == ck.pass.Pkg && !fv.Exported() {
							b := get(fv)
							b.n++
							b.expr = kv.Value
						}
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if v := field(lhs); v != nil {
						b := get(v)
						b.n++
						if len(n.Lhs) == len(n.Rhs) && n.Tok == token.ASSIGN {
							b.expr = n.Rhs[i]
						} else {
							b.n++
						}
						continue
					}
					changed(lhs)
				}
			case *ast.IncDecStmt:
				changed(n.X)
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					changed(n.X)
				}
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
					if _, ok := ck.info.Uses[id].(*types.Builtin); ok {
						changed(n.Args[0])
					}
				}
			}
			return true
		})
	}
}

// structOf returns the struct type a composite literal builds.
func structOf(t types.Type) (*types.Struct, bool) {
	if t == nil {
		return nil, false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}
