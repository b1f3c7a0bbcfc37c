package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Membership recognises a test of key's membership in a code set:
// set[key] on a map whose values are bool, slices.Contains(set, key), or
// a call of the package's own contains helper (MembershipTest).
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
		if fn == nil || fn.Pkg() == nil || len(e.Args) != 2 {
			return nil, nil, false
		}
		if fn.Pkg() == r.pass.Pkg {
			// in(retryable, code): the package's own contains helper.
			if s, k, ok := r.MembershipTest(fn); ok {
				return e.Args[s], e.Args[k], true
			}
			return nil, nil, false
		}
		if p := fn.Pkg().Path(); fn.Name() != "Contains" || p != "slices" && p != "golang.org/x/exp/slices" {
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
// append of constants to one, a function of the package without
// parameters that returns one, a set built by a constructor from constant
// codes (sets.New[int](502, 503)), or another package's exported variable
// that holds one (its CodesFact). A set written again, through an index,
// by delete or clear, or whose address is taken may hold anything: false.
func (r *Result) CodeSet(e ast.Expr) ([]int, bool) {
	codes, _, ok := r.codeSet(e, 0)
	return codes, ok
}

// CodeSetVia is CodeSet that also names, for a message, another
// package's variable the codes come from ("pkg.Var at dir/file.go:12").
func (r *Result) CodeSetVia(e ast.Expr) (codes []int, via string, ok bool) {
	return r.codeSet(e, 0)
}

func (r *Result) codeSet(e ast.Expr, depth int) ([]int, string, bool) {
	if depth > 6 {
		return nil, "", false
	}
	info := r.pass.TypesInfo
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		codes, ok := r.literalSet(e)
		return codes, "", ok
	case *ast.Ident:
		if v, ok := info.Uses[e].(*types.Var); ok && !v.IsField() {
			return r.varSet(v, depth)
		}
	case *ast.SelectorExpr:
		if v, ok := info.Uses[e.Sel].(*types.Var); ok && (!v.IsField() || !v.Exported()) {
			return r.varSet(v, depth)
		}
		if v, ok := info.Uses[e.Sel].(*types.Var); ok && v.IsField() {
			return r.defaultSet(v, depth)
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && id.Name == "append" {
			if _, ok := info.Uses[id].(*types.Builtin); !ok || len(e.Args) == 0 {
				return nil, "", false
			}
			codes, via, ok := r.codeSet(e.Args[0], depth+1)
			if !ok {
				return nil, "", false
			}
			for _, a := range e.Args[1:] {
				if e.Ellipsis.IsValid() {
					more, _, ok := r.codeSet(a, depth+1)
					if !ok {
						return nil, "", false
					}
					codes = append(codes, more...)
					continue
				}
				k, ok := intConstOf(info, a)
				if !ok {
					return nil, "", false
				}
				codes = append(codes, k)
			}
			return codes, via, true
		}
		fn, _ := typeutil.Callee(info, e).(*types.Func)
		if fn == nil {
			return nil, "", false
		}
		if codes, ok := constructorSet(info, fn, e); ok {
			return codes, "", true
		}
		return r.funcSet(fn, depth+1)
	}
	return nil, "", false
}

// FuncCodeSet resolves a function without parameters that returns a code
// set: its body when it is declared here, else its package's CodesFact.
func (r *Result) FuncCodeSet(fn *types.Func) ([]int, bool) {
	codes, _, ok := r.funcSet(fn, 0)
	return codes, ok
}

func (r *Result) funcSet(fn *types.Func, depth int) ([]int, string, bool) {
	fn = fn.Origin()
	if fn.Pkg() != r.pass.Pkg {
		var f CodesFact
		if fn.Pkg() != nil && r.pass.ImportObjectFact(fn, &f) {
			return f.Codes, f.Name + " at " + f.Posn, true
		}
		return nil, "", false
	}
	if d := r.decls[fn]; d != nil {
		codes, ok := r.returnedSet(d, depth)
		return codes, "", ok
	}
	return nil, "", false
}

// varSet resolves a variable: written once in this package, or another
// package's exported variable through its fact.
func (r *Result) varSet(v *types.Var, depth int) ([]int, string, bool) {
	if v.Pkg() != r.pass.Pkg {
		var f CodesFact
		if v.Pkg() != nil && !v.IsField() && r.pass.ImportObjectFact(v, &f) {
			return f.Codes, f.Name + " at " + f.Posn, true
		}
		return nil, "", false
	}
	value, ok := r.WrittenOnce(v)
	if !ok {
		return nil, "", false
	}
	return r.codeSet(value, depth+1)
}

// defaultSet resolves an exported field that its package writes once, in
// a constructor or a function that returns the defaults
// (Options{RetryableStatusCodes: []int{...}}): the codes a retry reads
// unless its caller replaces them. Another package's field is read from
// its CodesFact.
func (r *Result) defaultSet(v *types.Var, depth int) ([]int, string, bool) {
	if v.Pkg() != r.pass.Pkg {
		var f CodesFact
		if v.Pkg() != nil && r.pass.ImportObjectFact(v, &f) {
			return f.Codes, f.Name + " at " + f.Posn, true
		}
		return nil, "", false
	}
	codes, name, posn, ok := r.fieldDefault(v, depth)
	if !ok {
		return nil, "", false
	}
	return codes, name + " by default, set at " + posn, true
}

// fieldDefault is the code set of this package's field v when the package
// writes it once, with the field's name (Options.RetryOn) and where it is
// written.
func (r *Result) fieldDefault(v *types.Var, depth int) (codes []int, name, posn string, ok bool) {
	all, known := r.Writes(v)
	if !known || len(all) != 1 || all[0] == nil {
		return nil, "", "", false
	}
	codes, _, ok = r.codeSet(all[0], depth+1)
	if !ok {
		return nil, "", "", false
	}
	return codes, fieldName(v), Shorten(r.pass.Fset, all[0].Pos()), true
}

// fieldName names an exported field by its struct type: Options.Codes.
func fieldName(v *types.Var) string {
	if st := fieldOwner(v); st != nil {
		return st.Obj().Name() + "." + v.Name()
	}
	return v.Name()
}

// fieldOwner returns the named type of the package that declares field
// v, if any.
func fieldOwner(v *types.Var) *types.Named {
	if v.Pkg() == nil {
		return nil
	}
	scope := v.Pkg().Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if st, ok := n.Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if st.Field(i) == v {
					return n
				}
			}
		}
	}
	return nil
}

// constructorSet resolves a set built from constant codes by a
// constructor: set.CreateIntSet(429, 500, 502), sets.New[int](502, 503).
func constructorSet(info *types.Info, fn *types.Func, call *ast.CallExpr) ([]int, bool) {
	if len(call.Args) < 2 || call.Ellipsis.IsValid() || !setName.MatchString(fn.Name()) {
		return nil, false
	}
	var codes []int
	for _, a := range call.Args {
		k, ok := intConstOf(info, a)
		if !ok {
			return nil, false
		}
		codes = append(codes, k)
	}
	return codes, anyHTTPStatus(codes)
}

var setName = regexp.MustCompile(`(?i)set|^new|^of$|list`)

// WrittenOnce returns the one value the package writes to a variable of
// its own or an unexported field (see Written): every read then sees that
// value.
func (r *Result) WrittenOnce(v *types.Var) (ast.Expr, bool) {
	w, ok := r.Written(v)
	return w.Value, ok && w.Value != nil
}

// returnedSet resolves a function with no parameters whose every return
// is a code set.
func (r *Result) returnedSet(d *ast.FuncDecl, depth int) ([]int, bool) {
	if d.Body == nil || d.Type.Params.NumFields() != 0 || d.Type.Results.NumFields() != 1 {
		return nil, false
	}
	var codes []int
	rets := returns(d)
	for _, ret := range rets {
		if len(ret.Results) != 1 {
			return codes, false
		}
		cs, _, k := r.codeSet(ret.Results[0], depth+1)
		if !k {
			return codes, false
		}
		codes = append(codes, cs...)
	}
	return codes, len(rets) > 0
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

// MembershipTest reports a function of the package that answers whether
// one parameter is an element of another, whatever its name:
//
//	func in(set []int, code int) bool {
//		for _, c := range set {
//			if c == code {
//				return true
//			}
//		}
//		return false
//	}
//
// with the indices of the set and the key parameters.
func (r *Result) MembershipTest(fn *types.Func) (set, key int, ok bool) {
	d := r.Decl(fn)
	if d == nil || d.Body == nil || len(d.Body.List) != 2 {
		return 0, 0, false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 2 || sig.Results().Len() != 1 || !isBool(sig.Results().At(0).Type()) {
		return 0, 0, false
	}
	info := r.pass.TypesInfo
	param := func(e ast.Expr) int {
		if v := varOf(info, e); v != nil {
			for i := 0; i < 2; i++ {
				if sig.Params().At(i) == v {
					return i
				}
			}
		}
		return -1
	}
	rng, ok := d.Body.List[0].(*ast.RangeStmt)
	if !ok || len(rng.Body.List) != 1 {
		return 0, 0, false
	}
	last, ok := d.Body.List[1].(*ast.ReturnStmt)
	if !ok || len(last.Results) != 1 || !isConstBool(info, last.Results[0], false) {
		return 0, 0, false
	}
	set = param(rng.X)
	ifs, ok := rng.Body.List[0].(*ast.IfStmt)
	if set < 0 || !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 {
		return 0, 0, false
	}
	ret, ok := ifs.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 || !isConstBool(info, ret.Results[0], true) {
		return 0, 0, false
	}
	cmp, ok := astutil.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || cmp.Op != token.EQL {
		return 0, 0, false
	}
	// The element: the range's value, or set[i] with i its key.
	elem := func(e ast.Expr) bool {
		if id, ok := astutil.Unparen(e).(*ast.Ident); ok && rng.Value != nil {
			if vid, ok := rng.Value.(*ast.Ident); ok && info.Uses[id] != nil && info.Uses[id] == info.Defs[vid] {
				return true
			}
		}
		if ix, ok := astutil.Unparen(e).(*ast.IndexExpr); ok && param(ix.X) == set && rng.Key != nil {
			if kid, ok := rng.Key.(*ast.Ident); ok {
				if id, ok := astutil.Unparen(ix.Index).(*ast.Ident); ok && info.Uses[id] != nil && info.Uses[id] == info.Defs[kid] {
					return true
				}
			}
		}
		return false
	}
	switch {
	case elem(cmp.X) && param(cmp.Y) == 1-set:
		return set, 1 - set, true
	case elem(cmp.Y) && param(cmp.X) == 1-set:
		return set, 1 - set, true
	}
	return 0, 0, false
}
