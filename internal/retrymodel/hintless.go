package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// The schedule a retry keeps when the server sends no Retry-After.
//
// A wait that a Retry-After read replaces (`wait := backoff(i); if ra :=
// resp.Header.Get("Retry-After"); ra != "" { wait = parse(ra) }`) has no
// single value, so eval gives up on it; but the clients that got no hint,
// which are the ones a missing jitter synchronises, all wait what the code
// computes outside the branches that read the header. hintlessWaits folds
// the schedule on that path; Policy.HintlessWaits holds it.

// hintState is set on the pkgCtx while the hintless schedule is folded.
type hintState struct {
	used bool // a local was folded on the path without the hint
}

// hintlessWaits fills pol.HintlessWaits when the schedule could not be
// folded because a Retry-After read replaces the wait.
func (p *pkgCtx) hintlessWaits(pol *Policy, w *waitSite, body *ast.BlockStmt, ctr *counter, waitFirst bool) {
	if len(pol.Waits) > 0 || w == nil || w.dur == nil {
		return
	}
	cp := *pol
	cp.Waits, cp.WaitsKnown = nil, false
	p.hint = &hintState{}
	defer func() { p.hint = nil }()
	p.schedule(&cp, w, body, ctr, waitFirst)
	if p.hint.used && len(cp.Waits) > 0 && !cp.WaitsAtLeast {
		pol.HintlessWaits = cp.Waits
	}
}

// hintlessDef returns the value a local has, at use, on the path where no
// Retry-After was read: the last assignment before use among those outside
// a branch that reads the header, when all of them are statements of the
// block that declares the local (straight-line code). Nil otherwise.
func (p *pkgCtx) hintlessDef(v *types.Var, use token.Pos) ast.Expr {
	if p.hint == nil || v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	scope := p.funcScope(&ast.Ident{NamePos: v.Pos()})
	var home *ast.BlockStmt // the block whose statement declares v
	var last ast.Expr
	var lastPos token.Pos
	hinted := false
	ok := true
	var stack []ast.Node
	ast.Inspect(scope, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if !ok {
			return false
		}
		var rhs ast.Expr
		mine := false
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if id, isID := astutil.Unparen(lhs).(*ast.Ident); isID && p.identVar(id) == v {
					mine = true
					if len(n.Rhs) == len(n.Lhs) && (n.Tok == token.DEFINE || n.Tok == token.ASSIGN) {
						rhs = n.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if p.info.Defs[id] == v {
					mine = true
					if len(n.Values) == len(n.Names) {
						rhs = n.Values[i]
					}
				}
			}
		case *ast.IncDecStmt:
			if id, isID := astutil.Unparen(n.X).(*ast.Ident); isID && p.identVar(id) == v {
				mine = true
			}
		case *ast.UnaryExpr:
			if id, isID := astutil.Unparen(n.X).(*ast.Ident); isID && n.Op == token.AND && p.identVar(id) == v {
				mine = true
			}
		}
		if !mine {
			return true
		}
		if p.underHint(stack) {
			hinted = true
			return true
		}
		// Outside the hint's branches: a statement of v's own block.
		blk, stmt := enclosingBlock(stack)
		if blk == nil || rhs == nil {
			ok = false
			return false
		}
		if home == nil {
			home = blk
		}
		if blk != home {
			ok = false
			return false
		}
		if stmt.Pos() < use && stmt.Pos() >= lastPos {
			last, lastPos = rhs, stmt.Pos()
		}
		return true
	})
	if !ok || !hinted || last == nil {
		return nil
	}
	return last
}

// enclosingBlock returns the block whose direct statement holds the node
// on top of stack (its assignment or declaration), and that statement.
func enclosingBlock(stack []ast.Node) (*ast.BlockStmt, ast.Stmt) {
	for i := len(stack) - 1; i > 0; i-- {
		if st, isStmt := stack[i].(ast.Stmt); isStmt {
			b, isBlock := stack[i-1].(*ast.BlockStmt)
			if !isBlock {
				return nil, nil
			}
			return b, st
		}
	}
	return nil, nil
}

// underHint reports whether the node on top of stack sits in a branch that
// is taken when a Retry-After value was read: the body of an if whose
// condition or init reads the header, directly or through a local.
func (p *pkgCtx) underHint(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		ifs, ok := stack[i].(*ast.IfStmt)
		if !ok || !within(stack[len(stack)-1], ifs.Body) {
			continue
		}
		if p.readsHint(ifs.Cond, 0) || (ifs.Init != nil && p.readsHint(ifs.Init, 0)) {
			return true
		}
	}
	return false
}

// readsHint reports whether n reads Retry-After, or uses a local whose
// value does.
func (p *pkgCtx) readsHint(n ast.Node, depth int) bool {
	if n == nil || depth > 3 {
		return false
	}
	if p.retryAfterPos(n).IsValid() {
		return true
	}
	return contains(n, func(m ast.Node) bool {
		id, ok := m.(*ast.Ident)
		if !ok {
			return false
		}
		v, ok := p.info.Uses[id].(*types.Var)
		if !ok {
			return false
		}
		if def := p.singleDef(v); def != nil && p.readsHint(def, depth+1) {
			return true
		}
		call, _ := p.tupleDef(v)
		return call != nil && p.readsHint(call, depth+1)
	})
}
