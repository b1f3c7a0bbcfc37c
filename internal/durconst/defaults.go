package durconst

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/values"
)

// FieldName names a selected struct field the way the values file does:
// the package path of the struct type that declares it, the type's name
// and the field's (example.com/svc/config.Config.Timeout). "" when the
// struct has no name.
func FieldName(sel *types.Selection) string {
	if sel == nil || sel.Kind() != types.FieldVal {
		return ""
	}
	t := sel.Recv()
	idx := sel.Index()
	for i, k := range idx {
		named := namedOf(t)
		st, ok := typeUnder(t).(*types.Struct)
		if !ok || k >= st.NumFields() {
			return ""
		}
		if i == len(idx)-1 {
			if named == nil || named.Obj().Pkg() == nil {
				return ""
			}
			return named.Obj().Pkg().Path() + "." + named.Obj().Name() + "." + st.Field(k).Name()
		}
		t = st.Field(k).Type()
	}
	return ""
}

func namedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	if n != nil {
		n = n.Origin()
	}
	return n
}

// entryValue turns a values-file entry into a constant of type t: a
// duration for a time.Duration field, an integer for an integer field.
func entryValue(e *values.Entry, t types.Type) (constant.Value, bool) {
	if isDuration(t) {
		if e.IsDur {
			return constant.MakeInt64(int64(e.Dur)), true
		}
		return nil, false
	}
	if isIntegral(t) && e.IsInt {
		return constant.MakeInt64(e.Int), true
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 && e.IsInt {
		return constant.MakeInt64(e.Int), true
	}
	return nil, false
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}

// FieldOf returns the struct field e reads (cfg.Timeout, s.cfg.Timeout)
// and e's source text, or nil.
func (f *Folder) FieldOf(e ast.Expr) (*types.Var, string) {
	se, ok := astutil.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	sel, ok := f.Info.Selections[se]
	if !ok || sel.Kind() != types.FieldVal {
		return nil, ""
	}
	fld, _ := sel.Obj().(*types.Var)
	return fld, types.ExprString(se)
}

// defaultOf folds e (a field read or a flag variable's load) to its default.
func (f *Folder) defaultOf(e ast.Expr) (constant.Value, Why, bool) {
	if fld, of := f.FieldOf(e); fld != nil {
		d, why, ok := f.FieldDefault(fld, of)
		if !ok {
			return nil, Why{}, false
		}
		return constant.MakeInt64(int64(d)), why, true
	}
	// *timeout where timeout := flag.Duration("timeout", 30*time.Second, ...)
	if st, ok := e.(*ast.StarExpr); ok {
		if id, ok := astutil.Unparen(st.X).(*ast.Ident); ok {
			if v, ok := f.Info.Uses[id].(*types.Var); ok {
				f.index()
				if vals := f.assigns[v]; len(vals) == 1 && vals[0] != nil {
					if call, ok := astutil.Unparen(vals[0]).(*ast.CallExpr); ok {
						if name, def, ok := f.flagCall(call, false); ok {
							if c, ok := f.fold(def, 1, nil); ok {
								return c, Why{Default: true, Of: "flag -" + name, At: def.Pos()}, true
							}
						}
					}
				}
			}
		}
	}
	// a variable bound with flag.DurationVar(&timeout, ...)
	if id, ok := e.(*ast.Ident); ok {
		if v, ok := f.Info.Uses[id].(*types.Var); ok {
			f.index()
			if fd, ok := f.flags[v]; ok {
				if c, ok := f.fold(fd.def, 1, nil); ok {
					return c, Why{Default: true, Of: "flag -" + fd.name, At: fd.def.Pos()}, true
				}
			}
		}
	}
	return nil, Why{}, false
}

// FieldDefault returns the default the package sets for a struct field:
// the value every constant assignment to it (in a composite literal or an
// assignment, such as a constructor's `if c.Timeout == 0 { c.Timeout =
// 30 * time.Second }`) agrees on, or the default of the flag bound to it.
// Non-constant assignments are counted in why.Others; constants that
// disagree fold nothing. of names the field in messages.
func (f *Folder) FieldDefault(fld *types.Var, of string) (time.Duration, Why, bool) {
	if f == nil || fld == nil {
		return 0, Why{}, false
	}
	f.index()
	var first constant.Value
	var at token.Pos
	others := 0
	for _, e := range f.fields[fieldKey{nil, fld}] {
		if e == nil {
			others++
			continue
		}
		c, ok := f.fold(e, 1, nil)
		if !ok {
			others++
			continue
		}
		if first == nil {
			first, at = c, e.Pos()
		} else if !constant.Compare(first, token.EQL, c) {
			return 0, Why{}, false
		}
	}
	if fd, ok := f.flags[fld]; ok {
		c, ok := f.fold(fd.def, 1, nil)
		switch {
		case !ok:
			others++
		case first == nil:
			first, at = c, fd.def.Pos()
		case !constant.Compare(first, token.EQL, c):
			return 0, Why{}, false
		}
	}
	if first == nil {
		return 0, Why{}, false
	}
	i, exact := constant.Int64Val(constant.ToInt(first))
	if !exact {
		return 0, Why{}, false
	}
	return time.Duration(i), Why{Default: true, Of: of, At: at, Others: others}, true
}

// indexFlag records flag.DurationVar(&x, "name", def, usage) and its pflag
// forms (DurationVar, DurationVarP on a *pflag.FlagSet).
func (f *Folder) indexFlag(call *ast.CallExpr) {
	name, def, ok := f.flagCall(call, true)
	if !ok || len(call.Args) == 0 {
		return
	}
	u, ok := astutil.Unparen(call.Args[0]).(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return
	}
	var v *types.Var
	switch x := astutil.Unparen(u.X).(type) {
	case *ast.Ident:
		v, _ = f.Info.Uses[x].(*types.Var)
	case *ast.SelectorExpr:
		if sel, ok := f.Info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			v, _ = sel.Obj().(*types.Var)
		}
	}
	if v != nil {
		f.flags[v] = flagDef{name: name, def: def}
	}
}

// flagCall matches flag.Duration(name, def, usage) (bound: DurationVar(&v,
// name, def, usage)) in package flag or github.com/spf13/pflag, with the
// P forms that take a shorthand after the name.
func (f *Folder) flagCall(call *ast.CallExpr, bound bool) (string, ast.Expr, bool) {
	fn := calleeFunc(f.Info, call)
	if fn == nil || fn.Pkg() == nil {
		return "", nil, false
	}
	switch fn.Pkg().Path() {
	case "flag", "github.com/spf13/pflag":
	default:
		return "", nil, false
	}
	var off int
	switch fn.Name() {
	case "Duration":
		off = 0
	case "DurationP":
		off = 1
	case "DurationVar":
		off = 0
	case "DurationVarP":
		off = 1
	default:
		return "", nil, false
	}
	isVar := fn.Name() == "DurationVar" || fn.Name() == "DurationVarP"
	if isVar != bound {
		return "", nil, false
	}
	first := 0
	if bound {
		first = 1
	}
	if len(call.Args) < first+off+2 {
		return "", nil, false
	}
	nameV, ok := f.fold(call.Args[first], 1, nil)
	if !ok || nameV.Kind() != constant.String {
		return "", nil, false
	}
	return constant.StringVal(nameV), call.Args[first+off+1], true
}

// FieldValues returns every value the package gives the struct field fld
// (composite literals and assignments; nil for one it cannot see).
func (f *Folder) FieldValues(fld *types.Var) []ast.Expr {
	if f == nil || fld == nil {
		return nil
	}
	f.index()
	return f.fields[fieldKey{nil, fld}]
}
