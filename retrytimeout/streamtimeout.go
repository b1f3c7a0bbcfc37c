package retrytimeout

import (
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/durconst"
)

// This file extends the total-timeout-on-a-stream finding (streaming.go)
// to bodies read by a helper the request hands them to, to transfers that
// report their progress as they read (long by their author's own
// account), and to timeouts whose value is a config default copied into
// the client's field.

// bodyLoop finds the loop that reads resp.Body piece by piece: in fnNode
// itself, or in a function of the package that fnNode hands the body to
// (d.save(ctx, blob, resp.Body) -> d.copy(ctx, f, r, h) -> r.Read in a
// loop), and the function it is in.
func (c *checker) bodyLoop(resp *types.Var, fnNode ast.Node, after token.Pos) (ast.Node, ast.Node) {
	return c.readerLoopVia(c.isBodyOf(resp), fnNode, after, 0)
}

func (c *checker) readerLoopVia(isSrc func(ast.Expr) bool, fnNode ast.Node, after token.Pos, depth int) (ast.Node, ast.Node) {
	if loop := c.readerLoop(isSrc, fnNode, after); loop != nil {
		return loop, fnNode
	}
	if depth >= 3 {
		return nil, nil
	}
	var loop, in ast.Node
	ast.Inspect(fnNode, func(n ast.Node) bool {
		if loop != nil {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Pos() < after {
			return true
		}
		fn := typeutil.StaticCallee(c.pass.TypesInfo, call)
		if fn == nil {
			return true
		}
		decl := c.res.Decl(fn.Origin())
		if decl == nil || decl.Body == nil {
			return true
		}
		sig := fn.Type().(*types.Signature)
		for i, a := range call.Args {
			if !isSrc(a) || i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
				continue
			}
			param := paramVar(c.pass.TypesInfo, decl, i)
			if param == nil {
				continue
			}
			isParam := func(e ast.Expr) bool {
				id, ok := astutil.Unparen(e).(*ast.Ident)
				return ok && c.pass.TypesInfo.Uses[id] == param
			}
			if l, f := c.readerLoopVia(isParam, decl, decl.Body.Pos(), depth+1); l != nil {
				loop, in = l, f
				return false
			}
		}
		return true
	})
	return loop, in
}

// paramVar is the i-th parameter of a declaration.
func paramVar(info *types.Info, decl *ast.FuncDecl, i int) *types.Var {
	k := 0
	for _, f := range decl.Type.Params.List {
		names := f.Names
		if len(names) == 0 {
			if k == i {
				return nil // unnamed: never read
			}
			k++
			continue
		}
		for _, id := range names {
			if k == i {
				v, _ := info.Defs[id].(*types.Var)
				return v
			}
			k++
		}
	}
	return nil
}

// reportsProgress reports a loop that tells someone how far the transfer
// has come as it reads: it hands the byte count a Read returned (or a
// total of them) to a callback, directly or through a method of the
// package that calls one, as a progress tracker's add does. Whoever wrote
// that expects the body to take long to arrive; a body read in a loop
// with no such report (lines handed on one by one, a buffer filled) is
// not known to be long, and stays with streamed's event markers.
func (c *checker) reportsProgress(loop ast.Node) bool {
	info := c.pass.TypesInfo
	counts := make(map[*types.Var]bool)
	ast.Inspect(loop, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		if len(as.Rhs) == 1 && len(as.Lhs) >= 1 {
			if call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
				if sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Read" && len(call.Args) == 1 {
					if id, ok := as.Lhs[0].(*ast.Ident); ok {
						if v := c.identVar(id); v != nil {
							counts[v] = true
						}
					}
				}
			}
		}
		return true
	})
	if len(counts) == 0 {
		return false
	}
	// Totals of the counts: total += n.
	ast.Inspect(loop, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || (as.Tok != token.ADD_ASSIGN && as.Tok != token.ASSIGN) {
			return true
		}
		if id, ok := as.Lhs[0].(*ast.Ident); ok && c.mentions(as.Rhs[0], counts) {
			if v := c.identVar(id); v != nil {
				counts[v] = true
			}
		}
		return true
	})
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		counted := false
		for _, a := range call.Args {
			counted = counted || c.mentions(a, counts)
		}
		if !counted {
			return true
		}
		if c.callsFuncValue(call) {
			found = true
			return false
		}
		if fn := typeutil.StaticCallee(info, call); fn != nil {
			if decl := c.res.Decl(fn.Origin()); decl != nil && decl.Body != nil {
				ast.Inspect(decl.Body, func(m ast.Node) bool {
					if inner, ok := m.(*ast.CallExpr); ok && c.callsFuncValue(inner) {
						found = true
					}
					return !found
				})
			}
		}
		return !found
	})
	return found
}

// mentions reports whether e is one of vs, converted or in arithmetic
// (int64(n), total+n): a count, not data sliced with it (buf[:n]).
func (c *checker) mentions(e ast.Expr, vs map[*types.Var]bool) bool {
	info := c.pass.TypesInfo
	switch x := astutil.Unparen(e).(type) {
	case *ast.Ident:
		v, ok := info.Uses[x].(*types.Var)
		return ok && vs[v]
	case *ast.CallExpr:
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return c.mentions(x.Args[0], vs)
		}
	case *ast.BinaryExpr:
		return c.mentions(x.X, vs) || c.mentions(x.Y, vs)
	}
	return false
}

// callsFuncValue reports a call of a function value: not a declared
// function or method, not an interface method, not a conversion.
func (c *checker) callsFuncValue(call *ast.CallExpr) bool {
	info := c.pass.TypesInfo
	if tv, ok := info.Types[call.Fun]; !ok || tv.IsType() || tv.IsBuiltin() {
		return false
	}
	if _, ok := info.TypeOf(call.Fun).Underlying().(*types.Signature); !ok {
		return false
	}
	switch f := astutil.Unparen(call.Fun).(type) {
	case *ast.Ident:
		v, ok := info.Uses[f].(*types.Var)
		return ok && v != nil
	case *ast.SelectorExpr:
		sel, ok := info.Selections[f]
		return ok && sel.Kind() == types.FieldVal
	}
	return false
}

// funcNodeName names a function node for a message.
func (c *checker) funcNodeName(n ast.Node) string {
	if fd, ok := n.(*ast.FuncDecl); ok {
		if fn, ok := c.pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
			return shortFuncName(fn)
		}
		return fd.Name.Name
	}
	return "a function literal"
}

// shortFuncName renders pkg.F or pkg.(*T).M.
func shortFuncName(fn *types.Func) string {
	name := fn.Name()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		ptr := ""
		if p, ok := t.(*types.Pointer); ok {
			t, ptr = p.Elem(), "*"
		}
		if n, ok := t.(*types.Named); ok {
			recv := n.Obj().Name()
			if ptr != "" {
				recv = "(*" + recv + ")"
			}
			name = recv + "." + name
		}
	}
	if fn.Pkg() != nil {
		name = fn.Pkg().Name() + "." + name
	}
	return name
}

// orArgs returns the values e can give: the arguments of cmp.Or(a, b, ...)
// (the first non-zero of them), else e itself.
func orArgs(info *types.Info, e ast.Expr) []ast.Expr {
	if call, ok := astutil.Unparen(e).(*ast.CallExpr); ok {
		if fn := typeutil.StaticCallee(info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "cmp" && fn.Name() == "Or" && !call.Ellipsis.IsValid() {
			return call.Args
		}
	}
	return []ast.Expr{e}
}

// copiedDefault folds a timeout the code computes from a config value it
// defaults: time.Duration(g.timeout) * time.Second where every value the
// package gives g.timeout is a read of o.Timeout, whose default is 30
// (`if o.Timeout == 0 { o.Timeout = 30 }`). It returns the value and a note
// that says it is a default and where it is set.
func (c *checker) copiedDefault(e ast.Expr) (time.Duration, string, bool) {
	n, fld, of, why, ok := c.scaledDefault(e, 0)
	if !ok || fld == nil {
		return 0, "", false
	}
	note := " (default of " + of
	if why.At.IsValid() {
		note += ", set at " + c.short(why.At)
	}
	note += "; the program may set another)"
	return time.Duration(n), note, true
}

func (c *checker) scaledDefault(e ast.Expr, depth int) (int64, *types.Var, string, durconst.Why, bool) {
	info := c.pass.TypesInfo
	if depth > 4 {
		return 0, nil, "", durconst.Why{}, false
	}
	e = astutil.Unparen(e)
	switch x := e.(type) {
	case *ast.CallExpr: // time.Duration(n)
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return c.scaledDefault(x.Args[0], depth+1)
		}
	case *ast.BinaryExpr: // n * time.Second
		if x.Op != token.MUL {
			break
		}
		for _, side := range [][2]ast.Expr{{x.X, x.Y}, {x.Y, x.X}} {
			if k, ok := c.res.Folder.Int(side[1]); ok {
				if n, fld, of, why, ok := c.scaledDefault(side[0], depth+1); ok {
					return n * k, fld, of, why, true
				}
			}
		}
	case *ast.SelectorExpr:
		fld, of := c.res.Folder.FieldOf(x)
		if fld == nil {
			break
		}
		return c.fieldDefaultVia(fld, of, 0)
	}
	return 0, nil, "", durconst.Why{}, false
}

// fieldDefaultVia returns a field's default, or the default of the one
// other field every value the package gives it is copied from.
func (c *checker) fieldDefaultVia(fld *types.Var, of string, depth int) (int64, *types.Var, string, durconst.Why, bool) {
	if d, why, ok := c.res.Folder.FieldDefault(fld, of); ok {
		return int64(d), fld, why.Of, why, true
	}
	if depth > 2 {
		return 0, nil, "", durconst.Why{}, false
	}
	info := c.pass.TypesInfo
	var from *types.Var
	var fromOf string
	bad, seen := false, false
	give := func(v ast.Expr) {
		seen = true
		src, text := c.res.Folder.FieldOf(v)
		if src == nil || src == fld || from != nil && src != from {
			bad = true
			return
		}
		from, fromOf = src, text
	}
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && info.Uses[id] == fld {
					give(n.Value)
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if got, _ := c.res.Folder.FieldOf(lhs); got == fld {
						if len(n.Rhs) != len(n.Lhs) {
							bad = true
							continue
						}
						give(n.Rhs[i])
					}
				}
			}
			return true
		})
	}
	if bad || !seen || from == nil {
		return 0, nil, "", durconst.Why{}, false
	}
	return c.fieldDefaultVia(from, fromOf, depth+1)
}
