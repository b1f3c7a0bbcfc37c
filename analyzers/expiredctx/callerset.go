package expiredctx

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
)

// This file finds the deadlines a function's callers put on its context:
//
//	func (s *Scheduler) runJob(parent context.Context, j Job) {
//		ctx, cancel := context.WithTimeout(parent, s.timeout)
//		defer cancel()
//		s.execute(ctx, j) // execute's ctx has runJob's deadline
//	}
//
// A job wrapper sets the deadline and another function records the
// outcome; that function sees only a ctx parameter. Its deadline is known
// when every call of the function is in sight and each one hands it a
// context its caller gave a deadline: an unexported function that is only
// ever called, never taken as a value, and not a method an interface of
// the package could call. One caller without a deadline, or one not in
// sight, and nothing is known.

// callerSets returns, for each function declaration whose context
// parameter has a deadline set by every caller, that deadline as a ctxSet
// of the parameter (by names the caller, pos is the caller's set).
func (c *checker) callerSets() map[ast.Node][]ctxSet {
	if c.byCaller != nil {
		return c.byCaller
	}
	c.byCaller = make(map[ast.Node][]ctxSet)
	c.frameworkSets(c.byCaller) // framework.go: a river worker's Work
	decls := make(map[*types.Func]*ast.FuncDecl)
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && !fd.Name.IsExported() {
				if fn, ok := c.info.Defs[fd.Name].(*types.Func); ok && ctxParam(fn.Signature()) >= 0 {
					decls[fn] = fd
				}
			}
		}
	}
	if len(decls) == 0 {
		return c.byCaller
	}
	ifaceMeths := make(map[string]bool) // unexported methods an interface of the package declares
	for _, obj := range c.info.Defs {
		if fn, ok := obj.(*types.Func); ok {
			if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
				ifaceMeths[fn.Name()] = true
			}
		}
	}
	type site struct {
		call  *ast.CallExpr
		funcs []ast.Node // the enclosing functions, innermost first
	}
	calls := make(map[*types.Func][]site)
	callee := make(map[*ast.Ident]bool) // idents that name the function called
	c.insp.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		call := n.(*ast.CallExpr)
		fn := typeutil.StaticCallee(c.info, call)
		if fn == nil || decls[fn.Origin()] == nil {
			return true
		}
		switch f := astutil.Unparen(call.Fun).(type) {
		case *ast.Ident:
			callee[f] = true
		case *ast.SelectorExpr:
			callee[f.Sel] = true
		}
		var funcs []ast.Node
		for i := len(stack) - 1; i >= 0; i-- {
			switch stack[i].(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				funcs = append(funcs, stack[i])
			}
		}
		calls[fn.Origin()] = append(calls[fn.Origin()], site{call, funcs})
		return true
	})
	escaped := make(map[*types.Func]bool)
	for id, obj := range c.info.Uses {
		if fn, ok := obj.(*types.Func); ok && decls[fn.Origin()] != nil && !callee[id] {
			escaped[fn.Origin()] = true // a method value, a func value: callers not in sight
		}
	}
	setsIn := make(map[ast.Node][]ctxSet)
	deadlines := func(fnNode ast.Node) []ctxSet {
		if s, ok := setsIn[fnNode]; ok {
			return s
		}
		var out []ctxSet
		inspectOwn(fnBody(fnNode), func(n ast.Node) {
			if as, ok := n.(*ast.AssignStmt); ok {
				if s, ok := c.ctxSetOf(as); ok && s.deadline && !s.ref.Sel {
					out = append(out, s)
				}
			}
		})
		setsIn[fnNode] = out
		return out
	}
	for fn, fd := range decls {
		sites := calls[fn]
		if len(sites) == 0 || escaped[fn] || fn.Signature().Recv() != nil && ifaceMeths[fn.Name()] {
			continue
		}
		i := ctxParam(fn.Signature())
		var first *ctxSet
		var by string
		durs := make(map[string]bool)
		all := true
		for _, st := range sites {
			if i >= len(st.call.Args) || st.call.Ellipsis.IsValid() {
				all = false
				break
			}
			s, name := c.callerDeadline(st.call.Args[i], st.call.Pos(), st.funcs, deadlines)
			if s == nil {
				all = false
				break
			}
			durs[s.dur] = true
			if first == nil || s.pos < first.pos {
				first, by = s, name
			}
		}
		if !all || first == nil {
			continue
		}
		param := fn.Signature().Params().At(i)
		if param.Name() == "" || param.Name() == "_" {
			continue
		}
		dur := first.dur
		if len(durs) != 1 {
			dur = "" // callers differ: the deadline is not one number
		}
		c.byCaller[fd] = append(c.byCaller[fd], ctxSet{
			ref: effects.Ref{V: param, Text: param.Name()}, pos: fd.Body.Lbrace,
			deadline: true, dur: dur, by: by, setAt: first.pos,
		})
	}
	return c.byCaller
}

// callerDeadline finds the deadline set in one of funcs (innermost first)
// that arg, given at pos, descends from; with the name of the function
// that sets it.
func (c *checker) callerDeadline(arg ast.Expr, pos token.Pos, funcs []ast.Node, deadlines func(ast.Node) []ctxSet) (*ctxSet, string) {
	for _, f := range funcs {
		for _, s := range deadlines(f) {
			if s.pos < pos && c.flow.Descends(arg, s.ref, pos, s.pos, 0) {
				s := s
				return &s, funcName(f)
			}
		}
	}
	return nil, ""
}

func fnBody(n ast.Node) *ast.BlockStmt {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return n.Body
	case *ast.FuncLit:
		return n.Body
	}
	return nil
}

func funcName(n ast.Node) string {
	if fd, ok := n.(*ast.FuncDecl); ok {
		return fd.Name.Name
	}
	return "a function literal"
}
