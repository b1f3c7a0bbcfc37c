package deadlinecensus

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"

	"golang.org/x/tools/go/packages"
)

// listMode is what the census asks go/packages for: the package graph
// (go list's answer) without syntax or types. Those are made by
// typeCheck, one package at a time just before the retry model reads it,
// so that a dependency's syntax is live only while it is analysed:
// go/packages would hold every package's syntax at once (on retryvet
// itself, 480 MiB of a 780 MiB peak).
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedDeps | packages.NeedTypesSizes | packages.NeedModule

// typeCheck parses and type-checks p as go/packages does for NeedSyntax |
// NeedTypes | NeedTypesInfo, against its imports' types (checked before
// it). Parse and type errors are added to p.Errors; p is ill-typed when it
// or an import has errors, and its imports' errors stay theirs.
func typeCheck(fset *token.FileSet, p *packages.Package) {
	p.Fset = fset
	if p.PkgPath == "unsafe" {
		p.Types, p.TypesInfo = types.Unsafe, newInfo()
		return
	}
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			p.Errors = append(p.Errors, packages.Error{Pos: name, Msg: err.Error(), Kind: packages.ParseError})
			continue
		}
		f, err := parseFile(fset, name, src)
		if err != nil {
			if list, ok := err.(scanner.ErrorList); ok {
				for _, e := range list {
					p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
				}
			} else {
				p.Errors = append(p.Errors, packages.Error{Pos: name, Msg: err.Error(), Kind: packages.ParseError})
			}
		}
		if f != nil {
			p.Syntax = append(p.Syntax, f)
		}
	}
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	p.TypesInfo = newInfo()
	conf := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			imp := p.Imports[path]
			if imp == nil || imp.Types == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			return imp.Types, nil
		}),
		Sizes: p.TypesSizes,
		Error: func(err error) {
			p.Errors = append(p.Errors, typeError(err))
			if te, ok := err.(types.Error); ok {
				p.TypeErrors = append(p.TypeErrors, te)
			}
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	_ = types.NewChecker(conf, fset, p.Types, p.TypesInfo).Files(p.Syntax) // errors are in p.Errors
	p.IllTyped = len(p.Errors) > 0
	for _, imp := range p.Imports {
		if imp.IllTyped {
			p.IllTyped = true
		}
	}
}

func newInfo() *types.Info {
	return &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
}

// typeError is err as go/packages records it.
func typeError(err error) packages.Error {
	if te, ok := err.(types.Error); ok {
		pos := te.Fset.Position(te.Pos)
		return packages.Error{Pos: pos.String(), Msg: te.Msg, Kind: packages.TypeError}
	}
	return packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.TypeError}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// parseFile parses as go/packages does, without the deprecated ast.Object
// resolution nothing in retryvet reads (a tenth of the syntax's memory).
func parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
}
