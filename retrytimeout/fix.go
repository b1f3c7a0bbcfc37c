package retrytimeout

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// selectEdit rewrites the wait statement w.stmt into a select on
// ctx.Done() and time.After. It gives up (ok false) when the rewrite would
// not be type-correct: the enclosing function has results and the last is
// not an error, a result's zero value cannot be written in this file, or a
// name the rewrite uses is shadowed at the wait.
func (c *checker) selectEdit(w waitSite) (analysis.TextEdit, bool) {
	if w.stmt == nil || w.dur == nil || w.timePkg == "" || w.src.Done == "" {
		return analysis.TextEdit{}, false
	}
	pos := w.stmt.Pos()
	scope := c.pass.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return analysis.TextEdit{}, false
	}
	if _, obj := scope.LookupParent(w.timePkg, pos); obj == nil {
		return analysis.TextEdit{}, false
	} else if pn, ok := obj.(*types.PkgName); !ok || pn.Imported().Path() != "time" {
		return analysis.TextEdit{}, false
	}
	file := c.fileOf(pos)
	if file == nil {
		return analysis.TextEdit{}, false
	}
	_, sig := c.enclosingFunc(pos)
	if sig == nil {
		return analysis.TextEdit{}, false
	}
	ret, ok := c.cancelReturn(sig, file, scope, pos, w.src.Err)
	if !ok {
		return analysis.TextEdit{}, false
	}
	src, indent, ok := c.source(w.stmt, w.dur)
	if !ok {
		return analysis.TextEdit{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "select {\n")
	fmt.Fprintf(&b, "%scase <-%s:\n", indent, w.src.Done)
	fmt.Fprintf(&b, "%s\t%s\n", indent, ret)
	fmt.Fprintf(&b, "%scase <-%s.After(%s):\n", indent, w.timePkg, src)
	fmt.Fprintf(&b, "%s}", indent)
	return analysis.TextEdit{Pos: w.stmt.Pos(), End: w.stmt.End(), NewText: []byte(b.String())}, true
}

// cancelReturn builds the return statement for a cancelled wait: the
// function's named results as they stand (or zero values) and ctx.Err()
// (errExpr) in the final error result; a bare return for a function
// without results.
func (c *checker) cancelReturn(sig *types.Signature, file *ast.File, scope *types.Scope, pos token.Pos, errExpr string) (string, bool) {
	res := sig.Results()
	if res.Len() == 0 {
		return "return", true
	}
	last := res.At(res.Len() - 1)
	if errExpr == "" || !types.Identical(last.Type(), types.Universe.Lookup("error").Type()) {
		return "", false
	}
	var parts []string
	for i := 0; i < res.Len()-1; i++ {
		r := res.At(i)
		if r.Name() != "" && r.Name() != "_" {
			if _, obj := scope.LookupParent(r.Name(), pos); obj == r {
				parts = append(parts, r.Name())
				continue
			}
		}
		z, ok := c.zeroValue(r.Type(), file, scope, pos)
		if !ok {
			return "", false
		}
		parts = append(parts, z)
	}
	parts = append(parts, errExpr)
	return "return " + strings.Join(parts, ", "), true
}

// zeroValue writes the zero value of t as it can be spelled at pos in file.
func (c *checker) zeroValue(t types.Type, file *ast.File, scope *types.Scope, pos token.Pos) (string, bool) {
	if tp, ok := t.(*types.TypeParam); ok {
		name := tp.Obj().Name()
		if _, obj := scope.LookupParent(name, pos); obj != tp.Obj() {
			return "", false
		}
		return "*new(" + name + ")", true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return "false", true
		case u.Info()&types.IsNumeric != 0:
			return "0", true
		case u.Info()&types.IsString != 0:
			return `""`, true
		case u.Kind() == types.UnsafePointer:
			return "nil", true
		}
		return "", false
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		return "nil", true
	case *types.Struct, *types.Array:
		ok := true
		s := types.TypeString(t, func(p *types.Package) string {
			name, found := c.importName(p, file, scope, pos)
			if !found {
				ok = false
			}
			return name
		})
		if !ok {
			return "", false
		}
		return s + "{}", true
	}
	return "", false
}

// importName returns the name by which file refers to package p at pos
// ("" for the package itself or a dot import).
func (c *checker) importName(p *types.Package, file *ast.File, scope *types.Scope, pos token.Pos) (string, bool) {
	if p == c.pass.Pkg {
		return "", true
	}
	for _, spec := range file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path != p.Path() {
			continue
		}
		name := p.Name()
		if spec.Name != nil {
			name = spec.Name.Name
		}
		switch name {
		case "_":
			continue
		case ".":
			return "", true
		}
		if _, obj := scope.LookupParent(name, pos); obj != nil {
			if pn, ok := obj.(*types.PkgName); ok && pn.Imported() == p {
				return name, true
			}
		}
	}
	return "", false
}

func (c *checker) fileOf(pos token.Pos) *ast.File {
	for _, f := range c.pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}

// source returns the text of dur as written and the indentation of the
// line stmt starts on (only when stmt is the first thing on its line).
func (c *checker) source(stmt ast.Stmt, dur ast.Expr) (string, string, bool) {
	tf := c.pass.Fset.File(stmt.Pos())
	if tf == nil {
		return "", "", false
	}
	content, err := c.pass.ReadFile(tf.Name())
	if err != nil {
		return "", "", false
	}
	start := tf.Offset(stmt.Pos())
	lineStart := tf.Offset(tf.LineStart(tf.Line(stmt.Pos())))
	if start > len(content) || lineStart > start {
		return "", "", false
	}
	indent := content[lineStart:start]
	if len(bytes.TrimLeft(indent, " \t")) != 0 {
		return "", "", false
	}
	ds, de := tf.Offset(dur.Pos()), tf.Offset(dur.End())
	if ds > de || de > len(content) {
		return "", "", false
	}
	return string(content[ds:de]), string(indent), true
}
