package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// selectBreaks reports the wait of a loop that means to stop on a cancel
// and does not:
//
//	for i := 0; ; i++ {
//		resp, err = c.Do(req)
//		...
//		select {
//		case <-ctx.Done():
//			break // leaves the select, not the loop
//		case <-time.After(wait):
//		}
//	}
//
// A break in a select's case (unlabelled, or to a label on the select)
// ends the select only, so once ctx is done every later turn finds the
// case ready at once and the loop runs its remaining attempts with no
// wait. Only a wait (the select has a timer case) in a loop that makes a
// fallible call, where nothing else in the loop reads that context's
// Done or Err and nothing after the select leaves the loop, is reported.
func (c *checker) selectBreaks() {
	info := c.pass.TypesInfo
	c.insp.WithStack([]ast.Node{(*ast.SelectStmt)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		sel := n.(*ast.SelectStmt)
		loop, label, after := c.enclosingLoop(sel, stack)
		if loop == nil {
			return true
		}
		timer := false
		for _, cl := range sel.Body.List {
			if cc, ok := cl.(*ast.CommClause); ok && cc.Comm != nil && c.isTimerRecv(cc.Comm) {
				timer = true
			}
		}
		if !timer {
			return true
		}
		for _, cl := range sel.Body.List {
			cc, ok := cl.(*ast.CommClause)
			if !ok || cc.Comm == nil || len(cc.Body) == 0 {
				continue
			}
			ctx := doneRecv(info, cc.Comm)
			if ctx == nil {
				continue
			}
			br, ok := cc.Body[len(cc.Body)-1].(*ast.BranchStmt)
			if !ok || br.Tok != token.BREAK || br.Label != nil && info.Uses[br.Label] != label {
				continue
			}
			if label == nil && br.Label != nil {
				continue
			}
			if c.readsCancel(loop, sel, ctx) || !c.makesCall(loop, sel) {
				continue
			}
			if terminatesAfter(after) || c.flagged(cc.Body, after) {
				continue
			}
			what := "loop"
			if l := c.res.LayerOf(loop); l != nil {
				what = describe(l)
			} else if l := c.res.LayerOf(stackParent(stack, loop)); l != nil {
				what = describe(l) // a goto layer at the loop's label
			}
			name := types.ExprString(ctx)
			msg := fmt.Sprintf("break leaves only the select, not the %s: once %s is done, the <-%s.Done() case is ready at once on every later turn, so the %s goes round again without waiting and runs its remaining attempts back to back; return there (or break to a label on the loop)",
				what, name, name, what)
			var fixes []analysis.SuggestedFix
			if ll, ok := stackParent(stack, loop).(*ast.LabeledStmt); ok {
				fixes = []analysis.SuggestedFix{{
					Message:   "Break out of the loop " + ll.Label.Name,
					TextEdits: []analysis.TextEdit{{Pos: br.Pos(), End: br.End(), NewText: []byte("break " + ll.Label.Name)}},
				}}
			}
			c.report(br.Pos(), "select-break", msg, fixes)
		}
		return true
	})
}

// enclosingLoop returns the for or range statement whose body holds sel
// (not across a function literal), the label of sel if it has one, and
// the statements of the loop body that follow sel's statement.
func (c *checker) enclosingLoop(sel *ast.SelectStmt, stack []ast.Node) (loop ast.Stmt, label *types.Label, after []ast.Stmt) {
	var child ast.Node = sel
	if len(stack) >= 2 {
		if ls, ok := stack[len(stack)-2].(*ast.LabeledStmt); ok && ls.Stmt == sel {
			label, _ = c.pass.TypesInfo.Defs[ls.Label].(*types.Label)
		}
	}
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return nil, nil, nil
		case *ast.BlockStmt:
			if i > 0 {
				var body *ast.BlockStmt
				switch l := stack[i-1].(type) {
				case *ast.ForStmt:
					body, loop = l.Body, l
				case *ast.RangeStmt:
					body, loop = l.Body, l
				}
				if body == n {
					for j, st := range n.List {
						if st == child {
							after = n.List[j+1:]
						}
					}
					return loop, label, after
				}
				loop = nil
			}
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			return nil, nil, nil // a break there is another statement's
		}
		child = stack[i]
	}
	return nil, nil, nil
}

// doneRecv returns X of a `<-X.Done()` receive of a context (or a type
// with the same Done method), or nil.
func doneRecv(info *types.Info, comm ast.Stmt) ast.Expr {
	u, ok := astutil.Unparen(retrymodel.CommRecv(comm)).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return nil
	}
	call, ok := astutil.Unparen(u.X).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	fun, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || fun.Sel.Name != "Done" || !retrymodel.IsContext(info.TypeOf(fun.X)) {
		return nil
	}
	return fun.X
}

// readsCancel reports whether the loop, outside sel, looks at ctx's
// cancellation: its condition or a statement calls ctx.Err, ctx.Done or
// ctx.Deadline, so a cancel the select let through is seen there.
func (c *checker) readsCancel(loop ast.Stmt, sel *ast.SelectStmt, ctx ast.Expr) bool {
	name := types.ExprString(ctx)
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if found || n == sel {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if fun, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && types.ExprString(fun.X) == name {
			switch fun.Sel.Name {
			case "Err", "Done", "Deadline":
				found = true
			}
		}
		return true
	})
	return found
}

// makesCall reports whether the loop, outside sel, calls a function that
// returns an error: the operation the wait spaces out.
func (c *checker) makesCall(loop ast.Stmt, sel *ast.SelectStmt) bool {
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if found || n == sel {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sig, ok := c.pass.TypesInfo.TypeOf(call.Fun).(*types.Signature); ok && sig.Results().Len() > 0 {
			last := sig.Results().At(sig.Results().Len() - 1).Type()
			if types.Identical(last, types.Universe.Lookup("error").Type()) {
				found = true
			}
		}
		return true
	})
	return found
}

// terminatesAfter reports a statement after the select that always
// leaves the loop.
func terminatesAfter(after []ast.Stmt) bool {
	for _, st := range after {
		switch st := st.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			if st.Tok == token.BREAK || st.Tok == token.GOTO {
				return true
			}
		}
	}
	return false
}

// flagged reports a case that sets a variable the statements after the
// select read (stop = true; break ... if stop { break }): the loop decides
// there.
func (c *checker) flagged(body []ast.Stmt, after []ast.Stmt) bool {
	set := map[types.Object]bool{}
	for _, st := range body {
		if as, ok := st.(*ast.AssignStmt); ok {
			for _, lhs := range as.Lhs {
				if id, ok := astutil.Unparen(lhs).(*ast.Ident); ok {
					if obj := c.pass.TypesInfo.ObjectOf(id); obj != nil {
						set[obj] = true
					}
				}
			}
		}
	}
	if len(set) == 0 {
		return false
	}
	found := false
	for _, st := range after {
		ast.Inspect(st, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && set[c.pass.TypesInfo.Uses[id]] {
				found = true
			}
			return !found
		})
	}
	return found
}

// stackParent returns the node above n on the stack, or nil.
func stackParent(stack []ast.Node, n ast.Node) ast.Node {
	for i := len(stack) - 1; i > 0; i-- {
		if stack[i] == n {
			return stack[i-1]
		}
	}
	return nil
}
