package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A retry library can be used to poll: the operation calls a service,
// makes its failures permanent, and returns a retryable error only when
// the call succeeded but the state is not ready yet
// ("codespace not ready yet"). That runs again after success, so it is not
// a retry (see the "not retries") and is not recorded as a layer.

// pollBody reports whether the operation closure body is a poll: every
// error it returns for retry is made fresh (errors.New, fmt.Errorf without
// an error argument, a struct literal, a package-level sentinel), at least
// one failure is marked permanent (permanent reports such a call), and no
// HTTP error status (>= 400) is tested (a fresh error for a 5xx is a
// retried failure; a 202 Accepted is a state not ready).
// wrapRetry, when set, is the call that marks an error retryable (go-retry's
// RetryableError); only its argument counts then.
func (p *callCtx) pollBody(body ast.Node, permanent func(*ast.CallExpr) bool, wrapRetry func(*ast.CallExpr) bool) bool {
	lit, ok := body.(*ast.BlockStmt)
	if !ok || lit == nil {
		return false
	}
	retried, fresh, perm := 0, 0, 0
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 0 {
				return false
			}
			e := astutil.Unparen(n.Results[len(n.Results)-1])
			if isNil(p.info, e) {
				return false
			}
			if c, ok := e.(*ast.CallExpr); ok {
				if permanent != nil && permanent(c) {
					perm++
					return false
				}
				if wrapRetry != nil {
					if wrapRetry(c) && len(c.Args) == 1 {
						retried++
						if p.freshError(c.Args[0]) {
							fresh++
						}
					} else {
						perm++ // not marked retryable: not retried
					}
					return false
				}
			}
			if wrapRetry != nil {
				perm++
				return false
			}
			retried++
			if p.freshError(e) {
				fresh++
			}
			return false
		}
		return true
	}
	ast.Inspect(lit, visit)
	if !(retried > 0 && fresh == retried && perm > 0) {
		return false
	}
	// A fresh error for a bad status ("server error 503") is a failure
	// retried, not a state polled.
	status := false
	ast.Inspect(lit, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok {
			return !status
		}
		for _, pair := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
			if p.res.StatusOf(pair[0]) != HTTPStatus {
				continue
			}
			if v, ok := p.fold.Int(pair[1]); ok && v >= 400 {
				status = true
			}
		}
		return !status
	})
	return !status
}

// FreshError reports an error made on the spot rather than one returned by
// a call (freshError): what a poll returns for "not ready yet".
func (r *Result) FreshError(e ast.Expr) bool {
	return (&callCtx{pkgCtx: &pkgCtx{pass: r.pass, info: r.pass.TypesInfo, res: r}}).freshError(e)
}

// freshError reports an error made on the spot rather than one returned by
// a call: errors.New("..."), fmt.Errorf without an error argument, a
// struct literal, a package-level sentinel variable.
func (p *callCtx) freshError(e ast.Expr) bool {
	e = astutil.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = astutil.Unparen(u.X)
	}
	switch x := e.(type) {
	case *ast.CompositeLit:
		return true
	case *ast.CallExpr:
		if p.calleeIs(x, "errors", "", "New") {
			return true
		}
		if p.calleeIs(x, "fmt", "", "Errorf") {
			for _, a := range x.Args[1:] {
				if t := p.info.TypeOf(a); t == nil || types.Implements(t, errorIface) {
					return false
				}
			}
			return true
		}
	case *ast.Ident, *ast.SelectorExpr:
		if v := p.varOf(x); v != nil && !v.IsField() && v.Parent() == v.Pkg().Scope() {
			return true
		}
	}
	return false
}

var errorIface = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
