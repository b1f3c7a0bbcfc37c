package retrytimeout

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// A request may travel inside another value: a client's own Request type
// with a field holding the *http.Request (or a retryablehttp.Request that
// embeds one), set by the package's WithContext. A wait of the retry that
// sends it then ignores the context that field carries. Whether that
// context can be done is read from every write of the field in the
// package: a field only ever built by constructors that take no context
// (http.NewRequest, retryablehttp.NewRequest) or given Background carries a
// context that is never done, and the wait is left alone, as it is when
// the only context in scope is Background. A wait in the operation the loop
// calls (innerDo, which sleeps and answers "retry") names the request by
// that function's parameter.

// carriedRequest returns how the wait at pos names the request the
// layer's attempts send, when that request can carry a caller's context:
// "req" for an *http.Request the operation is handed, "req.request" for
// one held in a field of a value it is handed.
func (c *checker) carriedRequest(l *retrymodel.Layer, pos token.Pos) (string, bool) {
	if l.Body == nil {
		return "", false
	}
	if l.Body.Pos() <= pos && pos < l.Body.End() {
		return "", false // requestInScope's case; a wrapper there is handled below
	}
	info := c.pass.TypesInfo
	name, found := "", false
	ast.Inspect(l.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		callee := typeutil.StaticCallee(info, call)
		decl := c.declOf(callee)
		if decl == nil || decl.Body == nil || pos < decl.Body.Pos() || pos >= decl.Body.End() {
			return true
		}
		params := paramVars(info, decl)
		for i, a := range call.Args {
			id, ok := astutil.Unparen(a).(*ast.Ident)
			if !ok || i >= len(params) || params[i] == nil {
				continue
			}
			v, ok := info.Uses[id].(*types.Var)
			if !ok || l.Body.Pos() <= v.Pos() && v.Pos() < l.Body.End() {
				continue // built afresh in each turn
			}
			if isHTTPRequest(v.Type()) {
				if !c.requestNeverDone(v) {
					name, found = params[i].Name(), true
				}
				continue
			}
			if f := requestField(v.Type()); f != nil && c.fieldCarriesLive(f) {
				name, found = params[i].Name()+"."+f.Name(), true
			}
		}
		return !found
	})
	return name, found
}

// wrappedRequest is carriedRequest for a wait inside the loop body: a
// value built before the loop and handed to each attempt, whose field
// holds the request.
func (c *checker) wrappedRequest(l *retrymodel.Layer, pos token.Pos) (string, bool) {
	scope := c.pass.Pkg.Scope().Innermost(pos)
	if scope == nil || l.Body == nil {
		return "", false
	}
	info := c.pass.TypesInfo
	name, found := "", false
	ast.Inspect(l.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		for _, a := range call.Args {
			// do(req) or client.Do(req.request)
			a = astutil.Unparen(a)
			if sel, ok := a.(*ast.SelectorExpr); ok {
				a = sel.X
			}
			id, ok := astutil.Unparen(a).(*ast.Ident)
			if !ok {
				continue
			}
			v, ok := info.Uses[id].(*types.Var)
			if !ok || l.Body.Pos() <= v.Pos() && v.Pos() < l.Body.End() {
				continue
			}
			if _, obj := scope.LookupParent(v.Name(), pos); obj != v {
				continue
			}
			if f := requestField(v.Type()); f != nil && c.fieldCarriesLive(f) {
				name, found = v.Name()+"."+f.Name(), true
			}
		}
		return !found
	})
	return name, found
}

// requestField returns the field of a (pointer to a) struct type that holds
// the request: an *http.Request, or a pointer to a struct that embeds one.
func requestField(t types.Type) *types.Var {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := types.Unalias(t).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if isHTTPRequest(f.Type()) || embedsRequest(f.Type()) {
			return f
		}
	}
	return nil
}

func embedsRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	st, ok := types.Unalias(p.Elem()).Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() && isHTTPRequest(f.Type()) {
			return true
		}
	}
	return false
}

// fieldCarriesLive reports a request field of this package at least one of
// whose writes can carry a context that may be done. A field of another
// package, or one never written here, is not followed.
func (c *checker) fieldCarriesLive(f *types.Var) bool {
	if f.Pkg() != c.pass.Pkg {
		return false
	}
	info := c.pass.TypesInfo
	live := false
	for _, file := range c.pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			if live {
				return false
			}
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr)
					if !ok || info.Uses[sel.Sel] != f {
						continue
					}
					var val ast.Expr
					switch {
					case len(n.Rhs) == len(n.Lhs):
						val = n.Rhs[i]
					case len(n.Rhs) == 1 && i == 0:
						val = n.Rhs[0] // req.request, err = retryablehttp.NewRequest(...)
					}
					if val == nil || !c.requestNeverDoneExpr(val) {
						live = true
					}
				}
			case *ast.CompositeLit:
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if id, ok := kv.Key.(*ast.Ident); ok && info.Uses[id] == f && !c.requestNeverDoneExpr(kv.Value) {
						live = true
					}
				}
			}
			return !live
		})
	}
	return live
}

// requestNeverDoneExpr reports a request value that carries a context
// that can never be done: a call with no context argument and no request
// argument or receiver (http.NewRequest, retryablehttp.NewRequest), or one
// whose context arguments are all never done (NewRequestWithContext(
// context.Background(), ...), r.WithContext(context.TODO())).
func (c *checker) requestNeverDoneExpr(e ast.Expr) bool {
	return c.requestNeverDoneIn(e, map[*types.Var]bool{})
}

func (c *checker) requestNeverDoneIn(e ast.Expr, seen map[*types.Var]bool) bool {
	info := c.pass.TypesInfo
	if id, ok := astutil.Unparen(e).(*ast.Ident); ok {
		// r, err := http.NewRequestWithContext(...); &T{req: r}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || v.IsField() || v.Parent() == nil || v.Parent() == c.pass.Pkg.Scope() || seen[v] {
			return false
		}
		seen[v] = true
		vals := c.tupleValuesOf(v)
		if len(vals) == 0 {
			return false // a parameter: whatever the caller gave
		}
		for _, val := range vals {
			if val == nil || !c.requestNeverDoneIn(val, seen) {
				return false
			}
		}
		return true
	}
	call, ok := astutil.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := typeutil.StaticCallee(info, call)
	if fn == nil {
		return false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil {
		return false
	}
	replaces := false // WithContext(ctx): the result carries ctx, not the receiver's
	for _, a := range call.Args {
		t := info.TypeOf(a)
		switch {
		case t != nil && retrymodel.IsContext(t):
			if !c.neverDone(a, map[*types.Var]bool{}) {
				return false
			}
			replaces = true
		case t != nil && (isHTTPRequest(t) || embedsRequest(t)):
			return false
		}
	}
	if sig.Recv() != nil && !replaces {
		return false
	}
	return true
}

// declOf finds the declaration of a function of this package (the
// model's index).
func (c *checker) declOf(fn *types.Func) *ast.FuncDecl {
	if fn == nil {
		return nil
	}
	return c.res.Decl(fn.Origin())
}

// paramVars lists a declaration's parameters in order (nil for a blank or
// unnamed one).
func paramVars(info *types.Info, fd *ast.FuncDecl) []*types.Var {
	var out []*types.Var
	for _, field := range fd.Type.Params.List {
		if len(field.Names) == 0 {
			out = append(out, nil)
			continue
		}
		for _, id := range field.Names {
			v, _ := info.Defs[id].(*types.Var)
			out = append(out, v)
		}
	}
	return out
}

// tupleValuesOf is valuesOf that also takes the call of a tuple
// assignment as the value of its first variable (r, err := f()); nil
// for a value not followed.
func (c *checker) tupleValuesOf(v *types.Var) []ast.Expr {
	var out []ast.Expr
	for _, f := range c.pass.Files {
		if f.Pos() > v.Pos() || v.Pos() > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for i, lhs := range as.Lhs {
				id, ok := astutil.Unparen(lhs).(*ast.Ident)
				if !ok || c.pass.TypesInfo.ObjectOf(id) != v {
					continue
				}
				switch {
				case len(as.Rhs) == len(as.Lhs):
					out = append(out, as.Rhs[i])
				case len(as.Rhs) == 1 && i == 0:
					out = append(out, as.Rhs[0])
				default:
					out = append(out, nil)
				}
			}
			return true
		})
	}
	return out
}
