package retrymodel

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A classifier may retry an error class rather than a code: it answers
// retry for errors of one type of the package and give-up for every other
// error, and the retried operation says what is worth another attempt by
// the type of the error it returns (OpenTelemetry's OTLP exporter):
//
//	func evaluate(err error) (bool, time.Duration) {
//		rErr, ok := err.(retryableError)
//		if !ok {
//			return false, 0
//		}
//		return true, time.Duration(rErr.throttle)
//	}
//
//	case sc == 429, sc == 503:
//		return newResponseError(resp.Header) // a retryableError
//	default:
//		return fmt.Errorf("failed to send: %s", resp.Status)
//
// The statuses the retry retries are then those whose branch of the
// operation returns a value of that type, as for go-retry's RetryableError.

// RetriedErrorType returns the type of error the classifier fn retries, and
// only it: a function of this package whose first result is a bool and
// whose one error parameter it asserts to a concrete type T (err.(T),
// errors.As(err, &t)), answering retry for an error of dynamic type T on
// every path and give-up for any other error (an fmt.Errorf value, a
// sentinel). Nil when there is no such type.
func (r *Result) RetriedErrorType(fn *types.Func) types.Type {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if t, ok := r.errTypes[fn]; ok {
		return t
	}
	if r.errTypes == nil {
		r.errTypes = make(map[*types.Func]types.Type)
	}
	t := r.retriedErrorType(fn)
	r.errTypes[fn] = t
	return t
}

func (r *Result) retriedErrorType(fn *types.Func) types.Type {
	decl := r.decls[fn]
	sig, _ := fn.Type().(*types.Signature)
	if decl == nil || decl.Body == nil || sig == nil || sig.Results().Len() == 0 || !isBool(sig.Results().At(0).Type()) {
		return nil
	}
	p := &pkgCtx{pass: r.pass, info: r.pass.TypesInfo, res: r}
	var cands []types.Type
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		var t types.Type
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				t = p.info.TypeOf(n.Type)
			}
		case *ast.CallExpr:
			if fn, ok := typeutil.Callee(p.info, n).(*types.Func); ok && isFunc(fn, "errors", "As") && len(n.Args) == 2 {
				if u, ok := astutil.Unparen(n.Args[1]).(*ast.UnaryExpr); ok {
					t = p.info.TypeOf(u.X)
				}
			}
		}
		if t != nil && !types.IsInterface(t) {
			cands = append(cands, t)
		}
		return true
	})
	if len(cands) == 0 || p.errTypeAnswer(sig, decl, nil) != No {
		return nil // some other error is retried too
	}
	for _, t := range cands {
		if p.errTypeAnswer(sig, decl, t) == Yes {
			return t
		}
	}
	return nil
}

// errTypeAnswer evaluates the classifier for an error of dynamic type t,
// or, with t nil, for an error of no type the package declares.
func (p *pkgCtx) errTypeAnswer(sig *types.Signature, decl *ast.FuncDecl, t types.Type) Tri {
	e := &ctxErrEval{p: p, bound: make(map[*types.Var]ctxVal), liveCtxs: true, dynType: t}
	errs := 0
	for i := 0; i < sig.Params().Len(); i++ {
		if pv := sig.Params().At(i); isErrorType(pv.Type()) {
			e.bound[pv] = ctxVal{isErr: true}
			errs++
		}
	}
	if errs != 1 {
		return Unknown
	}
	ans, _, _ := evalStmts(e, decl.Body.List)
	return ans
}

// LayerErrorType returns the type of error l's classifier retries, and
// only it (RetriedErrorType), for a classifier handed to the layer
// (a helper's or library's argument) or called in its condition, also
// through the variable that holds its verdict.
func (r *Result) LayerErrorType(l *Layer) types.Type {
	if t := r.RetriedErrorType(l.Policy.ClassifierFunc); t != nil {
		return t
	}
	c, _ := l.Policy.Classifier.(ast.Expr)
	if c == nil {
		return nil
	}
	p := &pkgCtx{pass: r.pass, info: r.pass.TypesInfo, res: r}
	var out types.Type
	ast.Inspect(c, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		var call *ast.CallExpr
		switch n := n.(type) {
		case *ast.CallExpr:
			call = n
		case *ast.Ident:
			if fn, ok := p.info.Uses[n].(*types.Func); ok {
				out = r.RetriedErrorType(fn)
				return false
			}
			if v := p.identVar(n); v != nil {
				call = p.verdictCall(v)
			}
		}
		if call != nil {
			out = r.RetriedErrorType(typeutil.StaticCallee(p.info, call))
		}
		return out == nil
	})
	return out
}

// OfType reports an error expression whose value is of type t: a value of
// t itself (&again{...}, e), or a call of a function of the package every
// return of which gives one (temporary(d), returning &again{d} as error).
func (r *Result) OfType(e ast.Expr, t types.Type) bool {
	info := r.pass.TypesInfo
	e = astutil.Unparen(e)
	if types.Identical(info.TypeOf(e), t) {
		return true
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := typeutil.StaticCallee(info, call)
	if fn == nil {
		return false
	}
	decl := r.decls[fn.Origin()]
	if decl == nil || decl.Body == nil {
		return false
	}
	rets := returns(decl)
	for _, ret := range rets {
		if len(ret.Results) == 0 || !types.Identical(info.TypeOf(ret.Results[len(ret.Results)-1]), t) {
			return false
		}
	}
	return len(rets) > 0
}
