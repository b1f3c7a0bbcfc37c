package expiredctx

import (
	"go/ast"
	"go/constant"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

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

// riverPkg is the import path of river's Job type; lambdaPkg of the
// AWS Lambda runtime's entry points.
const (
	riverPkg  = "github.com/riverqueue/river"
	lambdaPkg = "github.com/aws/aws-lambda-go/lambda"
)

// frameworkSets adds, for each river worker's Work method of the package
// and each function it hands the Lambda runtime, the deadline the
// framework gives its context.
func (c *checker) frameworkSets(out map[ast.Node][]ctxSet) {
	c.lambdaSets(out)
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
	fd := c.model.Decl(m)
	if fd == nil || fd.Body == nil || len(fd.Body.List) != 1 {
		return "", true
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

// lambdaSets adds the invocation's deadline to the context of each
// function of the package handed to the Lambda runtime as a handler
// (lambda.Start(handler), StartWithOptions, NewHandler, ...): the runtime
// gives it the function's timeout, counted from the invocation's start.
func (c *checker) lambdaSets(out map[ast.Node][]ctxSet) {
	c.insp.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		fn := typeutil.StaticCallee(c.info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != lambdaPkg {
			return
		}
		i := 0
		switch fn.Name() {
		case "Start", "StartWithOptions", "StartHandlerFunc", "NewHandler", "NewHandlerWithOptions":
		case "StartWithContext":
			i = 1
		default:
			return
		}
		if i >= len(call.Args) {
			return
		}
		var h *types.Func
		switch a := astutil.Unparen(call.Args[i]).(type) {
		case *ast.Ident:
			h, _ = c.info.Uses[a].(*types.Func)
		case *ast.SelectorExpr:
			h, _ = c.info.Uses[a.Sel].(*types.Func)
		}
		if h == nil || h.Pkg() != c.pass.Pkg {
			return
		}
		fd := c.model.Decl(h)
		if fd == nil || fd.Body == nil || h.Signature().Params().Len() == 0 || !isContextVar(h.Signature().Params().At(0)) {
			return
		}
		param := h.Signature().Params().At(0)
		if param.Name() == "" || param.Name() == "_" {
			return
		}
		out[fd] = append(out[fd], ctxSet{
			ref: effects.Ref{V: param, Text: param.Name()}, pos: fd.Body.Lbrace,
			deadline: true, framework: "the Lambda function's timeout (the invocation's deadline)", setAt: call.Pos(),
		})
	})
}
