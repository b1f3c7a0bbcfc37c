package retrytimeout

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// waitChoices returns the durations a loop's waits can take when the model
// could not lay out the schedule but every wait's duration is one of a few
// constants: a time.Sleep(d) where d is a constant or a local variable given
// only constants (a switch on the attempt that picks 1s, 2s or 4s). The
// result is sorted and without repeats; ok is false when any wait is not
// such a choice.
func (c *checker) waitChoices(l *retrymodel.Layer) ([]time.Duration, bool) {
	if l.Kind != retrymodel.Loop || len(l.Waits) == 0 {
		return nil, false
	}
	var out []time.Duration
	for _, n := range l.Waits {
		d := c.waitDuration(n)
		if d == nil {
			return nil, false
		}
		ds, ok := c.constChoices(d)
		if !ok {
			return nil, false
		}
		out = append(out, ds...)
	}
	slices.Sort(out)
	return slices.Compact(out), len(out) > 0
}

// waitDuration is the duration expression of a wait node: the argument of
// time.Sleep or time.After (also as a select's only timer case).
func (c *checker) waitDuration(n ast.Node) ast.Expr {
	var d ast.Expr
	ast.Inspect(n, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok || d != nil {
			return d == nil
		}
		if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); (isTimeFunc(fn, "Sleep") || isTimeFunc(fn, "After") || isTimeFunc(fn, "NewTimer")) && len(call.Args) == 1 {
			d = call.Args[0]
			return false
		}
		return true
	})
	return d
}

// constChoices folds d to its possible constant values: a constant, or a
// local variable every assignment of which is one.
func (c *checker) constChoices(d ast.Expr) ([]time.Duration, bool) {
	if v, ok := c.res.Folder.Duration(d); ok {
		return []time.Duration{v}, true
	}
	id, ok := astutil.Unparen(d).(*ast.Ident)
	if !ok {
		return nil, false
	}
	v, ok := c.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == c.pass.Pkg.Scope() || v.Kind() != types.LocalVar {
		return nil, false
	}
	vals := c.valuesOf(v)
	if len(vals) == 0 {
		return nil, false
	}
	var out []time.Duration
	for _, e := range vals {
		w, ok := c.res.Folder.Duration(e)
		if !ok {
			return nil, false
		}
		out = append(out, w)
	}
	return out, true
}

// choiceList renders choices as "1s, 2s or 4s".
func choiceList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtDur(d)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// manyWaits reports a loop that waits at several places for different
// times (1s after a network error, 2s after a 429). The model's schedule
// follows one of them; the findings then speak of the choices instead.
func (c *checker) manyWaits(l *retrymodel.Layer) bool {
	if l.Kind != retrymodel.Loop || len(l.Waits) < 2 {
		return false
	}
	first := ""
	for i, n := range l.Waits {
		d := c.waitDuration(n)
		if d == nil {
			return true
		}
		s := types.ExprString(d)
		if i == 0 {
			first = s
		} else if s != first {
			return true
		}
	}
	return false
}

// mostWaiting is the longest a loop with attempts n can wait in all when
// each wait is one of ds.
func mostWaiting(n int64, ds []time.Duration) time.Duration {
	return time.Duration(n-1) * ds[len(ds)-1]
}
