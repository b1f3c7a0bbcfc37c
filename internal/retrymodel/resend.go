package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"net/http"
	"strings"

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
		if v == nil || !IsHTTPRequest(v.Type()) {
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
	method, _, body, ok := newRequestArgs(p.info, call)
	switch {
	case !ok:
		return false
	case method == http.MethodPost, method == http.MethodPut, method == http.MethodPatch:
		return !isNil(p.info, body)
	}
	return false
}

// newRequestArgs reads a call of http.NewRequest or NewRequestWithContext:
// its method (when constant, upper-cased; "" else), URL and body.
func newRequestArgs(info *types.Info, call *ast.CallExpr) (method string, url, body ast.Expr, ok bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" {
		return "", nil, nil, false
	}
	args := call.Args
	switch {
	case fn.Name() == "NewRequestWithContext" && len(args) == 4:
		args = args[1:]
	case fn.Name() == "NewRequest" && len(args) == 3:
	default:
		return "", nil, nil, false
	}
	if tv, ok := info.Types[args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		method = strings.ToUpper(constant.StringVal(tv.Value))
	}
	return method, args[1], args[2], true
}

// A BuiltRequest is what an *http.Request variable is built from: the one
// value the package gives it, a call of http.NewRequest or
// NewRequestWithContext.
type BuiltRequest struct {
	Call   *ast.CallExpr
	Method string   // constant and upper-cased; "" when not constant
	URL    ast.Expr // as written
	// Body is the body argument; nil when the request has none: nil,
	// http.NoBody, or a variable only ever nil (var buf io.ReadWriter).
	Body ast.Expr
}

// RequestBuilt returns what the request variable v is built from: a
// NewRequest call (req, err := http.NewRequestWithContext(...)) that is its
// only value, or its first when every later value is a copy of itself
// (req = req.WithContext(ctx), req = req.Clone(ctx)), which shares the
// body.
func (r *Result) RequestBuilt(v *types.Var) (BuiltRequest, bool) {
	call := r.requestCall(v)
	if call == nil {
		return r.requestBuiltInBranches(v)
	}
	return r.builtFrom(call)
}

// builtFrom reads a NewRequest(WithContext) call: its method, URL and body
// (nil for one that sends nothing).
func (r *Result) builtFrom(call *ast.CallExpr) (BuiltRequest, bool) {
	method, url, body, ok := newRequestArgs(r.pass.TypesInfo, call)
	if !ok {
		return r.builtByHelper(call) // reqhelper.go
	}
	if r.noBody(body) {
		body = nil
	}
	return BuiltRequest{Call: call, Method: method, URL: url, Body: body}, true
}

// requestBuiltInBranches reads a request built in one of several places
// (var req *http.Request; if body != nil { req, err = NewRequest(..., buf)
// } else { req, err = NewRequest(..., nil) }), every value a NewRequest or
// a copy of the request: the first built with a body, else the first.
func (r *Result) requestBuiltInBranches(v *types.Var) (BuiltRequest, bool) {
	if v == nil || v.Pkg() != r.pass.Pkg || v.IsField() {
		return BuiltRequest{}, false
	}
	vals, ok := r.Writes(v)
	if !ok {
		return BuiltRequest{}, false
	}
	var first BuiltRequest
	for _, x := range vals {
		if x == nil && r.declaredBare(v) || x != nil && r.copiesRequest(x, v) {
			continue
		}
		call, ok := astutil.Unparen(x).(*ast.CallExpr)
		if !ok {
			return BuiltRequest{}, false
		}
		br, ok := r.builtFrom(call)
		if !ok {
			return BuiltRequest{}, false
		}
		if first.Call == nil || first.Body == nil && br.Body != nil {
			first = br
		}
	}
	return first, first.Call != nil
}

// requestCall returns the call v is built from (RequestBuilt), or nil.
func (r *Result) requestCall(v *types.Var) *ast.CallExpr {
	if w, ok := r.Written(v); ok {
		if w.First != nil {
			return w.First
		}
		call, _ := astutil.Unparen(w.Value).(*ast.CallExpr)
		return call
	}
	if v == nil || v.Pkg() != r.pass.Pkg || v.IsField() {
		return nil
	}
	vals, ok := r.Writes(v)
	if !ok || len(vals) < 2 {
		return nil
	}
	for _, x := range vals[1:] {
		if !r.copiesRequest(x, v) {
			return nil
		}
	}
	call, _ := astutil.Unparen(vals[0]).(*ast.CallExpr)
	return call
}

// copiesRequest reports x as v.WithContext(...) or v.Clone(...): a copy of
// the request v that shares its body.
func (r *Result) copiesRequest(x ast.Expr, v *types.Var) bool {
	call, ok := astutil.Unparen(x).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || varOf(r.pass.TypesInfo, sel.X) != v {
		return false
	}
	fn, ok := r.pass.TypesInfo.Uses[sel.Sel].(*types.Func)
	return ok && RecvName(fn) == "Request" && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" &&
		(fn.Name() == "WithContext" || fn.Name() == "Clone")
}

// noBody reports a body argument that sends nothing: nil, http.NoBody, or
// an interface or pointer variable declared bare or given only nil.
func (r *Result) noBody(e ast.Expr) bool {
	info := r.pass.TypesInfo
	if isNil(info, e) {
		return true
	}
	v := varOf(info, e)
	if v == nil {
		return false
	}
	if v.Pkg() != nil && v.Pkg().Path() == "net/http" && v.Name() == "NoBody" {
		return true
	}
	switch v.Type().Underlying().(type) {
	case *types.Interface, *types.Pointer:
	default:
		return false
	}
	if v.Kind() == types.ParamVar {
		return false // its callers' argument: a helper's body parameter (reqhelper.go)
	}
	vals, ok := r.Writes(v)
	if !ok {
		return false
	}
	for _, x := range vals {
		if x == nil && r.declaredBare(v) {
			continue // var buf io.ReadWriter: its zero value, nil
		}
		if x == nil || !isNil(info, x) {
			return false
		}
	}
	return true
}

// declaredBare reports a variable declared by a var spec with no values.
func (r *Result) declaredBare(v *types.Var) bool {
	bare := false
	for _, f := range r.pass.Files {
		if v.Pos() < f.Pos() || v.Pos() >= f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return !bare
			}
			for _, id := range vs.Names {
				if r.pass.TypesInfo.Defs[id] == v && len(vs.Values) == 0 {
					bare = true
				}
			}
			return false
		})
	}
	return bare
}
