package retrytimeout

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// remote reports whether a layer retries a remote dependency: the model
// says so, and its requests do not all go to this machine. A readiness
// poll of a proxy or daemon the program (or its test harness) just started
// on localhost has no herd of clients to synchronise and no shared service
// to protect.
func (c *checker) remote(l *retrymodel.Layer) bool {
	return l.Remote == retrymodel.Yes && !c.localOnly(l)
}

// localOnly reports a layer whose every operation is a net/http request and
// every request URL in its function names a loopback host (localhost,
// 127.x, ::1).
func (c *checker) localOnly(l *retrymodel.Layer) bool {
	if len(l.Ops) == 0 || l.FuncNode == nil {
		return false
	}
	for _, op := range l.Ops {
		if _, ok := c.httpURL(op); !ok {
			return false
		}
	}
	local, seen := true, false
	ast.Inspect(l.FuncNode, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !local {
			return local
		}
		u, ok := c.httpURL(call)
		if !ok {
			return true
		}
		if u == nil {
			return true // Client.Do(req): the URL is the request's
		}
		seen = true
		local = retrymodel.LoopbackURL(c.template(u, 0))
		return local
	})
	return seen && local
}

// httpURL returns the URL argument of a net/http request call: Get, Head,
// Post, PostForm (package functions and *Client methods), NewRequest and
// NewRequestWithContext; nil with ok for Client.Do, whose URL is its
// request's.
func (c *checker) httpURL(call *ast.CallExpr) (ast.Expr, bool) {
	fn := typeutil.StaticCallee(c.pass.TypesInfo, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" {
		return nil, false
	}
	recv := fn.Type().(*types.Signature).Recv() != nil
	arg := -1
	switch fn.Name() {
	case "Get", "Head", "Post", "PostForm":
		arg = 0
	case "NewRequest":
		arg = 1
	case "NewRequestWithContext":
		arg = 2
	case "Do":
		if recv {
			return nil, true
		}
	}
	if arg < 0 || arg >= len(call.Args) {
		return nil, false
	}
	return call.Args[arg], true
}

// unknownPart stands for a part of a string that is not constant.
const unknownPart = retrymodel.UnknownPart

// template renders a string expression with its constant parts and
// unknownPart for the rest: "http://" + addr + "/healthz" with addr :=
// fmt.Sprintf("127.0.0.1:%d", port) is "http://127.0.0.1:\x00/healthz".
func (c *checker) template(e ast.Expr, depth int) string {
	if depth > 8 {
		return unknownPart
	}
	e = astutil.Unparen(e)
	if tv, ok := c.pass.TypesInfo.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value)
	}
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return c.template(e.X, depth+1) + c.template(e.Y, depth+1)
		}
	case *ast.Ident:
		if v, ok := c.pass.TypesInfo.Uses[e].(*types.Var); ok && v.Kind() == types.LocalVar {
			if vals := c.valuesOf(v); len(vals) == 1 {
				return c.template(vals[0], depth+1)
			}
		}
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(c.pass.TypesInfo, e)
		if fn == nil || fn.Pkg() == nil {
			break
		}
		switch {
		case fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" && len(e.Args) > 0:
			tv, ok := c.pass.TypesInfo.Types[e.Args[0]]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				break
			}
			return c.sprintf(constant.StringVal(tv.Value), e.Args[1:], depth)
		case fn.Pkg().Path() == "net" && fn.Name() == "JoinHostPort" && len(e.Args) == 2:
			host := c.template(e.Args[0], depth+1)
			if strings.Contains(host, ":") {
				host = "[" + host + "]" // as JoinHostPort writes an IPv6 host
			}
			return host + ":" + c.template(e.Args[1], depth+1)
		}
	}
	return unknownPart
}

// sprintf renders a format with %s and %v operands rendered in turn.
func (c *checker) sprintf(format string, args []ast.Expr, depth int) string {
	var b strings.Builder
	ai := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.[]*", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			break
		}
		switch verb := format[j]; {
		case verb == '%':
			b.WriteByte('%')
		case (verb == 's' || verb == 'v') && ai < len(args):
			b.WriteString(c.template(args[ai], depth+1))
			ai++
		default:
			b.WriteString(unknownPart)
			ai++
		}
		i = j
	}
	return b.String()
}
