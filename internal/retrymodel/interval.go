package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// An interval is what a wait with a random part can be: [lo, hi] over the
// draws of every random source it depends on. The model folds exact values
// with eval; a random source (rand.N(d/10), rand.Float64()) makes the
// value an interval, and the least of it is a result: "waits at least
// 1.8s" is what the census needs of a jittered wait.
type interval struct{ lo, hi float64 }

// evalInterval folds e under bind to an interval. Exact parts come from
// eval; random calls from math/rand and math/rand/v2 span their range.
func (p *pkgCtx) evalInterval(e ast.Expr, bind env, depth int) (interval, bool) {
	if e == nil || depth > 8 {
		return interval{}, false
	}
	e = astutil.Unparen(e)
	if c, ok := p.eval(e, bind, 0); ok {
		f, _ := constant.Float64Val(constant.ToFloat(c))
		return interval{f, f}, true
	}
	switch e := e.(type) {
	case *ast.BinaryExpr:
		x, ok1 := p.evalInterval(e.X, bind, depth+1)
		y, ok2 := p.evalInterval(e.Y, bind, depth+1)
		if !ok1 || !ok2 {
			return interval{}, false
		}
		switch e.Op {
		case token.ADD:
			return interval{x.lo + y.lo, x.hi + y.hi}, true
		case token.SUB:
			return interval{x.lo - y.hi, x.hi - y.lo}, true
		case token.MUL:
			c := []float64{x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi}
			return interval{min(c[0], c[1], c[2], c[3]), max(c[0], c[1], c[2], c[3])}, true
		case token.QUO:
			if y.lo <= 0 {
				return interval{}, false
			}
			c := []float64{x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi}
			return interval{min(c[0], c[1], c[2], c[3]), max(c[0], c[1], c[2], c[3])}, true
		}
	case *ast.Ident:
		if v, ok := p.info.Uses[e].(*types.Var); ok {
			if def := p.singleDef(v); def != nil {
				return p.evalInterval(def, bind, depth+1)
			}
		}
	case *ast.CallExpr:
		if tv, ok := p.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return p.evalInterval(e.Args[0], bind, depth+1) // a conversion
		}
		fn := typeutil.StaticCallee(p.info, e)
		if fn == nil || fn.Pkg() == nil {
			return interval{}, false
		}
		switch fn.Pkg().Path() {
		case "math/rand", "math/rand/v2":
			switch fn.Name() {
			case "Float64", "Float32":
				return interval{0, 1}, true
			case "N", "Int63n", "Int31n", "Intn", "Int64N", "IntN", "Int32N", "UintN", "Uint64N", "Uint32N":
				if len(e.Args) != 1 {
					return interval{}, false
				}
				n, ok := p.evalInterval(e.Args[0], bind, depth+1)
				if !ok || n.lo < 0 {
					return interval{}, false
				}
				// [0, n): n bounds it above, which keeps the low end safe.
				return interval{0, n.hi}, true
			}
		}
	}
	return interval{}, false
}

// attemptCtxEnds finds, in a retry's body, a check of the per-attempt
// context that ends the whole retry: attemptCtx, cancel :=
// context.WithTimeout(ctx, d); ...; if attemptCtx.Err() != nil { return err }.
// One attempt that runs out of its own time then stops every retry after
// it, which is rarely meant: the check belongs on the caller's ctx.
func (p *pkgCtx) attemptCtxEnds(body *ast.BlockStmt, loop ast.Node) token.Pos {
	attemptCtx := make(map[*types.Var]bool)
	p.inspectRegion(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || len(as.Lhs) < 1 {
			return true
		}
		if _, _, ok := p.timeoutCall(as.Rhs[0]); !ok {
			return true
		}
		if id, ok := as.Lhs[0].(*ast.Ident); ok {
			if v := p.identVar(id); v != nil {
				attemptCtx[v] = true
			}
		}
		return true
	})
	if len(attemptCtx) == 0 {
		return token.NoPos
	}
	var pos token.Pos
	p.inspectRegion(body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || pos.IsValid() {
			return !pos.IsValid()
		}
		if !p.blockLeaves(ifs.Body, loop) {
			return true
		}
		ast.Inspect(ifs.Cond, func(m ast.Node) bool {
			call, ok := m.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Err" && sel.Sel.Name != "Done") {
				return true
			}
			if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok && attemptCtx[p.identVar(id)] {
				pos = ifs.Cond.Pos()
			}
			return !pos.IsValid()
		})
		return true
	})
	return pos
}
