package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// TimeoutDuration returns d of context.WithTimeout(parent, d) and of
// context.WithDeadline(parent, time.Now().Add(d)) (and their Cause
// forms); nil for any other call.
func TimeoutDuration(info *types.Info, call *ast.CallExpr) ast.Expr {
	d, _ := timeoutArg(info, call)
	return d
}

// timeoutArg reports whether call sets a deadline (WithTimeout,
// WithDeadline and their Cause forms) and returns its duration, nil for a
// deadline not written as time.Now().Add(d).
func timeoutArg(info *types.Info, call *ast.CallExpr) (ast.Expr, bool) {
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || len(call.Args) < 2 {
		return nil, false
	}
	switch fn.Name() {
	case "WithTimeout", "WithTimeoutCause":
		return call.Args[1], true
	case "WithDeadline", "WithDeadlineCause":
		if c, ok := astutil.Unparen(call.Args[1]).(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" && len(c.Args) == 1 {
				if now, ok := astutil.Unparen(sel.X).(*ast.CallExpr); ok && isFunc(typeutil.StaticCallee(info, now), "time", "Now") {
					return c.Args[0], true
				}
			}
		}
		return nil, true
	}
	return nil, false
}
