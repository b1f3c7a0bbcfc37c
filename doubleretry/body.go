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

// consumedBodies reports the layer's retried sends of a request with a
// body built before the retry and never reset in it.
func (c *checker) consumedBodies(l *retrymodel.Layer, fnBody func(token.Pos) *ast.BlockStmt) {
	if l.Body == nil || !retries(l) || l.HelperOf != nil || (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) {
		return
	}
	info := c.pass.TypesInfo
	for _, op := range c.res.RetriedCalls(l) {
		fn, _ := typeutil.Callee(info, op).(*types.Func)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" || retrymodel.RecvName(fn) != "Client" || fn.Name() != "Do" || len(op.Args) != 1 {
			continue
		}
		req := varOf(info, op.Args[0])
		body := fnBody(op.Pos())
		if req == nil || body == nil || l.Body.Pos() <= req.Pos() && req.Pos() < l.Body.End() {
			continue // built in each attempt
		}
		nr, method, bodyArg := builtWithBody(info, body, req)
		if nr == nil || nr.Pos() >= l.Body.Pos() || c.nilBody(bodyArg) || c.resetsBody(l.Body, req, bodyArg, op) {
			continue
		}
		times := "every retry"
		if n, ok := l.Attempts(); ok {
			times = fmt.Sprintf("each of its %d retries", n-1)
		}
		c.pass.Report(analysis.Diagnostic{
			Pos:      op.Pos(),
			End:      op.End(),
			Category: "consumed-body",
			Message: fmt.Sprintf("the %s request built at %s is sent again by the %s at %s with the body the first attempt read to its end: %s sends an empty body (net/http refuses it, ContentLength with Body length 0, or the server gets nothing); build the request in each attempt, or set req.Body from req.GetBody() before each send",
				method, retrymodel.Shorten(c.pass.Fset, nr.Pos()), l.Name, retrymodel.Shorten(c.pass.Fset, l.Pos), times),
			Related: []analysis.RelatedInformation{{Pos: nr.Pos(), Message: "the request and its body"}},
		})
		return // one finding per layer
	}
}

// builtWithBody returns the http.NewRequest(WithContext) call that is the
// only value req is given in body, when it is given a body (not nil, not
// http.NoBody), with its method and the body argument.
func builtWithBody(info *types.Info, body *ast.BlockStmt, req *types.Var) (*ast.CallExpr, string, ast.Expr) {
	var nr *ast.CallExpr
	assigns := 0
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			if varOf(info, lhs) == req {
				assigns++
				if i == 0 && len(as.Rhs) == 1 {
					nr, _ = astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
				}
			}
		}
		return true
	})
	if assigns != 1 || nr == nil {
		return nil, "", nil
	}
	fn, _ := typeutil.Callee(info, nr).(*types.Func)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" {
		return nil, "", nil
	}
	args := nr.Args
	switch {
	case fn.Name() == "NewRequestWithContext" && len(args) == 4:
		args = args[1:]
	case fn.Name() == "NewRequest" && len(args) == 3:
	default:
		return nil, "", nil
	}
	b := args[2]
	if isNilExpr(info, b) {
		return nil, "", nil
	}
	if v, ok := info.Uses[selIdent(b)].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "net/http" && v.Name() == "NoBody" {
		return nil, "", nil
	}
	method := "HTTP"
	if tv, ok := info.Types[args[0]]; ok && tv.Value != nil {
		method = tv.Value.ExactString()
		method = method[1 : len(method)-1]
	}
	return nr, method, b
}

// nilBody reports a body argument that is a variable only ever nil: one
// declared and never given a value (var buf io.ReadWriter), or given nil.
func (c *checker) nilBody(b ast.Expr) bool {
	v := varOf(c.pass.TypesInfo, b)
	if v == nil {
		return false
	}
	switch v.Type().Underlying().(type) {
	case *types.Interface, *types.Pointer:
	default:
		return false
	}
	vals, ok := c.res.Writes(v)
	if !ok {
		return false
	}
	for _, x := range vals {
		if x == nil && c.declaredBare(v) {
			continue // var buf io.ReadWriter: its zero value, nil
		}
		if x == nil || !isNilExpr(c.pass.TypesInfo, x) {
			return false
		}
	}
	return true
}

// declaredBare reports a variable declared by a var spec with no values.
func (c *checker) declaredBare(v *types.Var) bool {
	bare := false
	for _, f := range c.pass.Files {
		if v.Pos() < f.Pos() || v.Pos() >= f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return !bare
			}
			for _, id := range vs.Names {
				if c.pass.TypesInfo.Defs[id] == v && len(vs.Values) == 0 {
					bare = true
				}
			}
			return false
		})
	}
	return bare
}

func isNilExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

func selIdent(e ast.Expr) *ast.Ident {
	if s, ok := astutil.Unparen(e).(*ast.SelectorExpr); ok {
		return s.Sel
	}
	return nil
}

// resetsBody reports whether the retried region gives the request its
// body back, or may: it assigns req.Body or req itself, calls GetBody or
// Seek, or hands req (or the body's variable) to a function other than
// the send.
func (c *checker) resetsBody(region ast.Node, req *types.Var, bodyArg ast.Expr, send *ast.CallExpr) bool {
	info := c.pass.TypesInfo
	bodyVar := varOf(info, bodyArg)
	found := false
	ast.Inspect(region, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if varOf(info, lhs) == req {
					found = true
				}
				if sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok && sel.Sel.Name == "Body" && varOf(info, sel.X) == req {
					found = true
				}
			}
		case *ast.CallExpr:
			if n == send {
				return true
			}
			if sel, ok := astutil.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "GetBody", "Seek", "Reset":
					found = true
				}
			}
			for _, a := range n.Args {
				if v := varOf(info, a); v != nil && (v == req || v == bodyVar && bodyVar != nil) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
