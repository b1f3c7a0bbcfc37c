package doubleretry

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports the other half of consumed-body: a retry that builds
// its request in each attempt, around a reader made before the retry.
//
//	func (c *Client) do(ctx context.Context, method, url string, body io.Reader) error {
//		for attempt := 0; attempt < 3; attempt++ {
//			req, _ := http.NewRequestWithContext(ctx, method, url, body) // the same reader each time
//			resp, err := c.hc.Do(req)
//
// A new request does not make a new body: the first attempt reads the
// reader to its end, and every later request wraps the same, empty reader
// (a *bytes.Buffer, *bytes.Reader or *strings.Reader is snapshotted for
// GetBody at NewRequest, at the position it has then). Quiet when the
// reader is made in each attempt (bytes.NewReader(data) in the loop), is
// given a new value or sought back in the loop, is handed to another
// function there, or is a parameter of an unexported function that every
// caller in the package passes nil.

// reusedReader reports, once per layer, a request built in each attempt
// of l whose body is a reader from before the retry, and whose send is a
// retried call. It reports whether it reported.
func (c *checker) reusedReader(l *retrymodel.Layer) bool {
	info := c.pass.TypesInfo
	fn := c.funcBody(l)
	if fn == nil {
		return false
	}
	for _, op := range c.res.RetriedCalls(l) {
		for _, a := range op.Args {
			req := varOf(info, a)
			if req == nil || !isNamed(req.Type(), "net/http", "Request") || !inside(l.Body, req.Pos()) {
				continue
			}
			br, ok := c.res.RequestBuilt(req)
			if !ok || br.Body == nil || !inside(l.Body, br.Body.Pos()) {
				continue // no body, or built by a helper: its reader is its own
			}
			rd := varOf(info, br.Body)
			if rd == nil || inside(l.Body, rd.Pos()) || !inside(fn, rd.Pos()) && paramIndex(l.Func, rd) < 0 || !isReader(rd.Type()) {
				continue // made in each attempt, elsewhere, or no variable
			}
			if c.rebuiltIn(l.Body, rd) || c.rewinds(l.Body) || c.handedOn(l.Body, br.Call, recursion(l), "", rd) || c.onlyNilPassed(l, rd) {
				continue
			}
			times := "every retry"
			if n, ok := l.Attempts(); ok {
				times = fmt.Sprintf("each of its %d retries", n-1)
			}
			method := br.Method
			if method == "" {
				method = "HTTP"
			}
			c.pass.Report(analysis.Diagnostic{
				Pos:      br.Call.Pos(),
				End:      br.Call.End(),
				Category: "consumed-body",
				Message: fmt.Sprintf("the %s request built in each attempt of the %s at %s takes its body from %s, a reader made before the retry: the first attempt reads it to its end, so %s sends an empty body (net/http refuses it, ContentLength with Body length 0, or the server gets nothing); make the reader in each attempt (bytes.NewReader(data)), or seek %s back before each send",
					method, l.Name, retrymodel.Shorten(c.pass.Fset, l.Pos), rd.Name(), times, rd.Name()),
				Related: []analysis.RelatedInformation{{Pos: rd.Pos(), Message: "the reader"}},
			})
			return true
		}
	}
	return false
}

// inside reports a position inside region.
func inside(region ast.Node, pos token.Pos) bool {
	return region.Pos() <= pos && pos < region.End()
}

// isReader reports a type with io.Reader's Read method.
func isReader(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Read")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Signature()
	return sig.Params().Len() == 1 && sig.Results().Len() == 2 && types.Identical(sig.Params().At(0).Type(), types.NewSlice(types.Typ[types.Byte]))
}

// paramIndex is v's index among fn's parameters, or -1.
func paramIndex(fn *types.Func, v *types.Var) int {
	if fn == nil {
		return -1
	}
	params := fn.Signature().Params()
	for i := 0; i < params.Len(); i++ {
		if params.At(i) == v {
			return i
		}
	}
	return -1
}

// onlyNilPassed reports a parameter rd of an unexported function (the
// layer's) that every call of it in the package passes nil: its requests
// have no body. An exported function's callers are not all seen.
func (c *checker) onlyNilPassed(l *retrymodel.Layer, rd *types.Var) bool {
	fn := l.Func
	if fn == nil || fn.Exported() {
		return false
	}
	idx := paramIndex(fn, rd)
	if idx < 0 {
		return false // a local: made before the loop, with a value
	}
	info := c.pass.TypesInfo
	nonNil := false
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || nonNil || typeutil.StaticCallee(info, call) != fn || idx >= len(call.Args) {
				return !nonNil
			}
			if tv, ok := info.Types[call.Args[idx]]; !ok || !tv.IsNil() {
				nonNil = true
			}
			return !nonNil
		})
	}
	return !nonNil
}
