package deadline

import (
	"go/ast"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/values"
)

// PipelineOf says whether fn, declared in the package res describes, is a
// pipeline (it holds a retry layer around a remote call, an SDK call that
// retries by default, or is marked //retryvet:pipeline) and returns what its
// retry needs. The p99 is the function's own //retryvet:p99, else the
// largest p99 declared on a function the layer's operation calls.
func PipelineOf(res *retrymodel.Result, info *types.Info, fn *types.Func) (Requirement, bool) {
	ff := res.Func(fn)
	if ff == nil {
		return Requirement{}, false
	}
	var held *retrymodel.LayerInfo
	for i := range ff.Chains {
		c := &ff.Chains[i]
		if len(c.Via) > 0 || len(c.Layers) == 0 {
			continue
		}
		if li := &c.Layers[0]; li.Remote || li.Kind == retrymodel.SDK {
			held = li
			break
		}
	}
	if held == nil && !ff.Pipeline {
		return Requirement{}, false
	}
	p99, p99Posn := pipelineP99(res, info, fn, ff, held != nil)
	return markP99(Derive(retrymodel.FuncName(fn), held, p99, p99Posn)), true
}

// PipelineAt returns the requirement of the retry layer at posn
// (dir/file.go:line) that fn holds, whether or not the model saw its
// operation reach a remote call: the census settles that through the call
// graph (an operation behind an interface).
func PipelineAt(res *retrymodel.Result, info *types.Info, fn *types.Func, posn string) (Requirement, bool) {
	ff := res.Func(fn)
	if ff == nil {
		return Requirement{}, false
	}
	for i := range ff.Chains {
		c := &ff.Chains[i]
		if len(c.Via) == 0 && len(c.Layers) > 0 && c.Layers[0].Posn == posn {
			p99, p99Posn := pipelineP99(res, info, fn, ff, true)
			return markP99(Derive(retrymodel.FuncName(fn), &c.Layers[0], p99, p99Posn)), true
		}
	}
	return Requirement{}, false
}

// pipelineP99 is the p99 of a pipeline's remote call: its own
// //retryvet:p99, else its entry in the values file, else one declared (or
// given in the values file) for the operation its layer repeats, else the
// default p99 setting (retrymodel.SetDefaultP99), else 0.
func pipelineP99(res *retrymodel.Result, info *types.Info, fn *types.Func, ff *retrymodel.FuncFact, layer bool) (time.Duration, string) {
	if ff.P99 > 0 {
		return ff.P99, ff.P99Posn
	}
	if d, src, ok := retrymodel.ValuesP99(fn); ok {
		return d, src
	}
	if layer {
		if p99, where := opP99(res, info, fn); p99 > 0 {
			return p99, where
		}
	}
	if d := retrymodel.DefaultP99(); d > 0 {
		return d, retrymodel.DefaultP99Source
	}
	return 0, ""
}

// opP99 finds the largest p99 declared on the functions the layer at posn
// (held by fn) repeats.
func opP99(res *retrymodel.Result, info *types.Info, fn *types.Func) (p99 time.Duration, where string) {
	for _, l := range res.Layers {
		if l.Func != fn {
			continue
		}
		var calls []*ast.CallExpr
		calls = append(calls, l.Ops...)
		consider := func(op *types.Func) {
			if f := res.Func(op); f != nil && f.P99 > 0 {
				if f.P99 > p99 {
					p99, where = f.P99, f.P99Posn
				}
				return
			}
			// a function of another module the values file names
			if d, src, ok := retrymodel.ValuesP99(op); ok && d > p99 {
				p99, where = d, src
			}
		}
		for _, call := range calls {
			consider(typeutil.StaticCallee(info, call))
		}
		for _, op := range l.OpFuncs {
			consider(op)
		}
	}
	return p99, where
}

// markP99 says in the derivation that the p99 is the values file's, when
// it is and the derivation does not say so already.
func markP99(r Requirement) Requirement {
	if r.P99 > 0 && values.IsSource(r.P99Posn) && !strings.Contains(r.Derivation, r.P99Posn) {
		if r.Derivation != "" {
			r.Derivation += "; "
		}
		r.Derivation += "p99 " + Format(r.P99) + " from " + r.P99Posn
	}
	return r
}
