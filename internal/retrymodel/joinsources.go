package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
)

// A local may be given different clients on different paths:
//
//	client := c.client
//	if cr := checkRetryFromContext(ctx); cr != nil {
//		client = c.newClientWithRetryCheck(cr) // a copy: RetryMax: c.client.RetryMax
//	}
//	resp, err := client.Do(req)
//
// origin gives up on such a local (no one value reaches the use). Each
// source is resolved on its own instead: when they agree on the retry
// count, that count is the client's; when they differ or one is not
// known, the count is not known. Never a library default assumed where
// the code built the client itself.

// retryableFromSources resolves the last of vars (the local origin
// stopped at) through each of its assignments.
func (p *callCtx) retryableFromSources(vars []*types.Var, depth int) (rhPolicy, bool) {
	if len(vars) == 0 || depth > 3 {
		return rhPolicy{}, false
	}
	v := vars[len(vars)-1]
	if v.IsField() || v.Pkg() != p.pass.Pkg || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return rhPolicy{}, false
	}
	srcs := p.index().vars[v]
	if len(srcs) < 2 {
		return rhPolicy{}, false
	}
	var out rhPolicy
	for i, s := range srcs {
		if s.unknown || s.tuple || s.expr == nil || mentionsVar(p.info, s.expr, v) {
			return rhPolicy{}, false
		}
		rc := p.resolveRetryableSource(s.expr, depth+1)
		if !rc.known {
			return rhPolicy{}, false
		}
		if i == 0 {
			out = rc
			continue
		}
		out.max = joinValue(out.max, rc.max)
		out.waitMin = joinValue(out.waitMin, rc.waitMin)
		out.waitMax = joinValue(out.waitMax, rc.waitMax)
		// A custom backoff or classifier on one path: the schedule is
		// not the default's (nil would say DefaultBackoff).
		if out.backoff == nil {
			out.backoff, out.backoffPos = rc.backoff, rc.backoffPos
		}
		if out.check == nil {
			out.check = rc.check
		}
		out.timeout = joinValue(out.timeout, rc.timeout)
	}
	// Sets on the local after its assignments (client.RetryMax = 0) apply
	// to every source.
	for _, s := range p.setsOn([]*types.Var{v}) {
		p.rhField(&out, s.name, s.rhs)
	}
	return out, true
}

// resolveRetryableSource is resolveRetryableClient for one source, and
// for a source that is itself a local of several sources.
func (p *callCtx) resolveRetryableSource(e ast.Expr, depth int) rhPolicy {
	if x, vars := p.origin(e); x == nil {
		if rc, ok := p.retryableFromSources(vars, depth); ok {
			return rc
		}
		return rhDefaults(token.NoPos)
	}
	rc := p.resolveRetryableClient(e)
	// A copy of another client's settings (RetryMax: c.client.RetryMax)
	// has that client's values.
	if lit, ok := func() (*ast.CompositeLit, bool) { x, _ := p.origin(e); l, ok := x.(*ast.CompositeLit); return l, ok }(); ok && depth <= 3 {
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, ok := kv.Key.(*ast.Ident)
			sel, isSel := astutil.Unparen(kv.Value).(*ast.SelectorExpr)
			if !ok || !isSel || sel.Sel.Name != key.Name || !namedIs(p.info.TypeOf(sel.X), pkgRetryableHTTP, "Client") {
				continue
			}
			from := p.resolveRetryableSource(sel.X, depth+1)
			if !from.known {
				continue
			}
			switch key.Name {
			case "RetryMax":
				rc.max = from.max
			case "RetryWaitMin":
				rc.waitMin = from.waitMin
			case "RetryWaitMax":
				rc.waitMax = from.waitMax
			case "Backoff":
				if from.backoff != nil {
					rc.backoff, rc.backoffPos = from.backoff, from.backoffPos
				}
			}
		}
	}
	return rc
}

// joinValue is the value two paths agree on, else a value set but not
// known.
func joinValue(a, b Value) Value {
	if a.Set == b.Set && a.Known == b.Known && a.N == b.N && a.D == b.D && a.F == b.F && a.Default == b.Default {
		return a
	}
	pos := a.Pos
	if !pos.IsValid() {
		pos = b.Pos
	}
	return Value{Set: a.Set || b.Set, Pos: pos}
}

func mentionsVar(info *types.Info, e ast.Expr, v *types.Var) bool {
	return contains(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		return ok && info.Uses[id] == v
	})
}

// optionSet reports a field set made by an option: inside a function
// literal that an exported function returns (WithCustomRetryMax(n)
// returns func(c *Client) error { c.client.RetryMax = n; ... }). It runs
// only for a caller that passes that option, so the value the constructor
// wrote stays the client's default.
func (p *callCtx) optionSet(s fieldSet) bool {
	for _, f := range p.pass.Files {
		if s.pos < f.Pos() || s.pos > f.End() {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !fd.Name.IsExported() || s.pos < fd.Body.Pos() || s.pos >= fd.Body.End() {
				continue
			}
			return contains(fd.Body, func(n ast.Node) bool {
				ret, ok := n.(*ast.ReturnStmt)
				return ok && slices.ContainsFunc(ret.Results, func(r ast.Expr) bool {
					lit, ok := r.(*ast.FuncLit)
					return ok && lit.Pos() <= s.pos && s.pos < lit.End()
				})
			})
		}
	}
	return false
}
