package deadlinecensus

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// The baseline keys a row by what a reviewer recognises and a refactoring
// keeps: the pipeline, the entry and the place where the deadline is set.
// Neither closure numbers (Run$2 after a new func literal above) nor line
// numbers (a function moved within its file) are part of a key.

// closureNum matches the SSA numbering of closures: Run$1, Run$1$2.
var closureNum = regexp.MustCompile(`(\$[0-9]+)+`)

// stableName renders a function name without closure numbers:
// batch.Run$1 is batch.Run (closure).
func stableName(name string) string {
	if !closureNum.MatchString(name) {
		return name
	}
	return closureNum.ReplaceAllString(name, "") + " (closure)"
}

// place renders where r's deadline is set for the baseline key: the
// enclosing function and the call (queue.(*Worker).Run:
// context.WithTimeout(context.Background(), ItemTimeout)), or none, from
// caller, unknown: <what the trace stopped at>.
func (p *Program) place(r *Row) string {
	switch r.D.Kind {
	case deadline.None:
		return "none"
	case deadline.FromCaller:
		return "from caller"
	case deadline.Known, deadline.Unfolded:
		if s := p.callPlace(r.D.Src); s != "" {
			return s
		}
		if r.D.Kind == deadline.Known && r.Source != "" {
			// Not in the syntax the census loaded (a values file entry):
			// its position is as stable as that file.
			return r.Source
		}
		if r.D.Kind == deadline.Unfolded && r.D.Set == nil {
			return "unknown: contexts merged from different paths"
		}
	}
	what := r.D.What
	if what == "" {
		what = "a context the trace cannot follow"
	}
	return "unknown: " + what
}

// callPlace renders the call at pos with the function it is in.
func (p *Program) callPlace(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	file, pkg := p.fileAt(pos)
	if file == nil {
		return ""
	}
	path, _ := astutil.PathEnclosingInterval(file, pos, pos)
	var call *ast.CallExpr
	closure := false
	var decl *ast.FuncDecl
	for _, n := range path {
		switch n := n.(type) {
		case *ast.CallExpr:
			if call == nil {
				call = n
			}
		case *ast.FuncLit:
			closure = true
		case *ast.FuncDecl:
			decl = n
		}
	}
	if call == nil {
		return ""
	}
	where := pkg.Types.Name()
	if decl != nil {
		if fn, ok := pkg.TypesInfo.Defs[decl.Name].(*types.Func); ok {
			where = short(retrymodel.FuncName(fn))
		}
	}
	if closure {
		where += " (closure)"
	}
	return where + ": " + types.ExprString(call)
}

// fileAt finds the syntax tree holding pos and its package.
func (p *Program) fileAt(pos token.Pos) (*ast.File, *packages.Package) {
	if p.files == nil {
		p.files = map[*token.File]fileOf{}
		for _, pkg := range p.all {
			for _, f := range pkg.Syntax {
				if tf := p.Prog.Fset.File(f.FileStart); tf != nil {
					if _, dup := p.files[tf]; !dup {
						p.files[tf] = fileOf{f, pkg}
					}
				}
			}
		}
	}
	tf := p.Prog.Fset.File(pos)
	if tf == nil {
		return nil, nil
	}
	f, ok := p.files[tf]
	if !ok {
		return nil, nil
	}
	return f.file, f.pkg
}

// inTestFile reports whether fn (or the function its closure is in) is
// declared in a _test.go file.
func inTestFile(fn *ssa.Function) bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Prog == nil || !fn.Pos().IsValid() {
		return false
	}
	f := fn.Prog.Fset.File(fn.Pos())
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

type fileOf struct {
	file *ast.File
	pkg  *packages.Package
}
