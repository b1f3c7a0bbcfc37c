package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// Written is the one value the package gives a variable of its own or an
// unexported field: every read then sees it.
type Written struct {
	Value   ast.Expr       // v = Value; nil when v is one of several results
	CommaOK *ast.IndexExpr // v is the ok of `_, v := m[k]`
	InMap   *ast.IndexExpr // v is the value of `v, ok := m[k]`
	First   *ast.CallExpr  // v is the first of several results: retry, delay, err := classify(err)
}

// written counts the writes of one variable; all keeps every value
// written, in source order (a tuple's call for its first variable, nil for
// a value not known), and opaque says some write was not of a value.
type written struct {
	Written
	n      int
	all    []ast.Expr
	opaque bool
}

// Writes returns every value the package writes to v, in source order
// (the call for the first of several results, nil where the value is not
// known), also for an exported field, whose writes elsewhere it cannot
// see. A write through an element, x += d or a taken address: false.
func (r *Result) Writes(v *types.Var) ([]ast.Expr, bool) {
	w := r.writes[v]
	if w == nil {
		return nil, true
	}
	return w.all, !w.opaque
}

// Written returns the one value the package gives v (its declaration, one
// assignment, or one key of a composite literal, as a constructor's
// &client{retryOn: map[int]bool{...}}). A variable written twice, through
// an index (s[429] = true), by delete or clear, or whose address is taken
// may hold anything: false.
func (r *Result) Written(v *types.Var) (Written, bool) {
	if v == nil || v.Pkg() != r.pass.Pkg || (v.IsField() && v.Exported()) {
		return Written{}, false
	}
	w := r.writes[v]
	if w == nil || w.n != 1 {
		return Written{}, false
	}
	return w.Written, true
}

// indexWrites records, in one walk of the package, every write of every
// variable: what Written answers.
func (r *Result) indexWrites() {
	info := r.pass.TypesInfo
	r.writes = map[*types.Var]*written{}
	r.paramArgs = map[*types.Var][]ast.Expr{}
	get := func(e ast.Expr) *written {
		v := varOf(info, e)
		if v == nil {
			return nil
		}
		w := r.writes[v]
		if w == nil {
			w = &written{}
			r.writes[v] = w
		}
		return w
	}
	// root: the variable an element (s[k], *p) belongs to.
	root := func(e ast.Expr) (ast.Expr, bool) {
		direct := true
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e, direct = x.X, false
			case *ast.StarExpr:
				e, direct = x.X, false
			default:
				return e, direct
			}
		}
	}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if w := get(id); w != nil {
						w.n++
						w.Value = nil
						if len(n.Values) == len(n.Names) {
							w.Value = n.Values[i]
						}
						w.all = append(w.all, w.Value)
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
						w := get(id)
						w.n++
						w.Value = n.Value
						w.all = append(w.all, n.Value)
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					target, direct := root(lhs)
					w := get(target)
					if w == nil {
						continue
					}
					if !direct {
						w.n += 2 // s[k] = v: the set changes
						w.opaque = true
						continue
					}
					w.n++
					w.Value, w.CommaOK, w.InMap, w.First = nil, nil, nil, nil
					if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
						w.opaque = true
						continue // x += d
					}
					switch {
					case len(n.Lhs) == len(n.Rhs):
						w.Value = n.Rhs[i]
					case len(n.Rhs) == 1 && len(n.Lhs) == 2 && i == 1:
						w.CommaOK, _ = ast.Unparen(n.Rhs[0]).(*ast.IndexExpr)
					case len(n.Rhs) == 1 && len(n.Lhs) == 2 && i == 0:
						w.InMap, _ = ast.Unparen(n.Rhs[0]).(*ast.IndexExpr)
					}
					if len(n.Rhs) == 1 && len(n.Lhs) > 1 && i == 0 {
						w.First, _ = ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
					}
					switch {
					case w.Value != nil:
						w.all = append(w.all, w.Value)
					case w.First != nil:
						w.all = append(w.all, w.First)
					default:
						w.all = append(w.all, nil)
					}
				}
			case *ast.IncDecStmt:
				if target, _ := root(n.X); get(target) != nil {
					get(target).n += 2
					get(target).opaque = true
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					if w := get(n.X); w != nil {
						w.n += 2 // address taken: may change
						w.opaque = true
					}
				}
			case *ast.CallExpr:
				// f(resp.StatusCode): what a parameter of the package's
				// functions is handed (statusOf follows it).
				if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && fn.Pkg() == r.pass.Pkg {
					if sig, ok := fn.Type().(*types.Signature); ok && n.Ellipsis == token.NoPos {
						for i, a := range n.Args {
							if i < sig.Params().Len() && !(sig.Variadic() && i >= sig.Params().Len()-1) {
								p := sig.Params().At(i)
								r.paramArgs[p] = append(r.paramArgs[p], a)
							}
						}
					}
				}
				// delete(s, k), clear(s)
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
					if _, ok := info.Uses[id].(*types.Builtin); ok {
						if target, _ := root(n.Args[0]); get(target) != nil {
							get(target).n += 2
							get(target).opaque = true
						}
					}
				}
			}
			return true
		})
	}
}
