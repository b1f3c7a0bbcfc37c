package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file reports a backup call that shares the deadline of the call it
// stands in for:
//
//	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
//	defer cancel()
//	resp, err := c.fetch(ctx, c.primary)
//	if err != nil {
//		resp, err = c.fetch(ctx, c.backup) // fails at once when the primary used the 2s
//	}
//
// The backup is there for the primary that does not answer; a primary that
// hangs uses the whole deadline, and the backup then runs on an expired
// context and fails at once with context.DeadlineExceeded: it saves nothing
// in the case it is there for (the fallback loop's mistake, fallback.go,
// written out once). A backup is the same operation (the same function or
// method) given the deadline's context again in the branch of the first
// call's failure, its results assigned to the same error variable. Quiet
// when the branch sets a deadline or makes a context of its own, tests the
// context first, when the first call does nothing with its context, and
// for calls in a loop (the loop rules' question).
func (c *checker) sequentialBackups() {
	c.eachBody(func(fn ast.Node, body *ast.BlockStmt) {
		var sets []ctxSet
		inspectOwn(body, func(n ast.Node) {
			if as, ok := n.(*ast.AssignStmt); ok {
				if s, ok := c.ctxSetOf(as); ok && s.deadline && !s.ref.Sel {
					sets = append(sets, s)
				}
			}
		})
		if len(sets) == 0 {
			return
		}
		var stack []ast.Node
		ast.Inspect(body, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			switch n.(type) {
			case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
				stack = stack[:len(stack)-1]
				return false
			}
			if b, ok := n.(*ast.BlockStmt); ok {
				c.backupsIn(b, sets)
			}
			return true
		})
	})
}

// backupsIn looks at the statements of one block for `..., err := f(ctx,
// ...)` followed by `if err != nil { ..., err = f(ctx, ...) }`.
func (c *checker) backupsIn(b *ast.BlockStmt, sets []ctxSet) {
	for i := 0; i+1 < len(b.List); i++ {
		as, ok := b.List[i].(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			continue
		}
		first, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			continue
		}
		errVar := c.lastErrVar(as)
		ifs, ok := b.List[i+1].(*ast.IfStmt)
		if errVar == nil || !ok || ifs.Init != nil || !c.nonNilTest(ifs.Cond, errVar) {
			continue
		}
		for _, s := range sets {
			if s.pos >= as.Pos() || c.givenCall(first, s) == nil || c.noIO(first) {
				continue
			}
			backup := c.backupCall(ifs.Body, first, errVar, s)
			if backup == nil {
				continue
			}
			d := "deadline"
			if s.dur != "" {
				d = "deadline of " + s.dur
			}
			name := types.ExprString(first.Fun)
			c.pass.Report(analysis.Diagnostic{
				Pos: s.pos,
				Message: fmt.Sprintf("backup call %s at %s runs on the one %s set here, after %s at %s failed: when the first used all of it (the case the backup is for) the backup fails at once with context.DeadlineExceeded; give each call its own timeout (context.WithTimeout around each, under an overall budget if one is wanted)",
					types.ExprString(backup.Fun), c.short(backup.Pos()), d, name, c.short(first.Pos())),
				Related: []analysis.RelatedInformation{
					{Pos: first.Pos(), Message: "the first call"},
					{Pos: backup.Pos(), Message: "the backup on the same deadline"},
				},
			})
			break
		}
	}
}

// lastErrVar is the error variable an assignment's last left side names.
func (c *checker) lastErrVar(as *ast.AssignStmt) *types.Var {
	id, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := c.info.ObjectOf(id).(*types.Var)
	if v == nil || !types.Identical(v.Type(), types.Universe.Lookup("error").Type()) {
		return nil
	}
	return v
}

// nonNilTest matches `v != nil`.
func (c *checker) nonNilTest(cond ast.Expr, v *types.Var) bool {
	b, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	id, ok := astutil.Unparen(b.X).(*ast.Ident)
	tv, isNilOK := c.info.Types[astutil.Unparen(b.Y)]
	return ok && c.info.Uses[id] == v && isNilOK && tv.IsNil()
}

// backupCall finds, as a statement of the failure branch, `..., err =
// g(...)` where g is first's function, given s's context, with no
// deadline set and the context not tested before it. Nil otherwise.
func (c *checker) backupCall(branch *ast.BlockStmt, first *ast.CallExpr, errVar *types.Var, s ctxSet) *ast.CallExpr {
	fn := typeutil.StaticCallee(c.info, first)
	if fn == nil {
		return nil
	}
	for _, st := range branch.List {
		if c.setsDeadline(st) || s.ref.V != nil && c.testsCtx(st, s.ref.V) {
			return nil // its own timeout, or the expiry is looked at
		}
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || c.lastErrVar(as) != errVar {
			continue
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || call == first {
			continue
		}
		if g := typeutil.StaticCallee(c.info, call); g == nil || g.Origin() != fn.Origin() {
			continue
		}
		if c.givenCall(call, s) != nil {
			return call
		}
	}
	return nil
}
