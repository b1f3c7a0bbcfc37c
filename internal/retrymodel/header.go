package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// absentHeader reads a comparison of a response header with a yes/no
// constant (res.Header.Get("x-should-retry") == "true") as it is on a plain
// success: such a header is the server's retry directive, and a successful
// response carries none, so Get returns "". A header compared with a state
// ("pending", "running") is a poll's and stays unknown, as does anything
// that is no such test.
func (p *pkgCtx) absentHeader(c *ast.BinaryExpr, s *loopShape) Tri {
	_, t := p.headerTest(c, s)
	return t
}

// retryDirective reads a comparison of a response header that names a
// retry (Stripe-Should-Retry, x-should-retry) with a yes/no constant as
// the server's verdict on the attempt: failurePath where the test holds
// for "retry", successPath where it holds for its absence. A loop that
// goes round on it retries what failed (zstripe: `if
// resp.Header.Get("Stripe-Should-Retry") == "true" { sleep; goto doreq }`).
func (p *pkgCtx) retryDirective(c *ast.BinaryExpr, s *loopShape) path {
	name, t := p.headerTest(c, s)
	if !strings.Contains(strings.ToLower(name), "retry") {
		return unknownPath
	}
	switch t {
	case No:
		return failurePath
	case Yes:
		return successPath
	}
	return unknownPath
}

// directiveTest reports a condition that holds a retry directive test.
func (p *pkgCtx) directiveTest(e ast.Expr, s *loopShape) bool {
	return contains(e, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		return ok && p.retryDirective(b, s) != unknownPath
	})
}

// headerTest is absentHeader with the header's name, when a constant.
func (p *pkgCtx) headerTest(c *ast.BinaryExpr, s *loopShape) (string, Tri) {
	if c.Op != token.EQL && c.Op != token.NEQ {
		return "", Unknown
	}
	for _, pair := range [][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		call, ok := astutil.Unparen(pair[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			continue
		}
		fn := typeutil.Callee(p.info, call)
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || fn == nil || fn.Name() != "Get" || !namedIs(p.info.TypeOf(sel.X), "net/http", "Header") {
			continue
		}
		// The response's header, not the request's.
		hdr, ok := astutil.Unparen(sel.X).(*ast.SelectorExpr)
		if !ok || !namedIs(p.info.TypeOf(hdr.X), "net/http", "Response") || !p.mentionsResult(hdr.X, s) {
			continue
		}
		tv, ok := p.info.Types[astutil.Unparen(pair[1])]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			continue
		}
		lit := constant.StringVal(tv.Value)
		if !yesNo[strings.ToLower(lit)] {
			continue
		}
		name, _ := constString(p.info, call.Args[0])
		eq := lit == ""
		if eq == (c.Op == token.EQL) {
			return name, Yes
		}
		return name, No
	}
	return "", Unknown
}

// yesNo are the values of a boolean directive header.
var yesNo = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "1": true, "0": true}

// nilResult reads res == nil, for a pointer result of the operation, as it
// is on success: a call that succeeded returns its value (an
// *http.Response), so the test is false; res != nil is true.
func (p *pkgCtx) nilResult(c *ast.BinaryExpr, s *loopShape) Tri {
	for _, pair := range [][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		id, ok := astutil.Unparen(pair[0]).(*ast.Ident)
		if !ok || !isNil(p.info, pair[1]) {
			continue
		}
		v := p.identVar(id)
		if v == nil || !s.results[v] {
			continue
		}
		if _, ok := v.Type().Underlying().(*types.Pointer); !ok {
			continue
		}
		if c.Op == token.EQL {
			return No
		}
		return Yes
	}
	return Unknown
}
