package effects

import (
	"go/ast"
	"go/token"
	"go/types"
	"iter"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Analyzer classifies the package's calls that do work which must happen
// or must not happen twice (writes, status updates, releases, acks,
// publishes), and exports a *WritesFact for every function that passes a
// context parameter on to such work. It reports nothing; expiredctx asks
// which writes run on an expired context, doubleretry which writes a
// proxy or a retry loop repeats.
var Analyzer = &analysis.Analyzer{
	Name:       "effects",
	Doc:        "classify the calls that write, with the context they run on (shared by the retryvet analyzers)",
	URL:        "https://github.com/retryvet/retryvet#architecture",
	Run:        run,
	Requires:   []*analysis.Analyzer{retrymodel.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	FactTypes:  []analysis.Fact{(*WritesFact)(nil), (*OpWritesFact)(nil)},
}

// A Write is a call, given a context, to work that must happen.
type Write struct {
	Call   *ast.CallExpr
	Ctx    ast.Expr // the context it is given: an argument, or the one bound by gorm's WithContext
	Kind   string   // "status write", "release", "ack", "publish", "delete", "commit", "write", "shutdown"
	Callee string   // as written: w.store.MarkDone
	Via    string   // for project functions: "writes through db.ExecContext at store/store.go:31"
	Store  string   // the store package the write goes to (database/sql, the controller-runtime client), "" when not known
	// Adds is set when each call adds something the server does not fold
	// with an earlier one: a row inserted, a message published, a counter
	// incremented (adds.go). A repeated Adds write happens twice.
	Adds bool
}

// Result classifies one package's calls. A nil *Result (a package that
// imports no context) classifies nothing.
type Result struct {
	pass   *analysis.Pass
	info   *types.Info
	model  *retrymodel.Result
	flow   *Flow
	module string
	facts  map[*types.Func]*WritesFact // facts of this package's functions

	depWriters map[string][]*types.Func      // methods of other packages with a WritesFact, by name (fact.go)
	opFacts    map[*types.Func]*OpWritesFact // this package's functions that do a given etcd op (etcdop.go)
}

func run(pass *analysis.Pass) (any, error) {
	if !importsContext(pass.Pkg) || IsStd(pass) {
		return (*Result)(nil), nil // no context, nothing classified; the standard library is in the table
	}
	model := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer model.Hold()()
	c := &Result{
		pass:   pass,
		info:   pass.TypesInfo,
		model:  model,
		flow:   NewFlow(pass, model),
		module: ModulePath(pass),
		facts:  make(map[*types.Func]*WritesFact),
	}
	c.computeOpFacts()
	c.computeFacts()
	return c, nil
}

// Flow is the package's context flow, built once for every analyzer.
func (c *Result) Flow() *Flow { return c.flow }

// In returns the first write in n (a function body), reading the calls of
// project functions through their WritesFacts. ok is false when n makes
// none, or the package imports no context (nothing was classified).
func (c *Result) In(n ast.Node) (*Write, bool) {
	if c == nil || n == nil {
		return nil, false
	}
	var found *Write
	ast.Inspect(n, func(x ast.Node) bool {
		if found != nil {
			return false
		}
		if call, ok := x.(*ast.CallExpr); ok {
			found = c.Classify(call)
		}
		return found == nil
	})
	return found, found != nil
}

func (c *Result) short(pos token.Pos) string { return retrymodel.Shorten(c.pass.Fset, pos) }

// FuncDecls yields the package's function declarations that have a body.
func FuncDecls(pass *analysis.Pass) iter.Seq2[*types.Func, *ast.FuncDecl] {
	return func(yield func(*types.Func, *ast.FuncDecl) bool) {
		for _, f := range pass.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				if !yield(fn, fd) {
					return
				}
			}
		}
	}
}

func importsContext(pkg *types.Package) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == "context" {
			return true
		}
	}
	return false
}

// ModulePath is the path of the module being analysed, or a guess from the
// package path when the driver does not say.
func ModulePath(pass *analysis.Pass) string {
	if pass.Module != nil && pass.Module.Path != "" {
		return pass.Module.Path
	}
	parts := strings.Split(pass.Pkg.Path(), "/")
	if len(parts) >= 3 && strings.Contains(parts[0], ".") {
		return strings.Join(parts[:3], "/")
	}
	return parts[0]
}

// IsStd reports whether the package is part of the standard library.
func IsStd(pass *analysis.Pass) bool {
	first, _, _ := strings.Cut(pass.Pkg.Path(), "/")
	return pass.Module == nil && !strings.Contains(first, ".")
}

func inModule(path, module string) bool {
	return path == module || strings.HasPrefix(path, module+"/")
}
