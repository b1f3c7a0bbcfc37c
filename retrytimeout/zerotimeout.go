package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// zeroTimeouts reports a context.WithTimeout whose duration is a config
// field the package itself treats as "no limit" when it is zero:
//
//	if opts.Timeout > 0 { hc.Timeout = opts.Timeout }            // client.go
//	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout) // do.go
//
// With Timeout 0 the second context is done before the first attempt:
// every call on it fails at once, and a retry around it runs its attempts
// back to back. Reported when some statement of the package uses the
// field only under a test that it is positive (> 0, != 0), no statement
// of the package replaces a zero value with a default, and the call itself
// is not under such a test.
func (c *checker) zeroTimeouts() {
	info := c.pass.TypesInfo
	var guarded, defaulted map[*types.Var]token.Pos
	c.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		call := n.(*ast.CallExpr)
		fn := typeutil.StaticCallee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || fn.Name() != "WithTimeout" || len(call.Args) != 2 {
			return true
		}
		fld := c.fieldRead(call.Args[1])
		if fld == nil {
			return true
		}
		if guarded == nil {
			guarded, defaulted = c.zeroMeaning()
		}
		at, ok := guarded[fld]
		if !ok || defaulted[fld].IsValid() || c.underPositiveTest(stack, fld) {
			return true
		}
		name := types.ExprString(call.Args[1])
		c.report(call.Pos(), "zero-timeout", fmt.Sprintf("context.WithTimeout with %s, which the package treats as no limit when it is 0 (%s): with %s 0 this context is done before the first call, every call on it fails at once and a retry on it runs back to back; use the parent context when %s is 0",
			name, c.short(at), fld.Name(), fld.Name()), nil)
		return true
	})
}

// fieldRead returns the duration field e reads (opts.Timeout,
// c.cfg.Timeout), or nil.
func (c *checker) fieldRead(e ast.Expr) *types.Var {
	v, _ := c.res.Folder.FieldOf(e)
	if v == nil || !isDurationType(v.Type()) {
		return nil
	}
	return v
}

// zeroMeaning indexes the duration fields the package uses only when
// positive (if f > 0 { x = f }: zero means no limit), with where, and
// those it defaults when zero (if f == 0 { f = 30 * time.Second }).
func (c *checker) zeroMeaning() (guarded, defaulted map[*types.Var]token.Pos) {
	guarded, defaulted = map[*types.Var]token.Pos{}, map[*types.Var]token.Pos{}
	c.insp.Preorder([]ast.Node{(*ast.IfStmt)(nil)}, func(n ast.Node) {
		ifs := n.(*ast.IfStmt)
		fld, positive, ok := c.zeroTest(ifs.Cond)
		if !ok {
			return
		}
		if positive {
			// The field used inside: handed on or assigned.
			if c.usesField(ifs.Body, fld) {
				if _, seen := guarded[fld]; !seen {
					guarded[fld] = ifs.Cond.Pos()
				}
			}
			return
		}
		// if f == 0 { f = d }: a default replaces zero.
		for _, st := range ifs.Body.List {
			if as, ok := st.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && c.fieldRead(as.Lhs[0]) == fld {
				defaulted[fld] = as.Pos()
			}
		}
	})
	return guarded, defaulted
}

// zeroTest reads f > 0, f != 0, 0 < f (positive) and f == 0, f <= 0,
// f < 1 (not positive) for a duration field f.
func (c *checker) zeroTest(cond ast.Expr) (*types.Var, bool, bool) {
	b, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return nil, false, false
	}
	x, y, op := b.X, b.Y, b.Op
	if _, isConst := constInt(c.pass.TypesInfo, x); isConst {
		x, y, op = y, x, retrymodel.Flip(op)
	}
	fld := c.fieldRead(x)
	v, ok := constInt(c.pass.TypesInfo, y)
	if fld == nil || !ok || v != 0 {
		return nil, false, false
	}
	switch op {
	case token.GTR, token.NEQ:
		return fld, true, true
	case token.EQL, token.LEQ:
		return fld, false, true
	}
	return nil, false, false
}

func (c *checker) usesField(n ast.Node, fld *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if sel, ok := m.(*ast.SelectorExpr); ok && c.fieldRead(sel) == fld {
			found = true
		}
		return !found
	})
	return found
}

// underPositiveTest reports a call inside `if f > 0 {` (or != 0) of the
// same field, or after an `if f <= 0 { return }` in its function.
func (c *checker) underPositiveTest(stack []ast.Node, fld *types.Var) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.IfStmt:
			if f, positive, ok := c.zeroTest(n.Cond); ok && f == fld && positive && i+1 < len(stack) && stack[i+1] == n.Body {
				return true
			}
		case *ast.BlockStmt:
			for _, st := range n.List {
				if st.Pos() >= stack[len(stack)-1].Pos() {
					break
				}
				ifs, ok := st.(*ast.IfStmt)
				if !ok {
					continue
				}
				if f, positive, ok := c.zeroTest(ifs.Cond); ok && f == fld && !positive && len(ifs.Body.List) > 0 && terminates(ifs.Body.List[len(ifs.Body.List)-1]) {
					return true
				}
			}
		case *ast.FuncDecl:
			return false
		}
		// Through a function literal: a closure built under the test
		// (if t > 0 { op = func(ctx) { ctx, cancel := WithTimeout(ctx, t) } })
		// runs only where the test held.
	}
	return false
}

func terminates(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return st.Tok != token.FALLTHROUGH
	}
	return false
}
