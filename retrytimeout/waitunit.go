package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// waitUnits reports a bare integer given to a retry library where it takes
// a time.Duration (category wait-unit): WithBackoff(2, 2*time.Second)
// waits 2 nanoseconds, not the 2 seconds (or milliseconds) the number
// meant, so the retry's attempts go out back to back. An untyped constant
// converts to a Duration in nanoseconds without a word from the compiler;
// a literal under a microsecond is never a wait anyone means. The fix
// needs the unit, which only the author knows, so none is offered.
func (c *checker) waitUnits() {
	c.insp.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		fn, _ := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil || !retrymodel.RetryLibrary(fn.Pkg().Path()) || c.inTestFile(call.Pos()) {
			return
		}
		sig, ok := fn.Type().(*types.Signature)
		if !ok {
			return
		}
		for i, a := range call.Args {
			if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
				break
			}
			if !isDurationType(sig.Params().At(i).Type()) {
				continue
			}
			lit, ok := astutil.Unparen(a).(*ast.BasicLit)
			if !ok || lit.Kind != token.INT {
				continue
			}
			v, ok := constant.Int64Val(constant.MakeFromLiteral(lit.Value, token.INT, 0))
			if !ok || v <= 0 || v >= 1000 {
				continue
			}
			what, effect := "wait", "the retry does not wait at all between attempts"
			if strings.Contains(strings.ToLower(sig.Params().At(i).Name()), "jitter") {
				what, effect = "jitter", "the waits get no random spread"
			}
			c.report(lit.Pos(), "wait-unit", fmt.Sprintf("%s of %dns: %s takes a time.Duration and is given %s, an untyped constant, which is %d nanoseconds: %s; write the unit meant (%s * time.Second, or time.Millisecond)",
				what, v, calleeLabel(fn), lit.Value, v, effect, lit.Value), nil)
		}
	})
}

// calleeLabel names a library function or method for a message.
func calleeLabel(fn *types.Func) string {
	if r := retrymodel.RecvName(fn); r != "" {
		return r + "." + fn.Name()
	}
	return fn.Pkg().Name() + "." + fn.Name()
}
