package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// attemptBudgetsTotal reports a deadline set once around a whole retry
// with a duration that is the budget of one attempt: a context.WithTimeout
// outside the retry, whose context every attempt then runs on (the
// model's CtxBounds: a loop or library bound to it, or a call of a function
// that retries on the context it is given), with a duration that the
// package itself uses as a per-attempt timeout (the WithTimeout inside
// another retry's body), or that is named for one attempt (AttemptTimeout,
// PerTryTimeout, or DialTimeout around a retried dial). One attempt that
// hangs then spends the deadline and no retry follows. A retry that gives
// each attempt a shorter timeout of its own is quiet, and so is a deadline
// named or used for nothing in particular (a total budget).
func (c *checker) attemptBudgetsTotal() {
	perAttempt := c.perAttemptTimeouts()
	for _, f := range c.pass.Files {
		if c.inTestFile(f.Pos()) {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			for _, b := range c.res.CtxBounds(fd) {
				c.attemptBudgetTotal(fd, b, perAttempt)
			}
		}
	}
}

// A perAttemptUse is a retry whose body gives each attempt a timeout of a
// duration read from one object (a field, variable or constant).
type perAttemptUse struct {
	layer *retrymodel.Layer
	call  *ast.CallExpr
}

// perAttemptTimeouts indexes the package's per-attempt timeouts by the
// object their duration is read from.
func (c *checker) perAttemptTimeouts() map[types.Object]perAttemptUse {
	out := make(map[types.Object]perAttemptUse)
	for _, l := range c.res.Layers {
		pa := l.Policy.PerAttempt
		if !pa.Set || !pa.Pos.IsValid() || l.Body == nil || c.inTestFile(l.Pos) {
			continue
		}
		ast.Inspect(l.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || call.Pos() != pa.Pos {
				return true
			}
			if dur := retrymodel.TimeoutDuration(c.pass.TypesInfo, call); dur != nil {
				if obj := durObject(c.pass.TypesInfo, dur); obj != nil {
					if _, seen := out[obj]; !seen {
						out[obj] = perAttemptUse{l, call}
					}
				}
			}
			return false
		})
	}
	return out
}

// durObject returns the field, variable or constant a duration is read
// from: p.cfg.DialTimeout, dialTimeout, time.Duration(n) * time.Second.
func durObject(info *types.Info, e ast.Expr) types.Object {
	e = astutil.Unparen(e)
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			if sel.Kind() == types.FieldVal {
				return sel.Obj()
			}
			return nil
		}
		return info.Uses[x.Sel] // a qualified package variable or constant
	case *ast.Ident:
		switch obj := info.Uses[x].(type) {
		case *types.Var, *types.Const:
			return obj
		}
	case *ast.CallExpr: // time.Duration(n)
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return durObject(info, x.Args[0])
		}
	case *ast.BinaryExpr: // n * time.Second
		if x.Op == token.MUL {
			if tv, ok := info.Types[x.Y]; ok && tv.Value != nil {
				return durObject(info, x.X)
			}
			if tv, ok := info.Types[x.X]; ok && tv.Value != nil {
				return durObject(info, x.Y)
			}
		}
	}
	return nil
}

func (c *checker) attemptBudgetTotal(fd *ast.FuncDecl, b retrymodel.CtxBound, perAttempt map[types.Object]perAttemptUse) {
	info := c.pass.TypesInfo
	calls, _ := c.res.CtxDerivation(b.Ctx, fd)
	layer := b.Layer
	li, via := b.Info(c.res)
	if layer == nil {
		layer = c.layerAt(li.Posn)
	}
	if layer != nil {
		if n, ok := layer.Attempts(); ok && n < 2 {
			return
		}
	} else if li.AttemptsKnown && li.Attempts < 2 {
		return
	}
	for _, call := range calls {
		if b.Layer != nil && within(call, b.Layer.Node) {
			return // made for each attempt
		}
		dur := retrymodel.TimeoutDuration(info, call)
		if dur == nil {
			continue
		}
		obj := durObject(info, dur)
		if obj == nil {
			continue
		}
		total, totalKnown := c.res.Folder.Duration(dur)
		// A retry that gives each attempt a timeout of its own, other than
		// this one and not known to be as long, is not spent by one attempt.
		if layer != nil {
			if pa := layer.Policy.PerAttempt; pa.Set {
				if own := c.perAttemptObject(layer); own != obj && !(pa.Known && totalKnown && pa.D >= total) {
					return
				}
			}
		} else if li.PerAttempt > 0 && !(totalKnown && li.PerAttempt >= total) {
			return
		}
		why := ""
		if use, ok := perAttempt[obj]; ok {
			why = fmt.Sprintf("the per-attempt timeout of the %s at %s", describe(use.layer), c.short(use.layer.Pos))
			if use.layer == layer {
				why = "also the timeout this retry gives each attempt"
			}
		} else if c.namedPerAttempt(obj.Name(), layer) {
			why = "named for one attempt"
		} else {
			continue
		}
		c.reportAttemptBudget(call, dur, obj, why, b, li, via, layer)
		return
	}
}

// layerAt finds the package's layer at a dir/file.go:line position.
func (c *checker) layerAt(posn string) *retrymodel.Layer {
	for _, l := range c.res.Layers {
		if c.short(l.Pos) == posn {
			return l
		}
	}
	return nil
}

// perAttemptObject is the object a layer's own per-attempt timeout reads
// its duration from.
func (c *checker) perAttemptObject(l *retrymodel.Layer) types.Object {
	pa := l.Policy.PerAttempt
	if l.Body == nil || !pa.Pos.IsValid() {
		return nil
	}
	var obj types.Object
	ast.Inspect(l.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && call.Pos() == pa.Pos {
			if dur := retrymodel.TimeoutDuration(c.pass.TypesInfo, call); dur != nil {
				obj = durObject(c.pass.TypesInfo, dur)
			}
			return false
		}
		return obj == nil
	})
	return obj
}

// namedPerAttempt reports a duration named for one attempt: a word
// "attempt" or "try" (AttemptTimeout, PerTryTimeout; not RetryTimeout),
// or "dial" / "connect" when the retried operation is a dial or a connect
// (DialTimeout around a retry of Dialer).
func (c *checker) namedPerAttempt(name string, l *retrymodel.Layer) bool {
	words := splitWords(name)
	has := func(w string) bool {
		for _, x := range words {
			if x == w {
				return true
			}
		}
		return false
	}
	if !has("timeout") && !has("deadline") {
		return false
	}
	if has("attempt") || has("try") || has("pertry") || has("perattempt") {
		return true
	}
	if l == nil {
		return false
	}
	for _, w := range []string{"dial", "connect"} {
		if has(w) && c.opsNamed(l, w) {
			return true
		}
	}
	return false
}

// opsNamed reports whether one of the layer's operations is a call of a
// function, method or func-typed field whose name begins with word.
func (c *checker) opsNamed(l *retrymodel.Layer, word string) bool {
	for _, op := range l.Ops {
		var name string
		switch f := astutil.Unparen(op.Fun).(type) {
		case *ast.Ident:
			name = f.Name
		case *ast.SelectorExpr:
			name = f.Sel.Name
		}
		if ws := splitWords(name); len(ws) > 0 && strings.HasPrefix(ws[0], word) {
			return true
		}
	}
	return false
}

// splitWords splits a camelCase or snake_case name into lower-case words:
// DialTimeout -> dial, timeout; perTryTimeout -> per, try, timeout.
func splitWords(name string) []string {
	var words []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

func (c *checker) reportAttemptBudget(call *ast.CallExpr, dur ast.Expr, obj types.Object, why string, b retrymodel.CtxBound, li retrymodel.LayerInfo, via []string, layer *retrymodel.Layer) {
	d := types.ExprString(dur)
	if v, ok := c.res.Folder.Duration(dur); ok {
		d += " (" + fmtDur(v) + ")"
	} else if v, ok, w := c.res.Folder.Default(dur); ok && w.Default {
		d += " (default " + fmtDur(v) + ")"
	}
	retry := fmt.Sprintf("the %s at %s", li.Name, li.Posn)
	if len(via) > 0 {
		retry += " (in " + strings.Join(via, " > ") + ")"
	}
	attempts := "every attempt"
	switch {
	case layer != nil:
		if n, ok := layer.Attempts(); ok {
			attempts = fmt.Sprintf("all %d attempts", n)
		}
	case li.AttemptsKnown:
		attempts = fmt.Sprintf("all %d attempts", li.Attempts)
	}
	run := "run"
	if attempts == "every attempt" {
		run = "runs"
	}
	msg := fmt.Sprintf("one attempt's timeout bounds the whole retry: the context made here with %s is the one %s of %s %s on, and %s is %s; an attempt that hangs spends it and no retry follows; give each attempt its own timeout inside the retry and bound the whole retry by the caller's context or by a budget that covers the attempts and their waits",
		d, attempts, retry, run, obj.Name(), why)
	c.report(call.Pos(), "attempt-budget-total", msg, nil)
}
