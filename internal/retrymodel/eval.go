package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"sort"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// env binds loop variables (the attempt counter, a wait that grows each
// turn) to their value on one turn, so a wait expression can be folded for
// each attempt.
type env map[*types.Var]constant.Value

// eval folds e under env: constants, the bound variables, arithmetic,
// shifts, conversions, min/max, math.Pow/Min/Max/Exp2 and the other pure
// one-argument math functions, and one-statement helper
// functions of this package. It never guesses: an unknown part makes the
// whole unknown.
func (p *pkgCtx) eval(e ast.Expr, bind env, depth int) (constant.Value, bool) {
	if e == nil || depth > 16 {
		return nil, false
	}
	e = astutil.Unparen(e)
	if tv, ok := p.info.Types[e]; ok && tv.Value != nil {
		return tv.Value, true
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		// A literal the model wrote itself (growingVars' n+1).
		if c := constant.MakeFromLiteral(e.Value, e.Kind, 0); c.Kind() != constant.Unknown {
			return c, true
		}
	case *ast.Ident:
		if v, ok := p.info.Uses[e].(*types.Var); ok {
			if c, ok := bind[v]; ok {
				return c, true
			}
			// A local computed once from bound values: wait := waits[i].
			if def := p.singleDef(v); def != nil {
				return p.eval(def, bind, depth+1)
			}
			// A result of a helper: retry, delay := classify(err, attempt).
			if call, i := p.tupleDef(v); call != nil {
				return p.evalResult(call, i, bind, depth+1)
			}
			// A local capped right after it is computed: d := base << i;
			// if d > max { d = max }.
			if val, bound, upper, ok := p.clampedDef(v); ok {
				x, ok1 := p.eval(val, bind, depth+1)
				y, ok2 := p.eval(bound, bind, depth+1)
				if !ok1 || !ok2 {
					return nil, false
				}
				if compare(x, token.GTR, y) == upper {
					return y, true
				}
				return x, true
			}
			// A local only ever raised above its first value: at least that.
			if base := p.raisedBase(v); base != nil {
				c, ok := p.eval(base, bind, depth+1)
				if ok {
					p.atLeast = true
				}
				return c, ok
			}
			// The value without a Retry-After hint (hintless.go).
			if def := p.hintlessDef(v, e.Pos()); def != nil {
				p.hint.used = true
				return p.eval(def, bind, depth+1)
			}
		}
	case *ast.IndexExpr:
		// waits[i] where waits is a slice or array literal assigned once.
		i, ok := p.eval(e.Index, bind, depth+1)
		if !ok {
			return nil, false
		}
		idx, ok := toInt64(i)
		if !ok {
			return nil, false
		}
		if lit := p.sliceLiteral(e.X); lit != nil && idx >= 0 && int(idx) < len(lit.Elts) {
			return p.eval(lit.Elts[idx], bind, depth+1)
		}
		return nil, false
	case *ast.BinaryExpr:
		x, ok1 := p.eval(e.X, bind, depth+1)
		y, ok2 := p.eval(e.Y, bind, depth+1)
		if !ok1 || !ok2 {
			return nil, false
		}
		return arith(x, e.Op, y, p.typeOf(e))
	case *ast.CallExpr:
		if tv, ok := p.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			v, ok := p.eval(e.Args[0], bind, depth+1)
			if !ok {
				return nil, false
			}
			if isIntegral(tv.Type) && v.Kind() == constant.Float {
				f, _ := constant.Float64Val(v)
				return constant.MakeInt64(int64(f)), true
			}
			return v, true
		}
		if id, ok := astutil.Unparen(e.Fun).(*ast.Ident); ok {
			if b, ok := p.info.Uses[id].(*types.Builtin); ok && b.Name() == "len" && len(e.Args) == 1 {
				if lit := p.sliceLiteral(e.Args[0]); lit != nil {
					return constant.MakeInt64(int64(len(lit.Elts))), true
				}
				return nil, false
			}
			if b, ok := p.info.Uses[id].(*types.Builtin); ok && (b.Name() == "min" || b.Name() == "max") && len(e.Args) > 0 {
				best, ok := p.eval(e.Args[0], bind, depth+1)
				if !ok {
					return nil, false
				}
				for _, a := range e.Args[1:] {
					v, ok := p.eval(a, bind, depth+1)
					if !ok {
						return nil, false
					}
					less := compare(v, token.LSS, best)
					if (b.Name() == "min") == less {
						best = v
					}
				}
				return best, true
			}
		}
		fn := typeutil.StaticCallee(p.info, e)
		if fn == nil {
			return p.fieldFuncDefault(e, bind, depth) // fieldfunc.go
		}
		if fn.Pkg() != nil && fn.Pkg().Path() == "math" && len(e.Args) == 1 {
			x, ok := p.eval(e.Args[0], bind, depth+1)
			if !ok {
				return nil, false
			}
			a, _ := constant.Float64Val(constant.ToFloat(x))
			var r float64
			switch fn.Name() {
			case "Exp2":
				r = math.Exp2(a)
			case "Exp":
				r = math.Exp(a)
			case "Sqrt":
				r = math.Sqrt(a)
			case "Floor":
				r = math.Floor(a)
			case "Ceil":
				r = math.Ceil(a)
			case "Round":
				r = math.Round(a)
			case "Trunc":
				r = math.Trunc(a)
			case "Abs":
				r = math.Abs(a)
			default:
				return nil, false
			}
			if math.IsInf(r, 0) || math.IsNaN(r) {
				return nil, false
			}
			return constant.MakeFloat64(r), true
		}
		if fn.Pkg() != nil && fn.Pkg().Path() == "math" && len(e.Args) == 2 {
			x, ok1 := p.eval(e.Args[0], bind, depth+1)
			y, ok2 := p.eval(e.Args[1], bind, depth+1)
			if !ok1 || !ok2 {
				return nil, false
			}
			a, _ := constant.Float64Val(constant.ToFloat(x))
			b, _ := constant.Float64Val(constant.ToFloat(y))
			switch fn.Name() {
			case "Pow":
				return constant.MakeFloat64(math.Pow(a, b)), true
			case "Min":
				return constant.MakeFloat64(math.Min(a, b)), true
			case "Max":
				return constant.MakeFloat64(math.Max(a, b)), true
			}
			return nil, false
		}
		// A helper of this package: guard returns and a final return.
		if decl := p.res.decls[fn]; decl != nil {
			inner, ok := p.bindParams(fn, e.Args, bind, depth+1)
			if !ok {
				return nil, false
			}
			return p.evalBody(decl.Body, inner, depth+1)
		}
		// Another package's: the durations its fact lists by argument.
		if ff := p.res.Func(fn); ff != nil && len(ff.DurTable) > 0 && len(e.Args) == 1 {
			v, ok := p.eval(e.Args[0], bind, depth+1)
			if !ok {
				return nil, false
			}
			k, ok := toInt64(v)
			if !ok || k < 0 || k >= int64(len(ff.DurTable)) {
				return nil, false
			}
			return constant.MakeInt64(int64(ff.DurTable[k])), true
		}
	}
	// Named constants, single-assigned variables and struct literal fields.
	if d, ok := p.fold.Int(e); ok {
		return constant.MakeInt64(d), true
	}
	return nil, false
}

// evalBody folds a function body made of guard returns and a final
// return (if n > 13 { return 2 * time.Minute }; return base * n) under
// bind: each guard's condition must fold.
func (p *pkgCtx) evalBody(body *ast.BlockStmt, bind env, depth int) (constant.Value, bool) {
	if body == nil || depth > 16 {
		return nil, false
	}
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.ReturnStmt:
			if len(st.Results) != 1 {
				return nil, false
			}
			return p.eval(st.Results[0], bind, depth)
		case *ast.IfStmt:
			ret := singleReturn(st.Body)
			if st.Init != nil || st.Else != nil || ret == nil {
				return nil, false
			}
			holds, ok := p.evalCond(st.Cond, bind, depth)
			if !ok {
				return nil, false
			}
			if holds {
				return p.eval(ret, bind, depth)
			}
		default:
			return nil, false
		}
	}
	return nil, false
}

// evalCond folds a comparison, or && and || of comparisons, under bind.
func (p *pkgCtx) evalCond(e ast.Expr, bind env, depth int) (holds, ok bool) {
	b, isBin := astutil.Unparen(e).(*ast.BinaryExpr)
	if !isBin {
		return false, false
	}
	switch b.Op {
	case token.LAND, token.LOR:
		x, ok1 := p.evalCond(b.X, bind, depth+1)
		y, ok2 := p.evalCond(b.Y, bind, depth+1)
		if !ok1 || !ok2 {
			return false, false
		}
		if b.Op == token.LAND {
			return x && y, true
		}
		return x || y, true
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		x, ok1 := p.eval(b.X, bind, depth+1)
		y, ok2 := p.eval(b.Y, bind, depth+1)
		if !ok1 || !ok2 || x.Kind() == constant.Unknown || y.Kind() == constant.Unknown {
			return false, false
		}
		return compare(x, b.Op, y), true
	}
	return false, false
}

// bindParams binds fn's parameters to what the arguments of a call of it
// fold to (an argument that does not fold leaves its parameter unbound:
// it may be unused); false for a variadic fn or a count that differs.
func (p *pkgCtx) bindParams(fn *types.Func, args []ast.Expr, bind env, depth int) (env, bool) {
	return p.bindSig(fn.Type().(*types.Signature), args, bind, depth)
}

// bindSig is bindParams for a signature: a function literal's.
func (p *pkgCtx) bindSig(sig *types.Signature, args []ast.Expr, bind env, depth int) (env, bool) {
	if sig.Variadic() || sig.Params().Len() != len(args) {
		return nil, false
	}
	inner := env{}
	for i, a := range args {
		if v, ok := p.eval(a, bind, depth); ok {
			inner[sig.Params().At(i)] = v
		}
	}
	return inner, true
}

// singleDef returns the one expression a local variable is ever given
// (wait := base << i), or nil.
func (p *pkgCtx) singleDef(v *types.Var) ast.Expr {
	n, i := p.localDef(v, false, true)
	return assignedValue(n, i, false)
}

// localDef returns the one statement that gives a local variable a value
// in its file (inFunc: its function declaration), and v's index in it: an
// assignment, or with specs a var declaration. Nil when there are more, or
// a ++ or &v.
func (p *pkgCtx) localDef(v *types.Var, inFunc, specs bool) (ast.Node, int) {
	if v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil, 0
	}
	key := localDefKey{v, inFunc, specs}
	if d, ok := p.res.localDefs[key]; ok {
		return d.n, d.i
	}
	var root ast.Node
	if inFunc {
		root = p.funcScope(&ast.Ident{NamePos: v.Pos()})
	} else {
		// A local is assigned only inside its scope, which lies inside
		// the file's one top-level declaration that holds it: walking
		// that declaration is walking the file, for a fraction of it.
		root = p.topDeclAt(v.Pos())
	}
	var d localDefVal
	if root != nil {
		if a := p.res.assignIndex(root)[v]; a.count(specs) == 1 {
			d = localDefVal{a.last[b2i(specs)], a.idx[b2i(specs)]}
		}
	}
	if p.res.localDefs == nil {
		p.res.localDefs = make(map[localDefKey]localDefVal)
	}
	p.res.localDefs[key] = d
	return d.n, d.i
}

// localDefKey and localDefVal memoise localDef: the loop walks ask it of
// the same variables again for every condition they read.
type localDefKey struct {
	v             *types.Var
	inFunc, specs bool
}

type localDefVal struct {
	n ast.Node
	i int
}

// topDeclAt returns the top-level declaration of the package's files that
// holds pos, or the file when none does.
func (p *pkgCtx) topDeclAt(pos token.Pos) ast.Node {
	for _, f := range p.pass.Files {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		i := sort.Search(len(f.Decls), func(i int) bool { return f.Decls[i].End() >= pos })
		if i < len(f.Decls) && f.Decls[i].Pos() <= pos {
			return f.Decls[i]
		}
		return f
	}
	return nil
}

// assignCount is what gives one variable a value under a root, without var
// declarations ([0]) and with them ([1]), for every variable under a root
// at once: the loop walks ask localDef of many variables of one large
// function, and one walk of it answers them all.
type assignCount struct {
	n, specN int
	last     [2]ast.Node
	idx      [2]int
}

func (a assignCount) count(specs bool) int {
	if specs {
		return a.n + a.specN
	}
	return a.n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// assignIndex returns, for each variable given a value under root, the
// places that give it one, walking root once: assignments, ++/--, a taken
// address (counted twice: anything may write through it) and var
// declarations apart, each with the last such place and v's index in it
// (nil for ++/-- and &v).
func (r *Result) assignIndex(root ast.Node) map[*types.Var]assignCount {
	if m, ok := r.assignIdx[root]; ok {
		return m
	}
	info := r.pass.TypesInfo
	m := make(map[*types.Var]assignCount)
	set := func(v *types.Var, f func(*assignCount)) {
		if v == nil {
			return
		}
		a := m[v]
		f(&a)
		m[v] = a
	}
	varOfID := func(e ast.Expr, defs bool) *types.Var {
		id, ok := astutil.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		if defs {
			if v, ok := info.Defs[id].(*types.Var); ok {
				return v
			}
		}
		v, _ := info.Uses[id].(*types.Var)
		return v
	}
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				set(varOfID(lhs, true), func(a *assignCount) {
					a.n++
					a.last = [2]ast.Node{n, n}
					a.idx = [2]int{i, i}
				})
			}
		case *ast.IncDecStmt:
			set(varOfID(n.X, false), func(a *assignCount) { a.n++; a.last = [2]ast.Node{} })
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				set(varOfID(n.X, false), func(a *assignCount) { a.n += 2; a.last = [2]ast.Node{} })
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if v, ok := info.Defs[id].(*types.Var); ok {
					set(v, func(a *assignCount) { a.specN++; a.last[1], a.idx[1] = n, i })
				}
			}
		}
		return true
	})
	if r.assignIdx == nil {
		r.assignIdx = make(map[ast.Node]map[*types.Var]assignCount)
	}
	r.assignIdx[root] = m
	return m
}

// sliceLiteral returns the composite literal a slice variable is
// initialised with, when the package never assigns it again.
func (p *pkgCtx) sliceLiteral(e ast.Expr) *ast.CompositeLit {
	var v *types.Var
	switch x := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, _ = p.info.Uses[x].(*types.Var)
	case *ast.SelectorExpr:
		v, _ = p.info.Uses[x.Sel].(*types.Var)
	}
	if v == nil {
		return nil
	}
	if v.IsField() {
		return p.fold.FieldLit(e) // the one literal the package gives the field
	}
	var lit *ast.CompositeLit
	count := 0
	for _, f := range p.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if p.info.Defs[id] == v && i < len(n.Values) {
						count++
						lit, _ = astutil.Unparen(n.Values[i]).(*ast.CompositeLit)
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if id, ok := astutil.Unparen(lhs).(*ast.Ident); ok && (p.info.Defs[id] == v || p.info.Uses[id] == v) {
						count++
						if i < len(n.Rhs) {
							lit, _ = astutil.Unparen(n.Rhs[i]).(*ast.CompositeLit)
						}
					}
				}
			}
			return true
		})
	}
	if count != 1 {
		return nil
	}
	return lit
}

func arith(x constant.Value, op token.Token, y constant.Value, t types.Type) (v constant.Value, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	switch op {
	case token.SHL, token.SHR:
		s, ok := constant.Uint64Val(constant.ToInt(y))
		if !ok || s > 62 {
			return nil, false
		}
		return constant.Shift(constant.ToInt(x), op, uint(s)), true
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
		return nil, false
	}
	if x.Kind() == constant.Float || y.Kind() == constant.Float {
		x, y = constant.ToFloat(x), constant.ToFloat(y)
	}
	if op == token.QUO && t != nil && isIntegral(t) {
		x, y = constant.ToInt(x), constant.ToInt(y)
		if constant.Sign(y) == 0 {
			return nil, false
		}
		return constant.BinaryOp(x, token.QUO_ASSIGN, y), true
	}
	v = constant.BinaryOp(x, op, y)
	if t != nil && isIntegral(t) && v.Kind() == constant.Float {
		f, _ := constant.Float64Val(v)
		v = constant.MakeInt64(int64(f))
	}
	return v, true
}

func compare(x constant.Value, op token.Token, y constant.Value) bool {
	if x.Kind() == constant.Float || y.Kind() == constant.Float {
		x, y = constant.ToFloat(x), constant.ToFloat(y)
	}
	return constant.Compare(x, op, y)
}

func isIntegral(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func toInt64(v constant.Value) (int64, bool) {
	if v.Kind() == constant.Float {
		f, _ := constant.Float64Val(v)
		return int64(f), true
	}
	return constant.Int64Val(constant.ToInt(v))
}
