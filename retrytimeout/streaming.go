package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A timeoutSrc is a total timeout that bounds a call.
type timeoutSrc struct {
	d    time.Duration
	pos  token.Pos
	what string // "http.Client Timeout", "context timeout", "option.WithRequestTimeout"
	note string // "(the client it is built with; ...)"
}

// checkStreaming reports streaming calls under a total timeout:
//   - an SDK streaming method (NewStreaming of openai-go and
//     anthropic-sdk-go) whose context has a timeout set in the same
//     function, or whose request timeout option (on the call or the client)
//     bounds the whole stream;
//   - an HTTP request whose response body is read chunk by chunk in a loop
//     (bufio.Scanner, bufio.Reader, json.Decoder, Body.Read), sent through a
//     client with a Timeout or with a context timeout set in the function.
func (c *checker) checkStreaming() {
	c.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		call := n.(*ast.CallExpr)
		if c.inTestFile(call.Pos()) {
			return true
		}
		fnNode := enclosingFuncNode(stack)
		if fnNode == nil {
			return true
		}
		fn := typeutil.StaticCallee(c.pass.TypesInfo, call)
		if fn == nil || fn.Pkg() == nil {
			return true
		}
		switch {
		case isSDKStreaming(fn):
			c.sdkStreaming(call, fnNode)
		case isHTTPSend(fn):
			c.httpStreaming(call, fn, fnNode, stack)
		}
		return true
	})
}

func enclosingFuncNode(stack []ast.Node) ast.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return stack[i]
		}
	}
	return nil
}

// isSDKStreaming reports the streaming methods of the AI SDKs: NewStreaming
// of openai-go and anthropic-sdk-go, ConverseStream and
// InvokeModelWithResponseStream of aws-sdk-go-v2's bedrockruntime.
func isSDKStreaming(fn *types.Func) bool {
	p := fn.Pkg().Path()
	switch {
	case strings.HasPrefix(p, "github.com/openai/openai-go") || strings.HasPrefix(p, "github.com/anthropics/anthropic-sdk-go"):
		return strings.HasPrefix(fn.Name(), "NewStreaming")
	case strings.HasPrefix(p, "github.com/aws/aws-sdk-go-v2/service/bedrockruntime"):
		return fn.Name() == "ConverseStream" || fn.Name() == "InvokeModelWithResponseStream"
	}
	return false
}

// isHTTPSend reports net/http's Client.Do/Get/Post/PostForm and the
// package-level Get/Post/PostForm.
func isHTTPSend(fn *types.Func) bool {
	if fn.Pkg().Path() != "net/http" {
		return false
	}
	sig := fn.Type().(*types.Signature)
	switch fn.Name() {
	case "Do", "Get", "Post", "PostForm":
		if sig.Recv() == nil {
			return fn.Name() != "Do"
		}
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		return ok && n.Obj().Name() == "Client"
	}
	return false
}

func (c *checker) sdkStreaming(call *ast.CallExpr, fnNode ast.Node) {
	var srcs []timeoutSrc
	if len(call.Args) > 0 {
		if t, ok := c.ctxTimeout(call.Args[0], fnNode, 0); ok {
			srcs = append(srcs, t)
		}
	}
	if l := c.res.LayerOf(call); l != nil {
		if pa := l.Policy.PerAttempt; pa.Known && pa.D > 0 {
			srcs = append(srcs, timeoutSrc{d: pa.D, pos: pa.Pos, what: c.timeoutKind(pa.Pos)})
		}
	}
	t, ok := shortest(srcs)
	if !ok {
		return
	}
	name := "the stream"
	if l := c.res.LayerOf(call); l != nil {
		name = "the stream of " + l.Name
	}
	// A timeout written in the call's own options is the thing to change;
	// a client-wide or context timeout may serve other calls: report the call.
	pos := call.Pos()
	if t.pos.IsValid() && within(&ast.Ident{NamePos: t.pos}, call) && t.pos != call.Pos() {
		pos = t.pos
	}
	c.report(pos, "streaming-timeout", c.streamingMessage(name, t), nil)
}

func (c *checker) streamingMessage(what string, t timeoutSrc) string {
	at := ""
	if t.pos.IsValid() {
		at = " set at " + c.short(t.pos)
	}
	return fmt.Sprintf("total timeout on a streaming call: %s is cut off after the %s %s%s%s however fast the chunks arrive, so a long answer fails while it is still arriving; bound the time between chunks instead (a timer reset on each chunk that cancels the request) and keep total timeouts off streaming calls",
		what, fmtDur(t.d), t.what, at, t.note)
}

// runawayGuard is the total timeout from which a stream's bound is a guard
// against a hung connection rather than a budget for the answer: an hour
// on an agent's event stream is not what cuts answers off.
const runawayGuard = 10 * time.Minute

// shortest returns the tightest total timeout below runawayGuard.
func shortest(srcs []timeoutSrc) (timeoutSrc, bool) {
	var best timeoutSrc
	ok := false
	for _, s := range srcs {
		if s.d >= runawayGuard {
			continue
		}
		if !ok || s.d < best.d {
			best, ok = s, true
		}
	}
	return best, ok
}

// httpStreaming checks an HTTP send whose response is read in a loop.
func (c *checker) httpStreaming(call *ast.CallExpr, fn *types.Func, fnNode ast.Node, stack []ast.Node) {
	resp := c.assignedResult(call, stack)
	if resp == nil {
		return
	}
	loop, loopFn := c.bodyLoop(resp, fnNode, call.End())
	if loop == nil || !(c.streamed(fnNode, loop) || c.streamed(loopFn, loop) || c.reportsProgress(loop)) {
		return
	}
	var srcs []timeoutSrc
	if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && fn.Type().(*types.Signature).Recv() != nil {
		if t, ok := c.clientTimeout(sel.X); ok {
			srcs = append(srcs, t)
		}
	}
	if fn.Name() == "Do" && len(call.Args) == 1 {
		if ctx := c.requestContext(call.Args[0], fnNode); ctx != nil {
			if t, ok := c.ctxTimeout(ctx, fnNode, 0); ok {
				srcs = append(srcs, t)
			}
		}
	}
	t, ok := shortest(srcs)
	if !ok {
		return
	}
	what := fmt.Sprintf("the response read chunk by chunk at %s", c.short(loop.Pos()))
	if loopFn != fnNode {
		what += " (in " + c.funcNodeName(loopFn) + ")"
	}
	c.report(call.Pos(), "streaming-timeout", c.streamingMessage(what, t), nil)
}

// assignedResult returns the variable the call's first result is assigned
// to (resp, err := c.Do(req)).
func (c *checker) assignedResult(call *ast.CallExpr, stack []ast.Node) *types.Var {
	if len(stack) < 2 {
		return nil
	}
	as, ok := stack[len(stack)-2].(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || as.Rhs[0] != call || len(as.Lhs) == 0 {
		return nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil
	}
	return c.identVar(id)
}

func (c *checker) identVar(id *ast.Ident) *types.Var {
	if v, ok := c.pass.TypesInfo.Defs[id].(*types.Var); ok {
		return v
	}
	v, _ := c.pass.TypesInfo.Uses[id].(*types.Var)
	return v
}

// isBodyOf matches resp.Body.
func (c *checker) isBodyOf(resp *types.Var) func(ast.Expr) bool {
	return func(e ast.Expr) bool {
		sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Body" {
			return false
		}
		id, ok := astutil.Unparen(sel.X).(*ast.Ident)
		return ok && c.pass.TypesInfo.Uses[id] == resp
	}
}

// readerLoop finds a loop after pos in fn that reads the reader isBody
// matches piece by piece (resp.Body, a reader wrapped around it).
func (c *checker) readerLoop(isBody func(ast.Expr) bool, fnNode ast.Node, after token.Pos) ast.Node {
	info := c.pass.TypesInfo
	// Readers wrapped around the body.
	wrapped := make(map[*types.Var]bool)
	ast.Inspect(fnNode, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || len(as.Lhs) < 1 || as.Pos() < after {
			return true
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := typeutil.StaticCallee(info, call)
		if fn != nil && fn.Pkg() != nil && (fn.Pkg().Path() == "io" || fn.Pkg().Path() == "io/ioutil") && (fn.Name() == "ReadAll" || fn.Name() == "Copy" || fn.Name() == "CopyN") {
			return true
		}
		for _, a := range call.Args {
			if isBody(a) {
				if id, ok := as.Lhs[0].(*ast.Ident); ok {
					if v := c.identVar(id); v != nil {
						wrapped[v] = true
					}
				}
			}
		}
		return true
	})
	reads := func(root ast.Node) bool {
		found := false
		ast.Inspect(root, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || found {
				return !found
			}
			sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if isBody(sel.X) && sel.Sel.Name == "Read" {
				found = true
			}
			if id, ok := astutil.Unparen(sel.X).(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && wrapped[v] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var loop ast.Node
	ast.Inspect(fnNode, func(n ast.Node) bool {
		if loop != nil {
			return false
		}
		f, ok := n.(*ast.ForStmt)
		if !ok || f.Pos() < after {
			return true
		}
		if (f.Cond != nil && reads(f.Cond)) || reads(f.Body) {
			loop = f
			return false
		}
		return true
	})
	return loop
}

// clientTimeout folds the Timeout of the http.Client expression e, when e
// is (a variable holding) an http.Client composite literal.
func (c *checker) clientTimeout(e ast.Expr) (timeoutSrc, bool) {
	if sel, ok := astutil.Unparen(e).(*ast.SelectorExpr); ok {
		if t, ok := c.fieldClientTimeout(sel); ok {
			return t, true
		}
	}
	lit := c.clientLiteral(e, 0)
	if lit == nil {
		return timeoutSrc{}, false
	}
	return c.literalTimeout(lit)
}

// literalTimeout folds the Timeout of an http.Client composite literal.
func (c *checker) literalTimeout(lit *ast.CompositeLit) (timeoutSrc, bool) {
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Timeout" {
			if d, ok := c.res.Folder.Duration(kv.Value); ok && d > 0 {
				return timeoutSrc{d: d, pos: kv.Pos(), what: "http.Client Timeout"}, true
			}
			if d, note, ok := c.copiedDefault(kv.Value); ok && d > 0 { // streamtimeout.go
				return timeoutSrc{d: d, pos: kv.Pos(), what: "http.Client Timeout", note: note}, true
			}
		}
	}
	return timeoutSrc{}, false
}

func (c *checker) clientLiteral(e ast.Expr, depth int) *ast.CompositeLit {
	if depth > 3 {
		return nil
	}
	e = astutil.Unparen(e)
	switch x := e.(type) {
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return c.clientLiteral(x.X, depth+1)
		}
	case *ast.CompositeLit:
		return x
	case *ast.Ident:
		v, ok := c.pass.TypesInfo.Uses[x].(*types.Var)
		if !ok {
			return nil
		}
		vals := c.valuesOf(v)
		if len(vals) != 1 {
			return nil
		}
		return c.clientLiteral(vals[0], depth+1)
	}
	return nil
}

// requestContext finds the context a request was built with:
// http.NewRequestWithContext(ctx, ...) or req.WithContext(ctx), for a
// request variable assigned once.
func (c *checker) requestContext(req ast.Expr, fnNode ast.Node) ast.Expr {
	req = astutil.Unparen(req)
	if call, ok := req.(*ast.CallExpr); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithContext" && len(call.Args) == 1 {
			return call.Args[0]
		}
		return nil
	}
	id, ok := req.(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := c.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	var ctx ast.Expr
	ast.Inspect(fnNode, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
			return true
		}
		lid, ok := as.Lhs[0].(*ast.Ident)
		if !ok || c.identVar(lid) != v {
			return true
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := typeutil.StaticCallee(c.pass.TypesInfo, call)
		if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" && fn.Name() == "NewRequestWithContext" && len(call.Args) > 0 {
			ctx = call.Args[0]
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithContext" && len(call.Args) == 1 {
			ctx = call.Args[0]
		}
		return true
	})
	return ctx
}

// ctxTimeout traces a context expression to a context.WithTimeout or
// WithDeadline(time.Now().Add(d)) set in the same function, through
// derived contexts (WithCancel, WithValue).
func (c *checker) ctxTimeout(e ast.Expr, fnNode ast.Node, depth int) (timeoutSrc, bool) {
	if depth > 4 {
		return timeoutSrc{}, false
	}
	e = astutil.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok {
		return c.ctxCallTimeout(call, fnNode, depth)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return timeoutSrc{}, false
	}
	v, ok := c.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok {
		return timeoutSrc{}, false
	}
	var out timeoutSrc
	found, other := false, false
	ast.Inspect(fnNode, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			lid, ok := lhs.(*ast.Ident)
			if !ok || c.identVar(lid) != v {
				continue
			}
			if i != 0 || len(as.Rhs) != 1 {
				other = true
				continue
			}
			call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if !ok {
				other = true
				continue
			}
			if t, ok := c.ctxCallTimeout(call, fnNode, depth); ok {
				out, found = t, true
			} else {
				other = true
			}
		}
		return true
	})
	if !found || other {
		return timeoutSrc{}, false
	}
	return out, true
}

func (c *checker) ctxCallTimeout(call *ast.CallExpr, fnNode ast.Node, depth int) (timeoutSrc, bool) {
	fn := typeutil.StaticCallee(c.pass.TypesInfo, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || len(call.Args) == 0 {
		return timeoutSrc{}, false
	}
	switch fn.Name() {
	case "WithTimeout", "WithTimeoutCause":
		if len(call.Args) < 2 {
			return timeoutSrc{}, false
		}
		if d, ok := c.res.Folder.Duration(call.Args[1]); ok && d > 0 {
			t := timeoutSrc{d: d, pos: call.Pos(), what: "context timeout"}
			if p, ok := c.ctxTimeout(call.Args[0], fnNode, depth+1); ok && p.d < d {
				return p, true
			}
			return t, true
		}
	case "WithDeadline", "WithDeadlineCause":
		if len(call.Args) < 2 {
			return timeoutSrc{}, false
		}
		if add, ok := astutil.Unparen(call.Args[1]).(*ast.CallExpr); ok {
			if sel, ok := add.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" && len(add.Args) == 1 {
				if now, ok := astutil.Unparen(sel.X).(*ast.CallExpr); ok && isTimeFunc(typeutil.StaticCallee(c.pass.TypesInfo, now), "Now") {
					if d, ok := c.res.Folder.Duration(add.Args[0]); ok && d > 0 {
						return timeoutSrc{d: d, pos: call.Pos(), what: "context deadline"}, true
					}
				}
			}
		}
	case "WithCancel", "WithCancelCause", "WithValue", "WithoutCancel":
		if fn.Name() == "WithoutCancel" {
			return timeoutSrc{}, false
		}
		return c.ctxTimeout(call.Args[0], fnNode, depth+1)
	}
	return timeoutSrc{}, false
}

// streamed reports whether a body read in a loop is a stream of events
// rather than a download read piece by piece: the function asks for
// text/event-stream or the loop parses SSE fields ("data:", "event:"), or
// the body is decoded value by value (json.Decoder over NDJSON).
func (c *checker) streamed(fnNode ast.Node, loop ast.Node) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(fnNode, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			v := strings.ToLower(n.Value)
			if strings.Contains(v, "text/event-stream") {
				found = true
			}
			if within(n, loop) && (strings.HasPrefix(strings.Trim(v, "\"`"), "data:") || strings.HasPrefix(strings.Trim(v, "\"`"), "event:")) {
				found = true
			}
		case *ast.CallExpr:
			if !within(n, loop) {
				return true
			}
			if sel, ok := astutil.Unparen(n.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Decode" || sel.Sel.Name == "More") {
				t := info.TypeOf(sel.X)
				if p, ok := t.(*types.Pointer); ok {
					t = p.Elem()
				}
				if nt, ok := t.(*types.Named); ok && nt.Obj().Pkg() != nil && nt.Obj().Pkg().Path() == "encoding/json" && nt.Obj().Name() == "Decoder" {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// fieldClientTimeout folds the Timeout of a client held in a struct field
// (c.httpClient): every value the package gives the field must be an
// http.Client literal with the same Timeout. Assignments elsewhere to the
// field's Timeout (an option that changes it) are named in the source, so
// the message says the timeout is the default.
func (c *checker) fieldClientTimeout(sel *ast.SelectorExpr) (timeoutSrc, bool) {
	info := c.pass.TypesInfo
	selection, ok := info.Selections[sel]
	if !ok || selection.Kind() != types.FieldVal {
		return timeoutSrc{}, false
	}
	fld, ok := selection.Obj().(*types.Var)
	if !ok {
		return timeoutSrc{}, false
	}
	isFld := func(e ast.Expr) bool {
		s, ok := astutil.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		sl, ok := info.Selections[s]
		return ok && sl.Obj() == fld
	}
	type val struct {
		e   ast.Expr
		pos token.Pos
	}
	var vals []val
	var overrides []token.Pos
	bad := false
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && info.Uses[id] == fld {
					vals = append(vals, val{n.Value, n.Pos()})
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if isFld(lhs) {
						if len(n.Rhs) != len(n.Lhs) {
							bad = true
							continue
						}
						vals = append(vals, val{n.Rhs[i], n.Pos()})
					}
					if s, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok && s.Sel.Name == "Timeout" && isFld(s.X) {
						overrides = append(overrides, n.Pos())
					}
				}
			}
			return true
		})
	}
	if bad || len(vals) == 0 {
		return timeoutSrc{}, false
	}
	// The literals with a Timeout give the client it is built with; any
	// other value (an option that replaces the client, a literal without a
	// Timeout) is a way to change it, named in the message.
	var out timeoutSrc
	found := false
	// cmp.Or(opts.Client, defaultClient) gives one of its arguments
	// (streamtimeout.go).
	var expanded []val
	for _, v := range vals {
		for _, a := range orArgs(info, v.e) {
			expanded = append(expanded, val{a, v.pos})
		}
	}
	vals = expanded
	for _, v := range vals {
		lit := c.clientLiteral(v.e, 0)
		if lit == nil {
			overrides = append(overrides, v.pos)
			continue
		}
		t, ok := c.literalTimeout(lit)
		if !ok {
			overrides = append(overrides, v.pos)
			continue
		}
		if found && t.d != out.d {
			return timeoutSrc{}, false
		}
		out, found = t, true
	}
	if !found {
		return timeoutSrc{}, false
	}
	if len(overrides) > 0 {
		sort.Slice(overrides, func(i, j int) bool { return overrides[i] < overrides[j] })
		var ps []string
		for _, p := range overrides {
			ps = append(ps, c.short(p))
		}
		out.note = " (the client it is built with; other values are given at " + strings.Join(ps, ", ") + ")"
	}
	return out, true
}

// timeoutKind names the setting a per-request timeout of an SDK call was
// read from: option.WithRequestTimeout(d), or the Timeout of the
// http.Client handed over with option.WithHTTPClient.
func (c *checker) timeoutKind(pos token.Pos) string {
	for _, f := range c.pass.Files {
		if !pos.IsValid() || f.FileStart > pos || pos > f.FileEnd {
			continue
		}
		path, _ := astutil.PathEnclosingInterval(f, pos, pos)
		for _, n := range path {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Timeout" {
					return "http.Client Timeout"
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == 1 {
					if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Timeout" {
						return "http.Client Timeout"
					}
				}
			case *ast.CallExpr:
				if fn := typeutil.StaticCallee(c.pass.TypesInfo, n); fn != nil && fn.Name() == "WithRequestTimeout" {
					return "option.WithRequestTimeout"
				}
			}
		}
	}
	return "per-request timeout"
}
