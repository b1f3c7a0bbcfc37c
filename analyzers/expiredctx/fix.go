package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/effects"
)

// fix builds the suggested fix: before the statement holding the call,
//
//	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
//	defer cancel()
//
// and cctx in place of the context argument. Not offered for a direct defer
// or go statement (the timeout would start too early, or the cancel end
// the goroutine's work), before Go 1.21 (no WithoutCancel), or when the
// statement starts before the expired region.
//
// Nor where the expired context is one the function cancels itself (made
// by WithTimeout, WithDeadline or WithCancel here) or one made afresh on
// each turn of a loop: that is a per-attempt context the code times out on
// purpose, and detaching a write from it changes what the loop does (and
// piles a defer up per turn). The finding stands; only the edit is withheld.
func (c *checker) fix(f *ast.File, w *effects.Write, e *expiry) (analysis.SuggestedFix, bool) {
	if v := c.info.FileVersions[f]; v != "" && version.Compare(v, "go1.21") < 0 {
		return analysis.SuggestedFix{}, false
	}
	path, _ := astutil.PathEnclosingInterval(f, w.Call.Pos(), w.Call.End())
	if c.ownContext(path, e.ctx) && (e.bounded == nil || loopAround(path, e.after)) {
		// A context made here on purpose; but a write after a failure under
		// a deadline made once (bounded.go) detaches from it as it should.
		return analysis.SuggestedFix{}, false
	}
	var stmt ast.Stmt
	var list ast.Node
	for i, n := range path {
		switch n := n.(type) {
		case *ast.DeferStmt:
			if n.Call == w.Call {
				return analysis.SuggestedFix{}, false
			}
		case *ast.GoStmt:
			if n.Call == w.Call {
				return analysis.SuggestedFix{}, false
			}
		}
		if i+1 < len(path) {
			switch path[i+1].(type) {
			case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
				if s, ok := n.(ast.Stmt); ok {
					stmt, list = s, path[i+1]
				}
			}
		}
		if stmt != nil {
			break
		}
	}
	if stmt == nil || stmt.Pos() < e.start {
		return analysis.SuggestedFix{}, false
	}
	src, err := c.pass.ReadFile(c.pass.Fset.File(f.Pos()).Name())
	if err != nil {
		return analysis.SuggestedFix{}, false
	}
	tf := c.pass.Fset.File(stmt.Pos())
	off := tf.Offset(stmt.Pos())
	lineStart := off
	for lineStart > 0 && src[lineStart-1] != '\n' {
		lineStart--
	}
	indent := string(src[lineStart:off])
	for _, r := range indent {
		if r != ' ' && r != '\t' {
			indent = "\t"
			break
		}
	}
	arg := w.Ctx
	argText := string(src[tf.Offset(arg.Pos()):tf.Offset(arg.End())])

	if c.fixed[list] == nil {
		c.fixed[list] = make(map[string]bool)
	}
	scope := c.pass.Pkg.Scope().Innermost(stmt.Pos())
	taken := func(name string) bool {
		if c.fixed[list][name] {
			return true
		}
		if scope == nil {
			return false
		}
		if scope.Lookup(name) != nil {
			return true
		}
		_, obj := scope.LookupParent(name, stmt.Pos())
		return obj != nil
	}
	pick := func(names ...string) string {
		for _, n := range names {
			if !taken(n) {
				c.fixed[list][n] = true
				return n
			}
		}
		for i := 2; ; i++ {
			n := names[0] + strconv.Itoa(i)
			if !taken(n) {
				c.fixed[list][n] = true
				return n
			}
		}
	}
	cctx := pick("cctx", "cleanupCtx")
	cancel := pick("cancel", "cancelCleanup")

	var edits []analysis.TextEdit
	ctxPkg, ok := importName(f, "context")
	if !ok {
		edits = append(edits, addImport(f, "context"))
	}
	timePkg, ok := importName(f, "time")
	if !ok {
		edits = append(edits, addImport(f, "time"))
	}
	// The package names must mean the packages where the lines go in.
	for _, name := range []string{ctxPkg, timePkg} {
		if scope != nil {
			if _, obj := scope.LookupParent(name, stmt.Pos()); obj != nil {
				if _, ok := obj.(*types.PkgName); !ok {
					return analysis.SuggestedFix{}, false
				}
			}
		}
	}
	timeout := timePkg + ".Second"
	insert := fmt.Sprintf("%s, %s := %s.WithTimeout(%s.WithoutCancel(%s), 5*%s)\n%sdefer %s()\n%s",
		cctx, cancel, ctxPkg, ctxPkg, argText, timeout, indent, cancel, indent)
	edits = append(edits,
		analysis.TextEdit{Pos: stmt.Pos(), End: stmt.Pos(), NewText: []byte(insert)},
		analysis.TextEdit{Pos: arg.Pos(), End: arg.End(), NewText: []byte(cctx)},
	)
	return analysis.SuggestedFix{
		Message:   fmt.Sprintf("Run the %s on context.WithoutCancel(%s) with a 5s timeout", w.Kind, argText),
		TextEdits: edits,
	}, true
}

// importName returns the name under which f imports path.
func importName(f *ast.File, path string) (string, bool) {
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p != path {
			continue
		}
		if imp.Name == nil {
			return path, true
		}
		if imp.Name.Name != "_" && imp.Name.Name != "." {
			return imp.Name.Name, true
		}
	}
	return path, false
}

// addImport inserts an import of a standard package in sorted position.
func addImport(f *ast.File, path string) analysis.TextEdit {
	quoted := strconv.Quote(path)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if !gd.Lparen.IsValid() {
			return analysis.TextEdit{Pos: gd.End(), End: gd.End(), NewText: []byte("\nimport " + quoted)}
		}
		var lastStd ast.Spec
		for _, s := range gd.Specs {
			is := s.(*ast.ImportSpec)
			if strings.Contains(strings.SplitN(is.Path.Value, "/", 2)[0], ".") {
				continue // not the standard library
			}
			if is.Path.Value > quoted {
				return analysis.TextEdit{Pos: is.Pos(), End: is.Pos(), NewText: []byte(quoted + "\n\t")}
			}
			lastStd = s
		}
		if lastStd == nil {
			first := gd.Specs[0]
			return analysis.TextEdit{Pos: first.Pos(), End: first.Pos(), NewText: []byte(quoted + "\n\n\t")}
		}
		return analysis.TextEdit{Pos: lastStd.End(), End: lastStd.End(), NewText: []byte("\n\t" + quoted)}
	}
	return analysis.TextEdit{Pos: f.Name.End(), End: f.Name.End(), NewText: []byte("\n\nimport " + quoted)}
}

// ownContext reports whether r is a local context that the function
// enclosing path derives with a cancellation of its own, or declares inside
// a loop.
func (c *checker) ownContext(path []ast.Node, r effects.Ref) bool {
	if r.V == nil || r.Sel {
		return false // a field: the context of whoever built the value
	}
	var body *ast.BlockStmt
	for _, n := range path {
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
	}
	if body == nil || r.V.Pos() < body.Pos() || r.V.Pos() >= body.End() {
		return false // a parameter or a package variable
	}
	own := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Pos() <= r.V.Pos() && r.V.Pos() < n.End() {
				own = true
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, ok := astutil.Unparen(l).(*ast.Ident)
				if !ok || (c.info.Defs[id] != r.V && c.info.Uses[id] != r.V) {
					continue
				}
				rhs := n.Rhs[0]
				if len(n.Rhs) == len(n.Lhs) {
					rhs = n.Rhs[i]
				}
				if call, ok := astutil.Unparen(rhs).(*ast.CallExpr); ok && cancels(c.info, call) {
					own = true
				}
			}
		}
		return !own
	})
	return own
}

// cancels reports whether call is one of the context constructors that
// hand back a cancellation (or a deadline) owned by the caller.
func cancels(info *types.Info, call *ast.CallExpr) bool {
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
		return false
	}
	switch fn.Name() {
	case "WithTimeout", "WithDeadline", "WithCancel", "WithTimeoutCause", "WithDeadlineCause", "WithCancelCause":
		return true
	}
	return false
}

// loopAround reports whether a loop of the function enclosing path (the
// path of a node, innermost first) contains pos: a context made there is
// made afresh on each turn.
func loopAround(path []ast.Node, pos token.Pos) bool {
	for _, n := range path {
		switch n := n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Pos() <= pos && pos < n.End() {
				return true
			}
		}
	}
	return false
}
