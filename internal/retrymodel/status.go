package retrymodel

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A StatusKind says what kind of status code a value is: where it comes
// from decides it, not its name.
type StatusKind uint8

const (
	NoStatus   StatusKind = iota // not known to be a status
	HTTPStatus                   // an HTTP status code
	GRPCCode                     // a gRPC code (google.golang.org/grpc/codes.Code)
)

// StatusFact is exported for an exported function whose integer result is
// a status code (a wrapper returning resp.StatusCode), and for an exported
// field the package sets from one (its error type's Code).
type StatusFact struct{ Kind StatusKind }

// AFact marks StatusFact as an analysis fact.
func (*StatusFact) AFact() {}

func (f *StatusFact) String() string { return [...]string{"", "http status", "grpc code"}[f.Kind] }

// statusRoots are the fields and methods of other modules that hold a
// status whose writes this package cannot see: net/http's response, a
// recorder, and the error types of SDKs (set in an internal package of
// theirs, so no fact of the declaring package says it), by package path
// prefix and name.
var statusRoots = []struct{ pkg, name string }{
	{"net/http", "StatusCode"},
	{"net/http/httptest", "Code"},
	{"github.com/openai/openai-go", "StatusCode"},
	{"github.com/anthropics/anthropic-sdk-go", "StatusCode"},
	{"github.com/sashabaranov/go-openai", "HTTPStatusCode"},
	{"google.golang.org/api/googleapi", "Code"},
	{"github.com/Azure/azure-sdk-for-go/sdk/azcore", "StatusCode"},
	{"github.com/aws/smithy-go/transport/http", "HTTPStatusCode"},
	{"github.com/go-resty/resty", "StatusCode"},
}

// StatusOf answers where an integer value comes from when it is a status
// code: a gRPC code by its type (status.Code(err), st.Code(), codes.X);
// an HTTP status when it is a response's or an SDK error's StatusCode, a
// field of the package's own type set from one (&APIError{Code:
// resp.StatusCode}, taken back with errors.As), a local or variable
// written from one, a conversion of one, or the result of a function that
// returns one (here, or by its StatusFact). Parameters and values this
// package cannot follow are NoStatus: a caller that needs a bound treats
// an integer it compares with a 4xx/5xx code as a status itself.
func (r *Result) StatusOf(e ast.Expr) StatusKind {
	return r.statusOf(e, 0)
}

func (r *Result) statusOf(e ast.Expr, depth int) StatusKind {
	info := r.pass.TypesInfo
	t := info.TypeOf(e)
	if t == nil {
		return NoStatus
	}
	if isNamedType(t, pkgGRPCCodes, "Code") {
		return GRPCCode
	}
	if tup, ok := t.(*types.Tuple); ok && tup.Len() > 0 && isIntegral(tup.At(0).Type()) && depth <= 4 {
		// code, err := c.do(req): the write of code is the call itself.
		if call, ok := astutil.Unparen(e).(*ast.CallExpr); ok {
			if fn, ok := typeutil.Callee(info, call).(*types.Func); ok {
				return r.funcStatus(fn, depth)
			}
		}
	}
	if !isIntegral(t) || depth > 4 {
		return NoStatus
	}
	switch e := astutil.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if v := varOf(info, e); v != nil {
			return r.varStatus(v, depth)
		}
	case *ast.Ident:
		if v := varOf(info, e); v != nil {
			return r.varStatus(v, depth)
		}
	case *ast.CallExpr:
		if tv, ok := info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return r.statusOf(e.Args[0], depth+1)
		}
		if fn, ok := typeutil.Callee(info, e).(*types.Func); ok {
			return r.funcStatus(fn, depth)
		}
	}
	return NoStatus
}

func isNamedType(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// rootStatus reports an object of another module listed in statusRoots.
func rootStatus(obj types.Object) bool {
	if obj.Pkg() == nil {
		return false
	}
	path := obj.Pkg().Path()
	for _, s := range statusRoots {
		if obj.Name() == s.name && strings.HasPrefix(path, s.pkg) {
			return true
		}
	}
	return false
}

// varStatus: a variable or field is a status when a root says so, or when
// some value the package writes to it is one; another package's field by
// its fact, or else by what this package writes to it.
func (r *Result) varStatus(v *types.Var, depth int) StatusKind {
	if rootStatus(v) {
		return HTTPStatus
	}
	if v.Pkg() != r.pass.Pkg {
		var f StatusFact
		if v.Pkg() != nil && r.pass.ImportObjectFact(v, &f) {
			return f.Kind
		}
		if !v.IsField() {
			return NoStatus
		}
		// A field of another package's type that this package fills
		// (attempt.StatusCode = resp.StatusCode, for a record its
		// declaring package only holds): what is written here says.
	}
	if k, ok := r.statusMemo[v]; ok {
		return k
	}
	r.memoStatus(v, NoStatus) // cycles
	k := NoStatus
	vals, _ := r.Writes(v)
	if v.Kind() == types.ParamVar {
		// isRetryable(code int) called as isRetryable(resp.StatusCode).
		vals = append(vals, r.paramArgs[v]...)
	}
	for _, x := range vals {
		if x != nil {
			if k = r.statusOf(x, depth+1); k != NoStatus {
				break
			}
		}
	}
	r.memoStatus(v, k)
	return k
}

func (r *Result) memoStatus(o types.Object, k StatusKind) {
	if r.statusMemo == nil {
		r.statusMemo = map[types.Object]StatusKind{}
	}
	r.statusMemo[o] = k
}

// funcStatus: a function returns a status when one of its returns gives
// one as its first integer result (here), or by its fact.
func (r *Result) funcStatus(fn *types.Func, depth int) StatusKind {
	fn = fn.Origin()
	if rootStatus(fn) {
		return HTTPStatus
	}
	if fn.Pkg() != r.pass.Pkg {
		var f StatusFact
		if fn.Pkg() != nil && r.pass.ImportObjectFact(fn, &f) {
			return f.Kind
		}
		return NoStatus
	}
	if k, ok := r.statusMemo[fn]; ok {
		return k
	}
	r.memoStatus(fn, NoStatus)
	d := r.decls[fn]
	sig := fn.Type().(*types.Signature)
	k, idx := NoStatus, -1
	for i := 0; i < sig.Results().Len() && idx < 0; i++ {
		if isIntegral(sig.Results().At(i).Type()) {
			idx = i
		}
	}
	if d != nil && d.Body != nil && idx >= 0 {
		for _, ret := range returns(d) {
			if len(ret.Results) == sig.Results().Len() {
				if k = r.statusOf(ret.Results[idx], depth+1); k != NoStatus {
					break
				}
			}
		}
	}
	r.memoStatus(fn, k)
	return k
}

// exportStatusFacts exports a StatusFact for the package's exported
// functions that return a status and the exported fields it sets from one.
func (r *Result) exportStatusFacts() {
	for _, fn := range r.funcsInOrder() {
		if fn.Exported() {
			if k := r.funcStatus(fn, 0); k != NoStatus {
				r.pass.ExportObjectFact(fn, &StatusFact{k})
			}
		}
	}
	scope := r.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		for i := 0; i < st.NumFields(); i++ {
			// f.Pkg(): an alias of another package's struct lends its fields, which only their package may mark
			if f := st.Field(i); f.Exported() && f.Pkg() == r.pass.Pkg && isIntegral(f.Type()) {
				if k := r.varStatus(f, 0); k != NoStatus {
					r.pass.ExportObjectFact(f, &StatusFact{k})
				}
			}
		}
	}
}
