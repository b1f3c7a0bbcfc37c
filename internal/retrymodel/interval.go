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
