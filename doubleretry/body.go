package doubleretry

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports a request whose body the first attempt consumed,
// sent again by a retry (category consumed-body):
//
//	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
//	for attempt := 0; attempt < 3; attempt++ {
//		resp, err := hc.Do(req) // the second Do sends a body already read to its end
//
// Client.Do reads the body to its end (and closes it); net/http rewinds
// it only inside one round trip (GetBody, on a connection that failed
// before writing), never for the caller's next Do. Every retry then sends
// an empty body: net/http refuses it ("ContentLength=N with Body length
// 0") or the server gets nothing. Quiet when the request is built in each
// attempt, when the loop sets req.Body (from GetBody, a new reader) or
// seeks the body back, when the request is handed to another function in
// the loop (what it does is not read), and for a request without a body.
// A request the retrying function is handed counts when a caller builds it
// with a body, or when it comes through a client's Do (RequestParamSource).

// consumedBodies reports the layer's retried sends of a request with a
// body built before the retry and never reset in it.
func (c *checker) consumedBodies(l *retrymodel.Layer) {
	if l.Body == nil || !retries(l) || (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) {
		return
	}
	if c.drainedEachAttempt(l) || c.reusedReader(l) { // reader.go
		return
	}
	for _, op := range c.res.RetriedCalls(l) {
		req := c.resentRequest(op)
		if req == nil || l.Body.Pos() <= req.Pos() && req.Pos() < l.Body.End() {
			continue // built in each attempt
		}
		var src retrymodel.RequestSource
		if br, ok := c.res.RequestBuilt(req); ok {
			if br.Body == nil || br.Call.Pos() >= l.Body.Pos() || c.rebuiltIn(l.Body, req) {
				continue
			}
			src.Built = br
		} else if s, ok := c.res.RequestParamSource(l.Func, req); ok && !c.readsBody(req, l) {
			src = s // the request the function is handed
		} else {
			continue
		}
		var bodyVar *types.Var
		if src.Built.Call != nil {
			bodyVar = varOf(c.pass.TypesInfo, src.Built.Body)
		}
		if c.handedOn(l.Body, op, recursion(l), "Body", req, bodyVar) || c.rewinds(l.Body) {
			continue
		}
		times := "every retry"
		if n, ok := l.Attempts(); ok {
			times = fmt.Sprintf("each of its %d retries", n-1)
		}
		what, at := "", token.NoPos
		switch {
		case src.Client != nil:
			kind := "a client's Do"
			if src.Client.Name() == "RoundTrip" {
				kind = "a RoundTripper: its client's every request"
			}
			what = fmt.Sprintf("the request handed to %s (%s, POST and PUT bodies too)", retrymodel.FuncName(src.Client), kind)
			at = src.Client.Pos()
		default:
			method := src.Built.Method
			if method == "" {
				method = "HTTP"
			}
			what = fmt.Sprintf("the %s request built at %s", method, retrymodel.Shorten(c.pass.Fset, src.Built.Call.Pos()))
			at = src.Built.Call.Pos()
		}
		c.pass.Report(analysis.Diagnostic{
			Pos:      op.Pos(),
			End:      op.End(),
			Category: "consumed-body",
			Message: fmt.Sprintf("%s is sent again by the %s at %s with the body the first attempt read to its end: %s sends an empty body (net/http refuses it, ContentLength with Body length 0, or the server gets nothing); build the request in each attempt, or set req.Body from req.GetBody() before each send",
				what, l.Name, retrymodel.Shorten(c.pass.Fset, l.Pos), times),
			Related: []analysis.RelatedInformation{{Pos: at, Message: "the request and its body"}},
		})
		return // one finding per layer
	}
}

// recursion is the function of a retry by recursion, whose call of
// itself is the next attempt; nil for other layers.
func recursion(l *retrymodel.Layer) *types.Func {
	if _, ok := l.Node.(*ast.FuncDecl); ok && l.Kind == retrymodel.Loop {
		return l.Func
	}
	return nil
}

// drainedEachAttempt reports a retry that reads a request's body in every
// attempt, to give a copy of the request a fresh reader, from a request
// made before the retry whose Body it never sets again:
//
//	for {
//		body, _ := io.ReadAll(req.Body) // the second read gets nothing
//		newReq := req.Clone(ctx)
//		newReq.Body = io.NopCloser(bytes.NewReader(body))
//
// The first attempt drains req.Body, so every retry sends an empty body.
func (c *checker) drainedEachAttempt(l *retrymodel.Layer) bool {
	info := c.pass.TypesInfo
	var read *ast.CallExpr
	var req *types.Var
	ast.Inspect(l.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || read != nil {
			return read == nil
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "io" || fn.Name() != "ReadAll" || len(call.Args) != 1 {
			return true
		}
		sel, ok := astutil.Unparen(call.Args[0]).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Body" {
			return true
		}
		v := varOf(info, sel.X)
		if v == nil || !isNamed(v.Type(), "net/http", "Request") || l.Body.Pos() <= v.Pos() && v.Pos() < l.Body.End() {
			return true
		}
		read, req = call, v
		return false
	})
	if read == nil || c.setsBody(l.Body, req) {
		return false
	}
	times := "every retry"
	if n, ok := l.Attempts(); ok {
		times = fmt.Sprintf("each of its %d retries", n-1)
	}
	c.pass.Report(analysis.Diagnostic{
		Pos:      read.Pos(),
		End:      read.End(),
		Category: "consumed-body",
		Message: fmt.Sprintf("the %s at %s reads %s.Body again in every attempt: the first attempt drains it, so %s sends an empty body (net/http refuses it, ContentLength with Body length 0, or the server gets nothing); read the body once before the retry (or take a new reader from %s.GetBody() in each attempt)",
			l.Name, retrymodel.Shorten(c.pass.Fset, l.Pos), req.Name(), times, req.Name()),
	})
	return true
}

// setsBody reports a region that gives v a body again: v.Body = ...
func (c *checker) setsBody(region ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(region, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && setsField(c.pass.TypesInfo, as, v, "Body") {
			found = true
		}
		return !found
	})
	return found
}

// rebuiltIn reports a request variable given a value inside region: a
// new request each attempt.
func (c *checker) rebuiltIn(region ast.Node, req *types.Var) bool {
	vals, _ := c.res.Writes(req)
	for _, x := range vals {
		if x != nil && region.Pos() <= x.Pos() && x.Pos() < region.End() {
			return true
		}
	}
	return false
}

// resentRequest is the request variable a retried send hands on:
// http.Client.Do(req), or a method of an interface or a func value shaped
// like it (an HTTP client behind an interface; its Do reads the body as
// Client.Do does).
func (c *checker) resentRequest(op *ast.CallExpr) *types.Var {
	if v := c.sentRequest(op); v != nil {
		return v
	}
	if len(op.Args) != 1 || !retrymodel.DoShapedCall(c.pass.TypesInfo, op) {
		return nil
	}
	return varOf(c.pass.TypesInfo, op.Args[0])
}

// readsBody reports a function that looks at its request's body (req.Body,
// req.GetBody, req.ContentLength): it handles bodies in a way of its own.
func (c *checker) readsBody(req *types.Var, l *retrymodel.Layer) bool {
	body := c.funcBody(l)
	if body == nil {
		return true
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && varOf(c.pass.TypesInfo, sel.X) == req {
			switch sel.Sel.Name {
			case "Body", "GetBody", "ContentLength":
				found = true
			}
		}
		return !found
	})
	return found
}

// rewinds reports a region that seeks a body back: a Seek of a reader
// (io.Seeker's method), or a Reset of a bytes or strings reader or buffer.
// (req.Body = req.GetBody() is an assignment, handedOn's.)
func (c *checker) rewinds(region ast.Node) bool {
	found := false
	ast.Inspect(region, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch s := c.pass.TypesInfo.Selections[sel]; {
		case s == nil:
		case s.Kind() == types.MethodVal && sel.Sel.Name == "Seek":
			sig := s.Type().(*types.Signature)
			found = sig.Params().Len() == 2 && sig.Results().Len() == 2 // io.Seeker's Seek(offset, whence)
		case s.Kind() == types.MethodVal && sel.Sel.Name == "Reset":
			found = isNamed(s.Recv(), "bytes", "Reader") || isNamed(s.Recv(), "bytes", "Buffer") || isNamed(s.Recv(), "strings", "Reader")
		}
		return !found
	})
	return found
}

// isNamed reports t, or what it points to, as the named type pkg.name.
func isNamed(t types.Type, pkg, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}
