package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"net/http"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A write whose answer lacks a part success needs is a failure. A poll
// asks again for state that is not there yet; a loop that sends the same
// payload again (a POST, PUT or PATCH with a body) after an answer
// without, say, its upload status header treats that answer as a failed
// attempt: the data did not land and is sent once more. So after
// `if resp.Header.Get("X-Upload-Status") != "" { break }` only failures
// remain, exactly as after `if err == nil { break }`.

// resentOnMissing reports a condition that tests a part of the
// operation's result for being present (a header, a field, a method's
// string, a length) when the operation re-sends a write with a body: the
// side where it holds is success.
func (p *pkgCtx) resentOnMissing(cond ast.Expr, s *loopShape) bool {
	b, ok := astutil.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	var part ast.Expr
	switch {
	case b.Op == token.NEQ && p.zeroValue(b.Y):
		part = b.X
	case b.Op == token.NEQ && p.zeroValue(b.X):
		part = b.Y
	case b.Op == token.GTR && p.zeroValue(b.Y):
		part = b.X
	default:
		return false
	}
	if c, ok := astutil.Unparen(part).(*ast.CallExpr); ok {
		if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "len" && len(c.Args) == 1 {
			part = c.Args[0]
		}
	}
	// A part read from the result, not the result itself (nonEmpty's
	// case) nor the status (statusTest's).
	if _, isIdent := astutil.Unparen(part).(*ast.Ident); isIdent || !p.mentionsResult(part, s) || p.statusTest(part, s) {
		return false
	}
	for _, op := range s.ops {
		if p.sendsWrite(op) {
			return true
		}
	}
	for _, op := range s.errs { // keepRetried's one-variable shapes carry no ops
		if op != nil && p.sendsWrite(op) {
			return true
		}
	}
	return false
}

func (p *pkgCtx) zeroValue(x ast.Expr) bool {
	if isNil(p.info, x) {
		return true
	}
	tv, ok := p.info.Types[x]
	if !ok || tv.Value == nil {
		return false
	}
	return tv.Value.ExactString() == `""` || tv.Value.ExactString() == "0"
}

// sendsWrite reports an operation handed a request built in the function
// by http.NewRequest or NewRequestWithContext with a writing method and a
// body: do(req) with req, err := http.NewRequestWithContext(ctx,
// http.MethodPost, url, bytes.NewReader(chunk)).
func (p *pkgCtx) sendsWrite(op *ast.CallExpr) bool {
	for _, a := range op.Args {
		id, ok := astutil.Unparen(a).(*ast.Ident)
		if !ok {
			continue
		}
		v := p.identVar(id)
		if v == nil || !isHTTPRequest(v.Type()) {
			continue
		}
		if call := p.definingCall(v); call != nil && p.writeRequest(call) {
			return true
		}
	}
	return false
}

// definingCall returns the call whose result is v's only assignment
// (req, err := http.NewRequest(...)).
func (p *pkgCtx) definingCall(v *types.Var) *ast.CallExpr {
	n, _ := p.localDef(v, false, true)
	if as, ok := n.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
		call, _ := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		return call
	}
	return nil
}

func (p *pkgCtx) writeRequest(call *ast.CallExpr) bool {
	fn, _ := typeutil.Callee(p.info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" {
		return false
	}
	args := call.Args
	switch fn.Name() {
	case "NewRequestWithContext":
		if len(args) != 4 {
			return false
		}
		args = args[1:]
	case "NewRequest":
		if len(args) != 3 {
			return false
		}
	default:
		return false
	}
	tv, ok := p.info.Types[args[0]]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return false
	}
	switch constant.StringVal(tv.Value) {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return false
	}
	return !isNil(p.info, args[2])
}
