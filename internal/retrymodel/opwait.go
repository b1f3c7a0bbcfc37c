package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// An operation may decide the retry and wait for it itself, and hand the
// decision back as a bool result (newrelic-client-go's innerDo):
//
//	for i := 0; ; i++ {
//		resp, body, shouldRetry, err = c.innerDo(req, errorValue, i)
//		if shouldRetry {
//			continue
//		}
//		...
//	}
//
//	func (c *Client) innerDo(...) (*http.Response, []byte, bool, error) {
//		...
//		time.Sleep(wait)
//		return resp, body, true, nil
//	}
//
// The flag is true only right after a wait the operation made: it says
// "failed, waited, go again". The loop that goes round on it is a retry
// whose wait is the operation's. A bool result set any other way (a done
// flag of a poll, a found flag) is no such flag.

// flagSummary: result index of the retry flag and the wait before it.
type flagSummary struct {
	index int
	wait  waitSite
	ok    bool
}

// retryFlag returns fn's retry flag: a bool result that every return gives
// as the constant true only immediately after a wait, and as false (or
// a constant false) otherwise; fn also has an error result.
func (p *pkgCtx) retryFlag(fn *types.Func) flagSummary {
	if fn == nil {
		return flagSummary{}
	}
	fn = fn.Origin()
	if p.flags == nil {
		p.flags = make(map[*types.Func]flagSummary)
	}
	if f, ok := p.flags[fn]; ok {
		return f
	}
	p.flags[fn] = flagSummary{}
	decl := p.res.decls[fn]
	sig, _ := fn.Type().(*types.Signature)
	if decl == nil || decl.Body == nil || sig == nil || sig.Results().Len() < 2 || !isErrorType(sig.Results().At(sig.Results().Len()-1).Type()) {
		return flagSummary{}
	}
	for k := 0; k < sig.Results().Len()-1; k++ {
		if !isBool(sig.Results().At(k).Type()) {
			continue
		}
		if f := p.flagAt(decl.Body, k, sig.Results().Len()); f.ok {
			p.flags[fn] = f
			return f
		}
	}
	return flagSummary{}
}

// flagAt checks result k of every return in body.
func (p *pkgCtx) flagAt(body *ast.BlockStmt, k, n int) flagSummary {
	var out flagSummary
	bad := false
	var visit func(stmts []ast.Stmt)
	visit = func(stmts []ast.Stmt) {
		for i, st := range stmts {
			ast.Inspect(st, func(m ast.Node) bool {
				if bad {
					return false
				}
				switch m := m.(type) {
				case *ast.FuncLit:
					return false
				case *ast.BlockStmt:
					visit(m.List)
					return false
				case *ast.CaseClause:
					visit(m.Body)
					return false
				case *ast.CommClause:
					visit(m.Body)
					return false
				case *ast.ReturnStmt:
					if len(m.Results) != n {
						bad = true
						return false
					}
					tv, ok := p.info.Types[m.Results[k]]
					if !ok || tv.Value == nil || tv.Value.Kind() != constant.Bool {
						bad = true // a flag computed otherwise: not this shape
						return false
					}
					if !constant.BoolVal(tv.Value) {
						return false
					}
					if i == 0 || m != st {
						bad = true
						return false
					}
					ws := p.waitsIn(stmts[i-1])
					if len(ws) != 1 {
						bad = true
						return false
					}
					out.wait, out.index, out.ok = ws[0], k, true
				}
				return true
			})
		}
	}
	visit(body.List)
	if bad {
		return flagSummary{}
	}
	return out
}

// flagWaits returns the waits of the operations in a loop body that hand
// back a retry flag.
func (p *pkgCtx) flagWaits(body ast.Node) []waitSite {
	var out []waitSite
	p.inspectRegion(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if f := p.retryFlag(typeutil.StaticCallee(p.info, call)); f.ok {
				out = append(out, f.wait)
			}
		}
		return true
	})
	return out
}

// isRetryFlag reports a bool local whose only value is an operation's
// retry flag (resp, body, shouldRetry, err = c.innerDo(...)).
func (p *pkgCtx) isRetryFlag(v *types.Var) bool { return p.retryFlagCall(v) != nil }

// flagRetries reports a condition that is the retry flag of the call that
// sets the error variable the shape t tracks.
func (p *pkgCtx) flagRetries(cond ast.Expr, t *loopShape) bool {
	id, ok := astutil.Unparen(cond).(*ast.Ident)
	if !ok {
		return false
	}
	call := p.retryFlagCall(p.identVar(id))
	for _, c := range t.errs {
		if call != nil && c == call {
			return true
		}
	}
	return false
}

// retryFlagCall returns the one call whose retry flag a bool local holds.
func (p *pkgCtx) retryFlagCall(v *types.Var) *ast.CallExpr {
	if v == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	if call, ok := p.flagCalls[v]; ok {
		return call
	}
	call := p.retryFlagCallOf(v)
	if p.flagCalls == nil {
		p.flagCalls = make(map[*types.Var]*ast.CallExpr)
	}
	p.flagCalls[v] = call
	return call
}

func (p *pkgCtx) retryFlagCallOf(v *types.Var) *ast.CallExpr {
	var found *ast.CallExpr
	other := false
	ast.Inspect(p.funcScope(&ast.Ident{NamePos: v.Pos()}), func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			id, ok := astutil.Unparen(lhs).(*ast.Ident)
			if !ok || (p.info.Defs[id] != v && p.info.Uses[id] != v) {
				continue
			}
			call, isCall := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if len(as.Rhs) != 1 || !isCall {
				other = true
				continue
			}
			if f := p.retryFlag(typeutil.StaticCallee(p.info, call)); f.ok && f.index == i && (found == nil || found == call) {
				found = call
			} else {
				other = true
			}
		}
		return true
	})
	if other {
		return nil
	}
	return found
}

// flagPolicy settles what a loop driven by a retry flag leaves open: the
// operation bounds the attempts with the counter it is handed (remain :=
// max - i), so a loop without a bound of its own has attempts not known,
// not unbounded.
func (p *pkgCtx) flagPolicy(l *Layer, fw []waitSite) {
	if len(fw) == 0 {
		return
	}
	if a := l.Policy.Attempts; a.Known && a.N == 0 {
		l.Policy.Attempts = Value{Set: true, Pos: l.Pos}
		l.Policy.Notes = append(l.Policy.Notes, "the operation decides each retry and waits itself; its bound is not read")
	}
}
