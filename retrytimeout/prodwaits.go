package retrytimeout

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Production values of package variables that tests reassign.
//
// A test that shortens a package variable (retryDelay = 0) makes the
// model's folder see two values and give up on the waits; the verdict on
// production code must not depend on what a _test.go file assigns. When a
// loop's wait reads such a variable, its waits are worked out again here
// from the variable's declared value, with the loop's counter bound in
// turn, and the findings judge the schedule the program runs.

// testShortened returns the package variables, declared outside _test.go
// files, that a _test.go file assigns to.
func (c *checker) testShortened() map[*types.Var]bool {
	if c.shortened != nil {
		return c.shortened
	}
	c.shortened = map[*types.Var]bool{}
	for _, f := range c.pass.Files {
		if !c.inTestFile(f.Pos()) {
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
				v, ok := c.pass.TypesInfo.Uses[id].(*types.Var)
				if ok && v.Parent() == c.pass.Pkg.Scope() && !c.inTestFile(v.Pos()) {
					c.shortened[v] = true
				}
			}
			return true
		})
	}
	return c.shortened
}

// prodFolder folds over the package's production files only.
func (c *checker) prodFolder() *durconst.Folder {
	if c.prod == nil {
		var files []*ast.File
		for _, f := range c.pass.Files {
			if !c.inTestFile(f.Pos()) {
				files = append(files, f)
			}
		}
		c.prod = durconst.New(c.pass.TypesInfo, files)
	}
	return c.prod
}

// prodWaits returns a loop's waits computed with the production values of
// the variables tests reassign, when the model could not fold them and the
// loop is a counted for loop (i := K; i < N; i++) whose waits follow each
// failed attempt.
func (c *checker) prodWaits(l *retrymodel.Layer) ([]time.Duration, bool) {
	fs, ok := l.Node.(*ast.ForStmt)
	if !ok || l.Kind != retrymodel.Loop || len(l.Waits) != 1 || len(c.testShortened()) == 0 {
		return nil, false
	}
	d := c.waitDuration(l.Waits[0])
	if d == nil || !c.readsShortened(d) {
		return nil, false
	}
	ctr, start, ok := c.counter(fs)
	if !ok {
		return nil, false
	}
	n, ok := l.Attempts()
	if !ok {
		return nil, false
	}
	var ws []time.Duration
	for k := int64(0); k < n-1; k++ {
		v, ok := c.evalWith(d, ctr, start+k, 0)
		if !ok {
			return nil, false
		}
		i, exact := constant.Int64Val(constant.ToInt(v))
		if !exact {
			return nil, false
		}
		ws = append(ws, time.Duration(i))
	}
	return ws, true
}

// readsShortened reports whether e reads a variable that tests reassign.
func (c *checker) readsShortened(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := c.pass.TypesInfo.Uses[id].(*types.Var); ok && c.testShortened()[v] {
				found = true
			}
		}
		return !found
	})
	return found
}

// counter reads `for i := K; ...; i++` and returns i and K.
func (c *checker) counter(fs *ast.ForStmt) (*types.Var, int64, bool) {
	as, ok := fs.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Tok != token.DEFINE {
		return nil, 0, false
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, 0, false
	}
	v, ok := c.pass.TypesInfo.Defs[id].(*types.Var)
	if !ok {
		return nil, 0, false
	}
	inc, ok := fs.Post.(*ast.IncDecStmt)
	if !ok || inc.Tok != token.INC {
		return nil, 0, false
	}
	if pid, ok := inc.X.(*ast.Ident); !ok || c.pass.TypesInfo.Uses[pid] != v {
		return nil, 0, false
	}
	start, ok := c.prodFolder().Int(as.Rhs[0])
	return v, start, ok
}

// evalWith folds e with the counter bound to val and package variables at
// their production values.
func (c *checker) evalWith(e ast.Expr, ctr *types.Var, val int64, depth int) (constant.Value, bool) {
	if depth > 12 {
		return nil, false
	}
	e = astutil.Unparen(e)
	if tv, ok := c.pass.TypesInfo.Types[e]; ok && tv.Value != nil {
		return tv.Value, true
	}
	switch e := e.(type) {
	case *ast.Ident:
		if c.pass.TypesInfo.Uses[e] == ctr {
			return constant.MakeInt64(val), true
		}
		if i, ok := c.prodFolder().Int(e); ok {
			return constant.MakeInt64(i), true
		}
	case *ast.BinaryExpr:
		x, ok := c.evalWith(e.X, ctr, val, depth+1)
		if !ok {
			return nil, false
		}
		y, ok := c.evalWith(e.Y, ctr, val, depth+1)
		if !ok {
			return nil, false
		}
		x, y = constant.ToInt(x), constant.ToInt(y)
		switch e.Op {
		case token.SHL, token.SHR:
			s, ok := constant.Uint64Val(y)
			if !ok || s > 62 {
				return nil, false
			}
			return constant.Shift(x, e.Op, uint(s)), true
		case token.ADD, token.SUB, token.MUL:
			return constant.BinaryOp(x, e.Op, y), true
		case token.QUO:
			if constant.Sign(y) == 0 {
				return nil, false
			}
			return constant.BinaryOp(x, token.QUO_ASSIGN, y), true
		}
	case *ast.CallExpr:
		// a conversion: time.Duration(i+1), int64(d)
		if tv, ok := c.pass.TypesInfo.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
				return c.evalWith(e.Args[0], ctr, val, depth+1)
			}
		}
	}
	return nil, false
}
