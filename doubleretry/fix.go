package doubleretry

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// fix returns the one-edit fix for a chain that is a single openai or
// anthropic SDK call whose client was built in this package: turn the
// SDK's own retries off where the client is built (or set the count the
// code already writes to 0), so the outer layer owns the policy.
func (c *checker) fix(chain retrymodel.Chain) []analysis.SuggestedFix {
	if len(chain.Layers) != 1 {
		return nil // more than one edit: which layers to drop is a choice
	}
	li := chain.Layers[0]
	sdk := c.byPosn[li.Posn]
	if sdk == nil || sdk.Kind != retrymodel.SDK || li.Assumed {
		return nil
	}
	if v := vendorOf(c.pass.TypesInfo, li, sdk); v != openai && v != anthropic {
		return nil
	}
	const msg = "Turn the SDK's own retries off: option.WithMaxRetries(0)"
	// The code writes the count already: set it to 0.
	if a := sdk.Policy.Attempts; a.Set && !a.Default && a.Pos.IsValid() {
		if call := c.callAt(a.Pos, isWithMaxRetries); call != nil && len(call.Args) == 1 {
			return []analysis.SuggestedFix{{
				Message:   msg,
				TextEdits: []analysis.TextEdit{{Pos: call.Args[0].Pos(), End: call.Args[0].End(), NewText: []byte("0")}},
			}}
		}
		return nil
	}
	if !sdk.ClientPos.IsValid() {
		return nil
	}
	ctor := c.callAt(sdk.ClientPos, isNewClient)
	if ctor == nil || ctor.Ellipsis.IsValid() {
		return nil
	}
	file := c.fileOf(ctor.Pos())
	fn := typeutil.StaticCallee(c.pass.TypesInfo, ctor)
	if file == nil || fn == nil {
		return nil
	}
	optPath := fn.Pkg().Path() + "/option"
	name, edits := c.importName(file, optPath)
	if name == "" {
		return nil
	}
	// The name must mean the option package where the argument goes.
	if scope := c.pass.Pkg.Scope().Innermost(ctor.Pos()); scope != nil {
		if _, obj := scope.LookupParent(name, ctor.Pos()); obj != nil {
			if pn, ok := obj.(*types.PkgName); !ok || pn.Imported().Path() != optPath {
				return nil
			}
		}
	}
	arg := name + ".WithMaxRetries(0)"
	if n := len(ctor.Args); n > 0 {
		edits = append(edits, analysis.TextEdit{Pos: ctor.Args[n-1].End(), End: ctor.Args[n-1].End(), NewText: []byte(", " + arg)})
	} else {
		edits = append(edits, analysis.TextEdit{Pos: ctor.Rparen, End: ctor.Rparen, NewText: []byte(arg)})
	}
	return []analysis.SuggestedFix{{Message: msg, TextEdits: edits}}
}

// callAt finds the call that pos points into, or that the smallest
// statement or declaration holding pos contains, for which ok holds.
func (c *checker) callAt(pos token.Pos, ok func(*types.Func) bool) *ast.CallExpr {
	file := c.fileOf(pos)
	if file == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(file, pos, pos)
	match := func(n ast.Node) *ast.CallExpr {
		var found *ast.CallExpr
		ast.Inspect(n, func(n ast.Node) bool {
			if found != nil {
				return false
			}
			if call, isCall := n.(*ast.CallExpr); isCall {
				if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil && ok(fn) {
					found = call
					return false
				}
			}
			return true
		})
		return found
	}
	for _, n := range path {
		if call, isCall := n.(*ast.CallExpr); isCall {
			if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil && ok(fn) {
				return call
			}
		}
		switch n.(type) {
		case ast.Stmt, ast.Spec, *ast.KeyValueExpr:
			return match(n)
		case *ast.File, ast.Decl:
			return nil
		}
	}
	return nil
}

func (c *checker) fileOf(pos token.Pos) *ast.File {
	for _, f := range c.pass.Files {
		if f.FileStart <= pos && pos < f.FileEnd {
			return f
		}
	}
	return nil
}

// importName returns the name under which file imports path, or adds the
// import to the file's parenthesised import block.
func (c *checker) importName(file *ast.File, path string) (string, []analysis.TextEdit) {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				if imp.Name.Name == "_" || imp.Name.Name == "." {
					return "", nil
				}
				return imp.Name.Name, nil
			}
			return "option", nil
		}
	}
	// Not imported: "option" must be free in the file scope.
	if fs := c.pass.TypesInfo.Scopes[file]; fs != nil && fs.Lookup("option") != nil {
		return "", nil
	}
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT || !gd.Lparen.IsValid() || len(gd.Specs) == 0 {
			continue
		}
		last := gd.Specs[len(gd.Specs)-1]
		return "option", []analysis.TextEdit{{Pos: last.End(), End: last.End(), NewText: []byte("\n\t" + strconv.Quote(path))}}
	}
	return "", nil
}

func sdkPkg(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	return strings.HasPrefix(p, "github.com/openai/openai-go") || strings.HasPrefix(p, "github.com/anthropics/anthropic-sdk-go")
}

func isNewClient(fn *types.Func) bool {
	return fn.Name() == "NewClient" && sdkPkg(fn) && !strings.HasSuffix(fn.Pkg().Path(), "/option")
}

func isWithMaxRetries(fn *types.Func) bool {
	return fn.Name() == "WithMaxRetries" && sdkPkg(fn) && strings.HasSuffix(fn.Pkg().Path(), "/option")
}
