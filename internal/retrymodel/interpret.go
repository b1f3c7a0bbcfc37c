package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A call that reads what an earlier operation of the attempt returned,
// io.ReadAll(resp.Body), checkResponse(resp), errorFromResponse(resp,
// body), json.Unmarshal(body, &v), and sends nothing itself, fails when
// that operation's answer is a failure: its error is the operation's. A
// retry decided on it repeats the operation, not the reading, so the
// loop's error variable keeps the operation as the call that set it.

// interpretedOp returns the operation whose result call reads, when call
// is such a reading: an argument or its receiver is (or selects from) an
// answer an earlier remote call of the attempt returned (madeBy holds
// those, and what was read from them; a request built by
// http.NewRequest is an input of the send, not an answer), it is handed
// no context, and it is no remote call. Nil otherwise.
func (p *pkgCtx) interpretedOp(call *ast.CallExpr, madeBy map[*types.Var]*ast.CallExpr) *ast.CallExpr {
	if len(madeBy) == 0 || isRemoteCall(p.info, call) {
		return nil
	}
	if sig, ok := p.info.TypeOf(call.Fun).(*types.Signature); ok {
		for i := 0; i < sig.Params().Len(); i++ {
			if namedIs(sig.Params().At(i).Type(), "context", "Context") {
				return nil // handed a context: it may do work of its own
			}
		}
	}
	reads := append([]ast.Expr(nil), call.Args...)
	if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		reads = append(reads, sel.X)
	}
	for _, a := range reads {
		if op := madeBy[p.rootVar(a)]; op != nil && op != call {
			return op
		}
	}
	return nil
}

// rootVar is the variable an expression reads from: resp for resp,
// resp.Body or resp.Header.Get's receiver; nil for anything else (&v is
// an output, not a read).
func (p *pkgCtx) rootVar(e ast.Expr) *types.Var {
	for {
		switch x := astutil.Unparen(e).(type) {
		case *ast.Ident:
			return p.identVar(x)
		case *ast.SelectorExpr:
			e = x.X
		default:
			return nil
		}
	}
}
