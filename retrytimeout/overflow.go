package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"math/big"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// waitOverflows reports an exponential wait with no bound on its
// exponent:
//
//	func(attempt uint) time.Duration { return scalar * time.Duration(1<<attempt) }
//
// A time.Duration holds at most 2^63-1 ns (292 years): from some attempt
// on the product wraps to a negative or zero wait, and a retry that goes
// on that long (a retry-forever library, a watch that reconnects) stops
// waiting at all. A cap applied to the result afterwards (if d > max)
// does not help: the wrapped value is below it.
//
// Reported where the exponent is an integer parameter of the function
// that computes the wait, the function is one callers outside the
// package choose the attempts for (exported, or a closure an exported
// function returns), and nothing in it compares or clamps the exponent or
// tests the result for a value at or below zero.
func (c *checker) waitOverflows() {
	info := c.pass.TypesInfo
	c.insp.WithStack([]ast.Node{(*ast.BinaryExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		e := n.(*ast.BinaryExpr)
		if e.Op != token.MUL && e.Op != token.SHL || !isDurationType(info.TypeOf(e)) {
			return true
		}
		scale, exp, offset, ok := c.pow2Product(e)
		if !ok {
			return true
		}
		id, ok := astutil.Unparen(exp).(*ast.Ident)
		if !ok {
			return true
		}
		param, ok := info.Uses[id].(*types.Var)
		if !ok {
			return true
		}
		fn, outer := enclosingFuncs(stack)
		if fn == nil || !isParamOf(info, param, fn) || !c.choosesAttempts(fn, outer) {
			return true
		}
		if c.bounds(fn, param) {
			return true
		}
		c.report(e.Pos(), "wait-overflow", overflowMessage(c, scale, offset), nil)
		return true
	})
}

// pow2Product splits a duration expression into scale × 2^(exp-offset):
// scale << exp, scale * T(1 << exp), scale * T((1 << exp) >> k),
// scale * T(math.Pow(2, float64(exp))), or a helper of the package whose
// single return is one of these, in either operand order.
func (c *checker) pow2Product(e *ast.BinaryExpr) (scale, exp ast.Expr, offset int, ok bool) {
	if e.Op == token.SHL {
		return e.X, e.Y, 0, true
	}
	for _, pair := range [][2]ast.Expr{{e.X, e.Y}, {e.Y, e.X}} {
		if exp, off, ok := c.pow2(pair[1], 0); ok {
			return pair[0], exp, off, true
		}
	}
	return nil, nil, 0, false
}

// pow2 reads 2^(exp-offset) in x: 1 << exp, (1 << exp) >> k, math.Pow(2,
// exp), through conversions and a one-return helper of the package.
func (c *checker) pow2(x ast.Expr, depth int) (exp ast.Expr, offset int, ok bool) {
	info := c.pass.TypesInfo
	if depth > 3 {
		return nil, 0, false
	}
	x = astutil.Unparen(x)
	switch x := x.(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.SHL:
			if v, ok := constInt(info, x.X); ok && v == 1 {
				return x.Y, 0, true
			}
		case token.SHR:
			k, ok := constInt(info, x.Y)
			if !ok {
				return nil, 0, false
			}
			if exp, off, ok := c.pow2(x.X, depth+1); ok {
				return exp, off + int(k), true
			}
		}
	case *ast.CallExpr:
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return c.pow2(x.Args[0], depth+1)
		}
		fn := typeutil.StaticCallee(info, x)
		if fn == nil {
			return nil, 0, false
		}
		if fn.Pkg() != nil && fn.Pkg().Path() == "math" && fn.Name() == "Pow" && len(x.Args) == 2 {
			if v, ok := constInt(info, x.Args[0]); ok && v == 2 {
				return stripConv(info, x.Args[1]), 0, true
			}
			return nil, 0, false
		}
		// exponentBase2(attempt): a helper whose one statement returns
		// 2^(param-k); the argument takes the parameter's place.
		d := c.res.Decl(fn)
		if d == nil || d.Body == nil || len(d.Body.List) != 1 || len(x.Args) != 1 {
			return nil, 0, false
		}
		ret, ok := d.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return nil, 0, false
		}
		exp, off, ok := c.pow2(ret.Results[0], depth+1)
		if !ok {
			return nil, 0, false
		}
		sig := fn.Type().(*types.Signature)
		if id, ok := astutil.Unparen(exp).(*ast.Ident); ok && sig.Params().Len() == 1 && info.Uses[id] == sig.Params().At(0) {
			return stripConv(info, x.Args[0]), off, true
		}
	}
	return nil, 0, false
}

// stripConv removes conversions: float64(attempt) is attempt.
func stripConv(info *types.Info, x ast.Expr) ast.Expr {
	for {
		call, ok := astutil.Unparen(x).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return astutil.Unparen(x)
		}
		if tv, ok := info.Types[call.Fun]; !ok || !tv.IsType() {
			return call
		}
		x = call.Args[0]
	}
}

func constInt(info *types.Info, x ast.Expr) (int64, bool) {
	tv, ok := info.Types[x]
	if !ok || tv.Value == nil {
		return 0, false
	}
	return constant.Int64Val(constant.ToInt(tv.Value))
}

// enclosingFuncs returns the innermost function on the stack (a
// *ast.FuncDecl or *ast.FuncLit) and the declaration around it.
func enclosingFuncs(stack []ast.Node) (inner, outer ast.Node) {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncLit:
			if inner == nil {
				inner = f
			}
		case *ast.FuncDecl:
			if inner == nil {
				inner = f
			}
			return inner, f
		}
	}
	return inner, nil
}

func isParamOf(info *types.Info, v *types.Var, fn ast.Node) bool {
	var ft *ast.FuncType
	switch f := fn.(type) {
	case *ast.FuncDecl:
		ft = f.Type
	case *ast.FuncLit:
		ft = f.Type
	}
	if ft == nil || ft.Params == nil {
		return false
	}
	for _, fld := range ft.Params.List {
		for _, name := range fld.Names {
			if info.Defs[name] == v {
				return isIntegral(v.Type())
			}
		}
	}
	return false
}

func isIntegral(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// choosesAttempts reports a function whose attempt numbers come from
// outside the package: an exported function or method, or a closure an
// exported function builds (a backoff constructor's BackoffFunc).
func (c *checker) choosesAttempts(fn, outer ast.Node) bool {
	decl, ok := outer.(*ast.FuncDecl)
	if !ok || !decl.Name.IsExported() {
		return false
	}
	if decl.Recv != nil {
		// A method of an unexported type is reached only through the
		// package's own code.
		t := c.pass.TypesInfo.TypeOf(decl.Recv.List[0].Type)
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok && !n.Obj().Exported() {
			return false
		}
	}
	return !strings.HasSuffix(c.pass.Fset.Position(decl.Pos()).Filename, "_test.go")
}

// bounds reports whether fn compares or clamps the exponent (attempt >
// 30, min(attempt, 30)) or tests a duration for a value at or below zero
// (the sign a wrapped product gives), either of which stops the overflow.
func (c *checker) bounds(fn ast.Node, exp *types.Var) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				if c.mentionsVar(n, exp) {
					found = true
				}
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if v, ok := constInt(info, pair[1]); ok && v <= 0 && isDurationType(info.TypeOf(pair[0])) {
						found = true // d <= 0, d < 0
					}
				}
			}
		case *ast.CallExpr:
			if id, ok := astutil.Unparen(n.Fun).(*ast.Ident); ok && (id.Name == "min" || id.Name == "max") {
				if _, ok := info.Uses[id].(*types.Builtin); ok && c.mentionsVar(n, exp) {
					found = true
				}
			}
		}
		return true
	})
	return found
}

func (c *checker) mentionsVar(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && c.pass.TypesInfo.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// overflowMessage says from which attempt the wait wraps: for the scale
// the code gives, or, when the scale is the caller's, for 100ms and 1s.
func overflowMessage(c *checker, scale ast.Expr, offset int) string {
	const advice = "; cap the exponent (or the wait) before the multiplication"
	if d, ok := c.res.Folder.Duration(scale); ok && d > 0 {
		return fmt.Sprintf("wait overflows: %s × 2^attempt has no bound on the attempt: from attempt %d the product passes the largest time.Duration (about 292 years) and wraps to a negative or zero wait, so a retry that goes on that long stops waiting%s",
			fmtDur(d), firstOverflow(d, offset), advice)
	}
	return fmt.Sprintf("wait overflows: %s × 2^attempt has no bound on the attempt: from attempt %d for a 100ms scale (%d for 1s) the product passes the largest time.Duration (about 292 years) and wraps to a negative or zero wait, so a retry that goes on that long stops waiting%s",
		types.ExprString(scale), firstOverflow(100*time.Millisecond, offset), firstOverflow(time.Second, offset), advice)
}

// firstOverflow returns the least attempt a for which d × 2^(a-offset)
// exceeds the largest int64.
func firstOverflow(d time.Duration, offset int) int {
	limit := new(big.Int).SetInt64(math.MaxInt64)
	for a := 0; a < 200; a++ {
		e := a - offset
		if e < 0 {
			continue
		}
		p := new(big.Int).Lsh(big.NewInt(int64(d)), uint(e))
		if p.Cmp(limit) > 0 {
			return a
		}
	}
	return 200
}
