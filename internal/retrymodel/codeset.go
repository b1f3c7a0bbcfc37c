package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sync"

	"golang.org/x/tools/go/types/typeutil"
)

// Membership recognises a test of key's membership in a code set:
// set[key] on a map whose values are bool, or slices.Contains(set, key).
// What the set holds is CodeSet's to say.
func (r *Result) Membership(e ast.Expr) (set, key ast.Expr, ok bool) {
	info := r.pass.TypesInfo
	switch e := ast.Unparen(e).(type) {
	case *ast.IndexExpr:
		m, isMap := typeUnder(info.TypeOf(e.X)).(*types.Map)
		if !isMap {
			return nil, nil, false
		}
		if b, isBasic := m.Elem().Underlying().(*types.Basic); !isBasic || b.Info()&types.IsBoolean == 0 {
			return nil, nil, false
		}
		return e.X, e.Index, true
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(info, e).(*types.Func)
		if fn == nil || fn.Pkg() == nil || len(e.Args) != 2 || fn.Name() != "Contains" {
			return nil, nil, false
		}
		if p := fn.Pkg().Path(); p != "slices" && p != "golang.org/x/exp/slices" {
			return nil, nil, false
		}
		return e.Args[0], e.Args[1], true
	}
	return nil, nil, false
}

func typeUnder(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// CodeSet resolves an expression to the constant codes it holds: a slice,
// array or map literal (the true entries of a bool map), a variable of the
// package or an unexported struct field written exactly once with one,
// append of constants to one, or a function of the package without
// parameters that returns one. A set written again, through an index, by
// delete or clear, or whose address is taken may hold anything: false.
func (r *Result) CodeSet(e ast.Expr) ([]int, bool) {
	return r.codeSet(e, 0)
}

func (r *Result) codeSet(e ast.Expr, depth int) ([]int, bool) {
	if depth > 6 {
		return nil, false
	}
	info := r.pass.TypesInfo
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return r.literalSet(e)
	case *ast.Ident:
		if v, ok := info.Uses[e].(*types.Var); ok && !v.IsField() {
			return r.writtenOnce(v, depth)
		}
	case *ast.SelectorExpr:
		if v, ok := info.Uses[e.Sel].(*types.Var); ok && v.IsField() && !v.Exported() {
			return r.writtenOnce(v, depth)
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && id.Name == "append" {
			if _, ok := info.Uses[id].(*types.Builtin); !ok || len(e.Args) == 0 {
				return nil, false
			}
			codes, ok := r.codeSet(e.Args[0], depth+1)
			if !ok {
				return nil, false
			}
			for _, a := range e.Args[1:] {
				if e.Ellipsis.IsValid() {
					more, ok := r.codeSet(a, depth+1)
					if !ok {
						return nil, false
					}
					codes = append(codes, more...)
					continue
				}
				k, ok := intConstOf(info, a)
				if !ok {
					return nil, false
				}
				codes = append(codes, k)
			}
			return codes, true
		}
		fn, _ := typeutil.Callee(info, e).(*types.Func)
		if fn == nil || fn.Pkg() != r.pass.Pkg {
			return nil, false
		}
		if d := r.decls[fn.Origin()]; d != nil {
			return r.returnedSet(d, depth+1)
		}
	}
	return nil, false
}

func (r *Result) writtenOnce(v *types.Var, depth int) ([]int, bool) {
	value, ok := r.WrittenOnce(v)
	if !ok {
		return nil, false
	}
	return r.codeSet(value, depth+1)
}

// WrittenOnce returns the one value the package writes to a variable of
// its own or an unexported field (its declaration, one assignment, or
// one key of a composite literal, as a constructor's
// &client{retryOn: map[int]bool{...}}): every read then sees that value.
// A variable written twice, through an index (s[429] = true), by delete
// or clear, or whose address is taken may hold anything: false.
func (r *Result) WrittenOnce(v *types.Var) (ast.Expr, bool) {
	if v.Pkg() != r.pass.Pkg || (v.IsField() && v.Exported()) {
		return nil, false
	}
	r.writes.once.Do(func() { r.writes.vars = r.indexWrites() })
	w := r.writes.vars[v]
	return w.value, w.writes == 1 && w.value != nil
}

// writeIndex is the package's writes of every variable, built once on
// first use (the analyzers that ask run concurrently).
type writeIndex struct {
	once sync.Once
	vars map[*types.Var]varWrites
}

// varWrites counts the writes of one variable (see WrittenOnce) and holds
// the value of the last one.
type varWrites struct {
	writes int
	value  ast.Expr
}

// indexWrites walks the package once and counts the writes of every
// variable, so that WrittenOnce, asked of many fields, does not walk the
// package for each.
func (r *Result) indexWrites() map[*types.Var]varWrites {
	info := r.pass.TypesInfo
	ws := make(map[*types.Var]varWrites)
	write := func(v *types.Var, value ast.Expr) {
		w := ws[v]
		w.writes++
		w.value = value
		ws[v] = w
	}
	change := func(v *types.Var) { // s[k] = v, &s, delete(s, k): the set changes
		w := ws[v]
		w.writes += 2
		ws[v] = w
	}
	// vars: the variables e is (an identifier used or defined, a field
	// selected); rooted: those of the set itself or an element of it (s[k], *s).
	vars := func(e ast.Expr) []*types.Var {
		var out []*types.Var
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			if v, ok := info.Uses[e].(*types.Var); ok {
				out = append(out, v)
			}
			if v, ok := info.Defs[e].(*types.Var); ok && (len(out) == 0 || out[0] != v) {
				out = append(out, v)
			}
		case *ast.SelectorExpr:
			if v, ok := info.Uses[e.Sel].(*types.Var); ok {
				out = append(out, v)
			}
		}
		return out
	}
	rooted := func(e ast.Expr) []*types.Var {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.StarExpr:
				e = x.X
				continue
			}
			return vars(e)
		}
	}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if v, ok := info.Defs[id].(*types.Var); ok {
						if len(n.Values) == len(n.Names) {
							write(v, n.Values[i])
						} else {
							write(v, nil)
						}
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
						write(v, n.Value)
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if vs := vars(lhs); len(vs) > 0 {
						for _, v := range vs {
							if len(n.Rhs) == len(n.Lhs) && n.Tok != token.ADD_ASSIGN {
								write(v, n.Rhs[i])
							} else {
								write(v, nil)
							}
						}
						continue
					}
					for _, v := range rooted(lhs) {
						change(v)
					}
				}
			case *ast.IncDecStmt:
				for _, v := range rooted(n.X) {
					change(v)
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					for _, v := range vars(n.X) {
						change(v)
					}
				}
			case *ast.CallExpr:
				// delete(s, k), clear(s)
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
					if _, ok := info.Uses[id].(*types.Builtin); ok {
						for _, v := range rooted(n.Args[0]) {
							change(v)
						}
					}
				}
			}
			return true
		})
	}
	return ws
}

// returnedSet resolves a function with no parameters whose every return
// is a code set.
func (r *Result) returnedSet(d *ast.FuncDecl, depth int) ([]int, bool) {
	if d.Body == nil || d.Type.Params.NumFields() != 0 || d.Type.Results.NumFields() != 1 {
		return nil, false
	}
	var codes []int
	ok, any := true, false
	ast.Inspect(d.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) != 1 {
				ok = false
				return false
			}
			cs, k := r.codeSet(n.Results[0], depth+1)
			if !k {
				ok = false
				return false
			}
			codes, any = append(codes, cs...), true
		}
		return ok
	})
	return codes, ok && any
}

func (r *Result) literalSet(cl *ast.CompositeLit) ([]int, bool) {
	info := r.pass.TypesInfo
	var codes []int
	switch u := typeUnder(info.TypeOf(cl)).(type) {
	case *types.Slice, *types.Array:
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			k, ok := intConstOf(info, el)
			if !ok {
				return nil, false
			}
			codes = append(codes, k)
		}
	case *types.Map:
		b, isBasic := u.Elem().Underlying().(*types.Basic)
		isBool := isBasic && b.Info()&types.IsBoolean != 0
		for _, el := range cl.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return nil, false
			}
			k, ok := intConstOf(info, kv.Key)
			if !ok {
				return nil, false
			}
			if isBool {
				tv, ok := info.Types[kv.Value]
				if !ok || tv.Value == nil || tv.Value.Kind() != constant.Bool {
					return nil, false // a computed entry: the set is not known
				}
				if !constant.BoolVal(tv.Value) {
					continue
				}
			}
			codes = append(codes, k)
		}
	default:
		return nil, false
	}
	return codes, true
}

func intConstOf(info *types.Info, e ast.Expr) (int, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return 0, false
	}
	n, ok := constant.Int64Val(tv.Value)
	return int(n), ok
}
