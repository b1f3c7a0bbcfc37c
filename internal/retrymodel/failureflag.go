package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// A failure flag is a bool the loop body declares afresh in each turn,
// false at first, and sets only where the operation has failed: under a
// test of its error or of its response's status, or to a value that holds
// only on failure (c.retryable(err)).
//
//	for i := 0; i <= c.maxRetries; i++ {
//		var shouldRetry bool
//		res, err = c.transport.RoundTrip(req)
//		if err != nil && isNetErr(err) { shouldRetry = true }
//		for _, code := range c.retryOnStatus { if res.StatusCode == code { shouldRetry = true } }
//		if !shouldRetry { break }
//		time.Sleep(c.backoff(i))
//	}
//
// The flag is then a classifier the body wrote out: `!flag` holds on
// success and on failures not worth retrying (the branch that leaves),
// `flag` only on a failure.
func (p *pkgCtx) failureFlag(v *types.Var, s *loopShape) bool {
	if v == nil || !isBool(v.Type()) || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	if s.flags == nil {
		s.flags = make(map[*types.Var]bool)
	}
	if is, done := s.flags[v]; done {
		return is
	}
	s.flags[v] = false // a condition that tests the flag itself proves nothing
	body := p.turnBody(v)
	if body == nil {
		return false
	}
	set, ok := false, true
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if p.info.Defs[id] == v && i < len(n.Values) && !p.isConstBool(n.Values[i], false) {
					ok = false
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				id, isID := lhs.(*ast.Ident)
				if !isID || p.identVar(id) != v {
					continue
				}
				if len(n.Rhs) != len(n.Lhs) {
					ok = false
					continue
				}
				rhs := n.Rhs[i]
				switch {
				case p.isConstBool(rhs, false):
				case p.isConstBool(rhs, true):
					if !p.onFailure(stack, s) {
						ok = false
					}
					set = true
				case p.condIs(rhs, s, false) == failurePath:
					set = true
				default:
					ok = false
				}
			}
		case *ast.UnaryExpr:
			if id, isID := n.X.(*ast.Ident); isID && n.Op == token.AND && p.identVar(id) == v {
				ok = false // written through a pointer
			}
		}
		return ok
	})
	s.flags[v] = ok && set
	return s.flags[v]
}

// turnBody returns the body of the innermost loop that declares v, or nil
// when v outlives one turn.
func (p *pkgCtx) turnBody(v *types.Var) *ast.BlockStmt {
	var body *ast.BlockStmt
	ast.Inspect(p.funcScope(&ast.Ident{NamePos: v.Pos()}), func(n ast.Node) bool {
		var b *ast.BlockStmt
		switch n := n.(type) {
		case *ast.ForStmt:
			b = n.Body
		case *ast.RangeStmt:
			b = n.Body
		case *ast.FuncLit:
			if n.Pos() <= v.Pos() && v.Pos() < n.End() {
				body = nil // declared in a closure inside the loop
			}
		}
		if b != nil && b.Pos() <= v.Pos() && v.Pos() < b.End() {
			body = b
		}
		return n == nil || n.Pos() <= v.Pos() && v.Pos() < n.End()
	})
	return body
}

// onFailure reports whether the innermost node of stack runs only where
// the operation failed: inside the then branch of an if whose condition
// holds only on failure or tests the response's status, or in the else
// branch of one that holds only on success.
func (p *pkgCtx) onFailure(stack []ast.Node, s *loopShape) bool {
	at := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		ifs, isIf := stack[i].(*ast.IfStmt)
		if !isIf {
			continue
		}
		c := p.condIs(ifs.Cond, s, false)
		inThen := ifs.Body.Pos() <= at.Pos() && at.End() <= ifs.Body.End()
		if inThen && (c == failurePath || p.statusTest(ifs.Cond, s)) {
			return true
		}
		if !inThen && ifs.Else != nil && ifs.Else.Pos() <= at.Pos() && c == successPath {
			return true
		}
	}
	return false
}

func (p *pkgCtx) isConstBool(e ast.Expr, want bool) bool {
	tv, ok := p.info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value) == want
}
