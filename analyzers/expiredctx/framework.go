package expiredctx

import (
	"go/ast"
	"go/constant"
	"go/types"
	"time"

	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/effects"
)

// This file knows the deadlines a job framework puts on the context it
// hands a worker: river runs Work(ctx, job) under its JobTimeout, one
// minute unless the client's config or the worker's Timeout(job) says
// otherwise. The worker sees only a ctx parameter; the deadline is set
// where no caller is in sight:
//
//	func (w *ChargeWorker) Work(ctx context.Context, job *river.Job[ChargeArgs]) error {
//		if err := w.psp.Charge(ctx, job.Args); err != nil {
//			w.store.MarkFailed(ctx, job.Args.ID) // fails at once if Charge used the minute
//			return err
//		}

// riverPkg is the import path of river's Job type.
const riverPkg = "github.com/riverqueue/river"

// frameworkSets adds, for each river worker's Work method of the package,
// the deadline river gives its context.
func (c *checker) frameworkSets(out map[ast.Node][]ctxSet) {
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv == nil || fd.Name.Name != "Work" {
				continue
			}
			fn, ok := c.info.Defs[fd.Name].(*types.Func)
			if !ok || !riverWork(fn.Signature()) {
				continue
			}
			param := fn.Signature().Params().At(0)
			if param.Name() == "" || param.Name() == "_" {
				continue
			}
			dur, ok := c.riverTimeout(fn)
			if !ok {
				continue // the worker turns the timeout off
			}
			what := "river's JobTimeout (1m unless the client's config sets another)"
			if dur != "" {
				what = "the worker's Timeout method"
			}
			out[fd] = append(out[fd], ctxSet{
				ref: effects.Ref{V: param, Text: param.Name()}, pos: fd.Body.Lbrace,
				deadline: true, dur: dur, framework: what, setAt: fd.Pos(),
			})
		}
	}
}

// riverWork reports the signature of river.Worker[T]'s Work:
// func(context.Context, *river.Job[T]) error.
func riverWork(sig *types.Signature) bool {
	if sig.Params().Len() != 2 || sig.Results().Len() != 1 || !isContextVar(sig.Params().At(0)) {
		return false
	}
	p, ok := sig.Params().At(1).Type().(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == riverPkg && n.Obj().Name() == "Job"
}

// riverTimeout reads the worker's own Timeout(job) method: a constant
// that is positive is the deadline, a negative one turns it off (ok
// false); anything else, or river.WorkerDefaults' (0: the client's
// JobTimeout), leaves the default ("").
func (c *checker) riverTimeout(work *types.Func) (string, bool) {
	recv := work.Signature().Recv()
	if recv == nil {
		return "", true
	}
	obj, _, _ := types.LookupFieldOrMethod(recv.Type(), true, work.Pkg(), "Timeout")
	m, ok := obj.(*types.Func)
	if !ok || m.Pkg() != work.Pkg() {
		return "", true // promoted from river.WorkerDefaults
	}
	for _, f := range c.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || c.info.Defs[fd.Name] != m || fd.Body == nil || len(fd.Body.List) != 1 {
				continue
			}
			ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				return "", true
			}
			tv, ok := c.info.Types[ret.Results[0]]
			if !ok || tv.Value == nil {
				return "", true
			}
			n, exact := constant.Int64Val(constant.ToInt(tv.Value))
			switch {
			case !exact || n == 0:
				return "", true
			case n < 0:
				return "", false
			}
			return durconst.Format(time.Duration(n)), true
		}
	}
	return "", true
}
