package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/durconst"
)

// Production values of package variables that tests reassign.
//
// A test that shortens a package variable (retryDelay = 0) makes the
// folder see two values and give up on the waits; the verdict on
// production code must not depend on what a _test.go file assigns. When a
// counted loop's one wait reads such a variable, its waits are folded
// again with the variable at its declared value and the counter bound in
// turn: Policy.ProdWaits, the schedule the program runs.

// prodWaits returns the waits of a loop `for i := K; i < N; i++` whose one
// wait (time.Sleep, time.After, time.NewTimer) reads a variable the tests
// reassign, folded with production values; nil when it does not apply or
// a wait does not fold. last is the wait after the last failure, when the
// loop waits there too (Policy.WaitsAfterLast).
func (p *pkgCtx) prodWaits(l *Layer, n ast.Node, ctr *counter) (ws []time.Duration, last time.Duration) {
	fs, ok := n.(*ast.ForStmt)
	if !ok || l.Kind != Loop || len(l.Waits) != 1 || ctr == nil || ctr.v == nil || !ctr.inHeader || !ctr.startOK {
		return nil, 0
	}
	if inc, ok := fs.Post.(*ast.IncDecStmt); !ok || inc.Tok != token.INC || p.varOf(inc.X) != ctr.v {
		return nil, 0
	}
	d := p.sleepDuration(l.Waits[0])
	if d == nil || !p.readsShortened(d) {
		return nil, 0
	}
	attempts, ok := l.Attempts()
	if !ok {
		return nil, 0
	}
	turns := attempts - 1
	if l.Policy.WaitsAfterLast {
		turns++
	}
	saved, savedAtLeast := p.fold, p.atLeast
	p.fold, p.atLeast = p.prodFolder(), false
	defer func() { p.fold, p.atLeast = saved, savedAtLeast }()
	ws = make([]time.Duration, 0, turns)
	for k := int64(0); k < turns; k++ {
		v, ok := p.eval(d, env{ctr.v: constant.MakeInt64(ctr.start + k)}, 0)
		if !ok || p.atLeast {
			return nil, 0
		}
		i, exact := constant.Int64Val(constant.ToInt(v))
		if !exact {
			return nil, 0
		}
		ws = append(ws, time.Duration(i))
	}
	if turns > attempts-1 {
		return ws[:attempts-1], ws[attempts-1]
	}
	return ws, 0
}

// sleepDuration is the duration of the first time.Sleep, time.After or
// time.NewTimer call in a wait.
func (p *pkgCtx) sleepDuration(n ast.Node) ast.Expr {
	var d ast.Expr
	ast.Inspect(n, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok || d != nil {
			return d == nil
		}
		fn := typeutil.StaticCallee(p.info, call)
		if (isFunc(fn, "time", "Sleep") || isFunc(fn, "time", "After") || isFunc(fn, "time", "NewTimer")) && len(call.Args) == 1 {
			d = call.Args[0]
			return false
		}
		return true
	})
	return d
}

func (p *pkgCtx) inTestFile(pos token.Pos) bool {
	return strings.HasSuffix(p.pass.Fset.Position(pos).Filename, "_test.go")
}

// testShortened returns the package variables, declared outside _test.go
// files, that a _test.go file assigns to.
func (p *pkgCtx) testShortened() map[*types.Var]bool {
	if p.shortened != nil {
		return p.shortened
	}
	p.shortened = map[*types.Var]bool{}
	for _, f := range p.pass.Files {
		if !p.inTestFile(f.Pos()) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for _, lhs := range as.Lhs {
				id, ok := astutil.Unparen(lhs).(*ast.Ident)
				if !ok {
					continue
				}
				v, ok := p.info.Uses[id].(*types.Var)
				if ok && v.Parent() == p.pass.Pkg.Scope() && !p.inTestFile(v.Pos()) {
					p.shortened[v] = true
				}
			}
			return true
		})
	}
	return p.shortened
}

// readsShortened reports whether e reads a variable that tests reassign.
func (p *pkgCtx) readsShortened(e ast.Expr) bool {
	short := p.testShortened()
	return len(short) > 0 && p.mentions(e, func(v *types.Var) bool { return short[v] })
}

// prodFolder folds over the package's production files only.
func (p *pkgCtx) prodFolder() *durconst.Folder {
	if p.prodFold == nil {
		var files []*ast.File
		for _, f := range p.pass.Files {
			if !p.inTestFile(f.Pos()) {
				files = append(files, f)
			}
		}
		p.prodFold = durconst.New(p.info, files)
	}
	return p.prodFold
}
