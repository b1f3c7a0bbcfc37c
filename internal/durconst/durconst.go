// Package durconst folds duration expressions to constants.
//
// The go/types checker already folds constant expressions (named constants,
// arithmetic, constants from other packages). This package adds the cases
// retry and deadline code writes in practice and the type checker leaves
// alone: a variable assigned once from a constant, a field of a struct
// literal, time.Duration(n)*time.Second with n such a variable, and a config
// field whose production value the values file (.retryvet.yml) gives. What
// cannot be folded is reported as unknown, never guessed. Defaults (a field's
// constructor default, a flag's default) are folded only on request
// (Default), and say so (Why).
package durconst

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/values"
)

// A Folder folds expressions of one package. It is cheap to build; the
// single-assignment index is computed on first use.
type Folder struct {
	Info  *types.Info
	Files []*ast.File
	// Defaults, while set, folds an exported field too when every value
	// the package gives it agrees (a constructor's default that callers may
	// replace): for a second, by-default reading of a schedule. Off, an
	// exported field is the caller's to set and does not fold.
	Defaults bool

	once    sync.Once
	params  map[*types.Var]bool       // the parameters of the package's functions
	returns map[*types.Func]ast.Expr  // a function with no parameters whose body is one return of one value
	assigns map[*types.Var][]ast.Expr // every value assigned to a variable (nil entry: unknown assignment)
	fields  map[fieldKey][]ast.Expr   // values given to a struct field in composite literals or assignments
	flags   map[*types.Var]flagDef    // variables and fields bound to a command-line flag
}

// flagDef is a flag.Duration / DurationVar (or pflag's) default.
type flagDef struct {
	name string
	def  ast.Expr
}

// Why says where a folded value comes from.
type Why struct {
	// Entry is the values-file entry that gave a field's value, if any.
	Entry *values.Entry
	// Default: the value is a default the code sets (a constructor default,
	// a Default... constant assigned to the field, a flag's default) and
	// the program may run with another; Of names the field or flag
	// ("cfg.Timeout", "flag -timeout"), At is where the default is set and
	// Others counts the other, non-constant values the code assigns.
	Default bool
	Of      string
	At      token.Pos
	Others  int
}

type fieldKey struct {
	owner *types.Var // the variable holding the struct (nil: any)
	field *types.Var
}

// New returns a Folder for a package's files.
func New(info *types.Info, files []*ast.File) *Folder {
	return &Folder{Info: info, Files: files}
}

// Duration folds e to a duration. ok is false when e is not constant under
// the rules above.
func (f *Folder) Duration(e ast.Expr) (d time.Duration, ok bool) {
	d, ok, _ = f.Explain(e)
	return d, ok
}

// Explain folds e to a duration like Duration and says whether a value of
// the values file decided it (why.Entry).
func (f *Folder) Explain(e ast.Expr) (d time.Duration, ok bool, why Why) {
	v, ok := f.fold(e, 0, &why)
	if !ok {
		return 0, false, Why{}
	}
	if i, exact := constant.Int64Val(constant.ToInt(v)); exact {
		return time.Duration(i), true, why
	}
	return 0, false, Why{}
}

// Default folds e like Explain, and where that fails and e reads a struct
// field or a flag variable, to the default the code sets for it: the one
// constant every constant assignment to the field agrees on (a Default...
// constant in a literal, `if c.Timeout == 0 { c.Timeout = 30 * time.Second }`),
// or the default of the flag.Duration / DurationVar that binds it. why.Default
// is set: the program can run with another value.
func (f *Folder) Default(e ast.Expr) (d time.Duration, ok bool, why Why) {
	if d, ok, why := f.Explain(e); ok {
		return d, ok, why
	}
	v, why, ok := f.defaultOf(astutil.Unparen(e))
	if !ok {
		return 0, false, Why{}
	}
	if i, exact := constant.Int64Val(constant.ToInt(v)); exact {
		return time.Duration(i), true, why
	}
	return 0, false, Why{}
}

// Int folds e to an integer (attempt counts, exponents).
func (f *Folder) Int(e ast.Expr) (int64, bool) {
	v, ok := f.fold(e, 0, nil)
	if !ok {
		return 0, false
	}
	i, exact := constant.Int64Val(constant.ToInt(v))
	return i, exact
}

// Float folds e to a float (backoff factors, jitter fractions).
func (f *Folder) Float(e ast.Expr) (float64, bool) {
	v, ok := f.fold(e, 0, nil)
	if !ok {
		return 0, false
	}
	x, _ := constant.Float64Val(constant.ToFloat(v))
	return x, true
}

const maxDepth = 8

func (f *Folder) fold(e ast.Expr, depth int, why *Why) (constant.Value, bool) {
	if e == nil || depth > maxDepth {
		return nil, false
	}
	e = astutil.Unparen(e)
	if tv, ok := f.Info.Types[e]; ok && tv.Value != nil {
		return tv.Value, true
	}
	switch e := e.(type) {
	case *ast.Ident:
		if v, ok := f.Info.Uses[e].(*types.Var); ok {
			return f.foldVar(v, depth, why)
		}
	case *ast.SelectorExpr:
		// A field of a struct literal: cfg.Timeout where cfg := Config{Timeout: 40 * time.Second}.
		if sel, ok := f.Info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			fld, _ := sel.Obj().(*types.Var)
			var owner *types.Var
			if id, ok := astutil.Unparen(e.X).(*ast.Ident); ok {
				owner, _ = f.Info.Uses[id].(*types.Var)
			}
			return f.foldField(owner, fld, sel, depth, why)
		}
		if v, ok := f.Info.Uses[e.Sel].(*types.Var); ok { // pkg.Var
			return f.foldVar(v, depth, why)
		}
	case *ast.BinaryExpr:
		x, ok1 := f.fold(e.X, depth+1, why)
		y, ok2 := f.fold(e.Y, depth+1, why)
		if !ok1 || !ok2 {
			return nil, false
		}
		switch e.Op {
		case token.SHL, token.SHR:
			s, ok := constant.Uint64Val(constant.ToInt(y))
			if !ok {
				return nil, false
			}
			return constant.Shift(constant.ToInt(x), e.Op, uint(s)), true
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return nil, false
		}
		if e.Op == token.QUO && isIntegral(f.Info.TypeOf(e)) {
			if constant.Sign(constant.ToInt(y)) == 0 {
				return nil, false
			}
			return constant.BinaryOp(constant.ToInt(x), token.QUO_ASSIGN, constant.ToInt(y)), true
		}
		return binaryOp(x, e.Op, y)
	case *ast.CallExpr:
		// Conversions: time.Duration(n), float64(x).
		if tv, ok := f.Info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			v, ok := f.fold(e.Args[0], depth+1, why)
			if !ok {
				return nil, false
			}
			if isIntegral(tv.Type) {
				return constant.ToInt(truncate(v)), true
			}
			return v, true
		}
		// len(s.Waits) of a slice the package gives one literal.
		if id, ok := astutil.Unparen(e.Fun).(*ast.Ident); ok && len(e.Args) == 1 {
			if b, ok := f.Info.Uses[id].(*types.Builtin); ok && b.Name() == "len" {
				if lit := f.FieldLit(e.Args[0]); lit != nil {
					return constant.MakeInt64(int64(len(lit.Elts))), true
				}
				return nil, false
			}
		}
		// A function of the package that returns one value and takes
		// nothing: defaultPollInterval().
		if fn := calleeFunc(f.Info, e); fn != nil && len(e.Args) == 0 {
			f.index()
			if r, ok := f.returns[fn]; ok {
				return f.fold(r, depth+1, why)
			}
		}
		// d.Seconds() and friends are rarely needed; time.ParseDuration("40s") is.
		if fn := calleeFunc(f.Info, e); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "ParseDuration" && len(e.Args) == 1 {
			if s, ok := f.fold(e.Args[0], depth+1, why); ok && s.Kind() == constant.String {
				if d, err := time.ParseDuration(constant.StringVal(s)); err == nil {
					return constant.MakeInt64(int64(d)), true
				}
			}
		}
	}
	return nil, false
}

func truncate(v constant.Value) constant.Value {
	if v.Kind() == constant.Float {
		x, _ := constant.Float64Val(v)
		return constant.MakeInt64(int64(x))
	}
	return v
}

func binaryOp(x constant.Value, op token.Token, y constant.Value) (v constant.Value, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	if x.Kind() == constant.Float || y.Kind() == constant.Float {
		x, y = constant.ToFloat(x), constant.ToFloat(y)
	}
	return constant.BinaryOp(x, op, y), true
}

func isIntegral(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	switch fun := astutil.Unparen(call.Fun).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[fun].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		fn, _ := info.Uses[fun.Sel].(*types.Func)
		return fn
	}
	return nil
}

// foldVar folds a variable that is assigned exactly one value in the
// package (its initializer or a single assignment) and never has its
// address taken.
func (f *Folder) foldVar(v *types.Var, depth int, why *Why) (constant.Value, bool) {
	switch v.Kind() {
	case types.ParamVar, types.RecvVar, types.ResultVar:
		// The caller gives the value; `if p <= 0 { p = 5 }` is a fallback.
		return nil, false
	}
	f.index()
	vals, ok := f.assigns[v]
	if !ok || len(vals) != 1 || vals[0] == nil {
		return nil, false
	}
	return f.fold(vals[0], depth+1, why)
}

func (f *Folder) foldField(owner, fld *types.Var, sel *types.Selection, depth int, why *Why) (constant.Value, bool) {
	f.index()
	if owner != nil {
		if vals, ok := f.fields[fieldKey{owner, fld}]; ok {
			if len(vals) == 1 && vals[0] != nil {
				return f.fold(vals[0], depth+1, why)
			}
			return nil, false
		}
	}
	// The production value the values file gives for the field.
	if e := values.Current().Field(FieldName(sel)); e != nil {
		if c, ok := entryValue(e, fld.Type()); ok {
			e.MarkUsed()
			if why != nil {
				why.Entry = e
			}
			return c, true
		}
	}
	// Any literal of the type in the package gives the same value: fold only
	// when every value the field is given agrees, and only for a field that
	// other packages cannot set (an exported field is the caller's to set;
	// `if c.MaxRetries == 0 { c.MaxRetries = 5 }` is a default).
	if fld.Exported() && !f.Defaults {
		return nil, false
	}
	vals := f.fields[fieldKey{nil, fld}]
	if len(vals) == 0 {
		return nil, false
	}
	var first constant.Value
	for _, e := range vals {
		if e == nil {
			return nil, false
		}
		if f.Defaults && f.isParam(e) {
			continue // a setter's or option's argument: the caller's replacement of the default
		}
		c, ok := f.fold(e, depth+1, why)
		if !ok {
			return nil, false
		}
		if first == nil {
			first = c
		} else if !constant.Compare(first, token.EQL, c) {
			return nil, false
		}
	}
	return first, first != nil
}

// isParam reports a parameter of one of the package's functions.
func (f *Folder) isParam(e ast.Expr) bool {
	id, ok := astutil.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := f.Info.Uses[id].(*types.Var)
	return ok && f.params[v]
}

// FieldLit returns the slice or array literal a field read (c.Waits) is
// given when it is the only value the package gives the field, under the
// rules of foldField (an exported field only with Defaults); nil else.
func (f *Folder) FieldLit(e ast.Expr) *ast.CompositeLit {
	sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s, ok := f.Info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return nil
	}
	fld, _ := s.Obj().(*types.Var)
	if fld == nil || fld.Exported() && !f.Defaults {
		return nil
	}
	f.index()
	vals := f.fields[fieldKey{nil, fld}]
	if len(vals) != 1 || vals[0] == nil {
		return nil
	}
	lit, _ := astutil.Unparen(vals[0]).(*ast.CompositeLit)
	if lit == nil {
		return nil
	}
	switch typeUnder(f.Info.TypeOf(lit)).(type) {
	case *types.Slice, *types.Array:
		for _, elt := range lit.Elts {
			if _, keyed := elt.(*ast.KeyValueExpr); keyed {
				return nil
			}
		}
		return lit
	}
	return nil
}

// index records, for every variable and struct field, the values the
// package assigns to it.
func (f *Folder) index() { f.once.Do(f.build) }

func (f *Folder) build() {
	f.flags = make(map[*types.Var]flagDef)
	f.params = make(map[*types.Var]bool)
	f.returns = make(map[*types.Func]ast.Expr)
	f.assigns = make(map[*types.Var][]ast.Expr)
	f.fields = make(map[fieldKey][]ast.Expr)
	addVar := func(id *ast.Ident, val ast.Expr) {
		obj := f.Info.Defs[id]
		if obj == nil {
			obj = f.Info.Uses[id]
		}
		if v, ok := obj.(*types.Var); ok {
			f.assigns[v] = append(f.assigns[v], val)
		}
	}
	addField := func(owner *types.Var, fld *types.Var, val ast.Expr) {
		if owner != nil {
			f.fields[fieldKey{owner, fld}] = append(f.fields[fieldKey{owner, fld}], val)
		}
		f.fields[fieldKey{nil, fld}] = append(f.fields[fieldKey{nil, fld}], val)
	}
	litFields := func(owner *types.Var, lit *ast.CompositeLit) {
		st, ok := typeUnder(f.Info.TypeOf(lit)).(*types.Struct)
		if !ok {
			return
		}
		for i, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if fld, ok := f.Info.Uses[id].(*types.Var); ok {
						addField(owner, fld, kv.Value)
					}
				}
			} else if i < st.NumFields() {
				addField(owner, st.Field(i), elt)
			}
		}
	}
	for _, file := range f.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncType:
				if n.Params != nil {
					for _, fld := range n.Params.List {
						for _, id := range fld.Names {
							if v, ok := f.Info.Defs[id].(*types.Var); ok {
								f.params[v] = true
							}
						}
					}
				}
			case *ast.FuncDecl:
				// func defaultPoll() time.Duration { return 100 * time.Millisecond }
				if n.Recv == nil && n.Body != nil && n.Type.Params.NumFields() == 0 && len(n.Body.List) == 1 {
					if ret, ok := n.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
						if fn, ok := f.Info.Defs[n.Name].(*types.Func); ok {
							f.returns[fn] = ret.Results[0]
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					var val ast.Expr
					if len(n.Values) == len(n.Names) {
						val = n.Values[i]
					}
					if val == nil && len(n.Values) == 0 {
						// var x T: the zero value; a later single assignment is the value.
						continue
					}
					addVar(id, val)
					if lit, ok := astutil.Unparen(val).(*ast.CompositeLit); ok {
						if v, ok := f.Info.Defs[id].(*types.Var); ok {
							litFields(v, lit)
						}
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					var val ast.Expr
					if len(n.Lhs) == len(n.Rhs) && (n.Tok == token.ASSIGN || n.Tok == token.DEFINE) {
						val = n.Rhs[i]
					}
					switch lhs := astutil.Unparen(lhs).(type) {
					case *ast.Ident:
						addVar(lhs, val)
						if lit, ok := astutil.Unparen(val).(*ast.CompositeLit); ok && val != nil {
							obj := f.Info.Defs[lhs]
							if obj == nil {
								obj = f.Info.Uses[lhs]
							}
							if v, ok := obj.(*types.Var); ok {
								litFields(v, lit)
							}
						}
					case *ast.SelectorExpr:
						if sel, ok := f.Info.Selections[lhs]; ok && sel.Kind() == types.FieldVal {
							fld, _ := sel.Obj().(*types.Var)
							var owner *types.Var
							if id, ok := astutil.Unparen(lhs.X).(*ast.Ident); ok {
								owner, _ = f.Info.Uses[id].(*types.Var)
							}
							addField(owner, fld, val)
						}
					}
				}
			case *ast.IncDecStmt:
				if id, ok := astutil.Unparen(n.X).(*ast.Ident); ok {
					addVar(id, nil)
				}
			case *ast.RangeStmt:
				for _, x := range []ast.Expr{n.Key, n.Value} {
					if id, ok := x.(*ast.Ident); ok {
						addVar(id, nil)
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					if id, ok := astutil.Unparen(n.X).(*ast.Ident); ok {
						addVar(id, nil) // address taken: may change anywhere
					}
				}
			case *ast.CompositeLit:
				litFields(nil, n)
			case *ast.CallExpr:
				f.indexFlag(n)
			}
			return true
		})
	}
}

func typeUnder(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	return t.Underlying()
}

// Format prints a duration the way people write them in timeouts: 72s
// rather than 1m12s below ten minutes, 500ms, 15m, 1h30m.
func Format(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	if d > 0 && d < 10*time.Minute && d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	s := d.String()
	// time.Duration prints 1m0s and 1h0m0s; drop the zero tails.
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
