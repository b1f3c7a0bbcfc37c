package retrystatus

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// A classifier's verdict read with the wrong polarity.
//
// A classifier that returns (retry bool, err error), true for 5xx with the
// error set, answers "retry" on a server error. A caller that reads that
// first result as success,
//
//	ok, err := n.retrier.Check(resp.StatusCode, resp.Body)
//	if !ok {
//		return false, err
//	}
//	return true, nil
//
// hands the error on only when the classifier says "do not retry", and
// on a 5xx or a 429 drops it and returns no error: the failure counts as
// done and nothing retries it. Reported when the classifier is true for
// 5xx and every return of it that may be true carries a non-nil error
// (so true is a failure), the caller reads the error only where the
// verdict is false, the caller is not itself inside a retry (where
// dropping the error to go round again is right), and every return after
// the test returns a nil error.

// errOnTrue reports a (bool, error) function whose every return that may
// be true has a non-nil error: true is a failure verdict.
func (ck *checker) errOnTrue(d *ast.FuncDecl) bool {
	if d.Body == nil || d.Type.Results == nil || d.Type.Results.NumFields() != 2 {
		return false
	}
	sig, ok := ck.info.Defs[d.Name].Type().(*types.Signature)
	if !ok || !isBoolType(sig.Results().At(0).Type()) || !isErrorType(sig.Results().At(1).Type()) {
		return false
	}
	ok, any := true, false
	ast.Inspect(d.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) != 2 {
				ok = false
				return false
			}
			if b, isConst := ck.boolConst(n.Results[0]); isConst && !b {
				return true
			}
			any = true
			ok = ok && ck.nonNilErr(n.Results[1])
		}
		return ok
	})
	return ok && any
}

// nonNilErr recognises an error value that is never nil: errors.New,
// fmt.Errorf (and their pkg/errors, xerrors and cockroachdb forms), or a
// composite literal (or its address).
func (ck *checker) nonNilErr(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, lit := ast.Unparen(e.X).(*ast.CompositeLit)
		return e.Op == token.AND && lit
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(ck.info, e).(*types.Func)
		if fn == nil || fn.Pkg() == nil {
			return false
		}
		return newErrorFuncs[fn.Pkg().Path()+"."+fn.Name()]
	}
	return false
}

// newErrorFuncs always return a new error (never nil); Wrap and the like
// return nil for a nil error and are not here.
var newErrorFuncs = map[string]bool{
	"errors.New": true, "fmt.Errorf": true,
	"github.com/pkg/errors.New": true, "github.com/pkg/errors.Errorf": true,
	"golang.org/x/xerrors.New": true, "golang.org/x/xerrors.Errorf": true,
	"github.com/cockroachdb/errors.New": true, "github.com/cockroachdb/errors.Newf": true, "github.com/cockroachdb/errors.Errorf": true,
}

func isErrorType(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// retryVerdict returns the 5xx codes and 429 a classifier is always true
// for, when its true is a failure verdict (errOnTrue): through its own
// summary here, else its fact.
func (ck *checker) retryVerdict(fn *types.Func) []int {
	var codes []int
	if d := ck.decls[fn.Origin()]; d != nil {
		s := ck.summary(d)
		if s == nil || !s.dep || !ck.errOnTrue(d) {
			return nil
		}
		for _, c := range verdictCodes {
			if s.codes[c].v == vT {
				codes = append(codes, c)
			}
		}
	} else {
		var f ClassifierFact
		if fn.Pkg() == nil || !ck.pass.ImportObjectFact(fn.Origin(), &f) || !f.ErrOnTrue {
			return nil
		}
		for _, c := range verdictCodes {
			if r, ok := f.lookup(c); ok && r.True && !r.False {
				codes = append(codes, c)
			}
		}
	}
	for _, c := range codes {
		if c >= 500 {
			return codes
		}
	}
	return nil // true for no 5xx: not a retry verdict
}

var verdictCodes = []int{tooMany, 500, 502, 503, 504}

// polarity checks every `v, err := classify(...)` of the package.
func (ck *checker) polarity() {
	for _, f := range ck.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			var ft *ast.FuncType
			name := "the function"
			switch n := n.(type) {
			case *ast.FuncDecl:
				body, ft, name = n.Body, n.Type, n.Name.Name
			case *ast.FuncLit:
				body, ft = n.Body, n.Type
			default:
				return true
			}
			if body == nil || ft.Results == nil || len(ft.Results.List) == 0 {
				return true
			}
			last := ft.Results.List[len(ft.Results.List)-1]
			if !isErrorType(ck.info.TypeOf(last.Type)) {
				return true
			}
			ast.Inspect(body, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.FuncLit:
					return false // checked as a function of its own
				case *ast.AssignStmt:
					ck.polarityAt(m, body, name)
				}
				return true
			})
			return true
		})
	}
}

// polarityAt checks one `v, err := call` in a function body that returns
// an error.
func (ck *checker) polarityAt(as *ast.AssignStmt, body *ast.BlockStmt, caller string) {
	if len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	bID, ok1 := as.Lhs[0].(*ast.Ident)
	eID, ok2 := as.Lhs[1].(*ast.Ident)
	if !ok1 || !ok2 {
		return
	}
	bVar, _ := ck.info.ObjectOf(bID).(*types.Var)
	eVar, _ := ck.info.ObjectOf(eID).(*types.Var)
	fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
	if bVar == nil || eVar == nil || fn == nil {
		return
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Results().Len() != 2 || !isBoolType(sig.Results().At(0).Type()) || !isErrorType(sig.Results().At(1).Type()) {
		return
	}
	for _, l := range ck.res.Layers {
		if l.Body != nil && l.Body.Pos() <= as.Pos() && as.End() <= l.Body.End() {
			return // inside a retry: dropping the error to go round again is right
		}
	}
	codes := ck.retryVerdict(fn)
	if codes == nil {
		return
	}
	// The tests of the verdict after the call: `if !v { ... }` (its body
	// runs when v is false) and `if v { ... } else { ... }` (its else).
	var tests []*ast.IfStmt
	var falseRegions []ast.Node
	end := token.Pos(0) // the next write of err ends what this call gave it
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if n.Pos() > as.End() && end == 0 {
				for _, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && ck.info.ObjectOf(id) == eVar {
						end = n.Pos()
					}
				}
			}
		case *ast.IfStmt:
			if n.Pos() < as.End() {
				return true
			}
			switch c := ast.Unparen(n.Cond).(type) {
			case *ast.UnaryExpr:
				if id, ok := ast.Unparen(c.X).(*ast.Ident); ok && c.Op == token.NOT && ck.info.Uses[id] == bVar {
					tests = append(tests, n)
					falseRegions = append(falseRegions, n.Body)
				}
			case *ast.Ident:
				if ck.info.Uses[c] == bVar && n.Else != nil {
					tests = append(tests, n)
					falseRegions = append(falseRegions, n.Else)
				}
			}
		}
		return true
	})
	if len(tests) == 0 {
		return
	}
	// Every read of err the call gave lies where the verdict is false.
	reads := 0
	quiet := false
	ast.Inspect(body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || ck.info.Uses[id] != eVar || id.Pos() <= as.End() || (end != 0 && id.Pos() >= end) {
			return true
		}
		reads++
		in := false
		for _, r := range falseRegions {
			in = in || r.Pos() <= id.Pos() && id.End() <= r.End()
		}
		quiet = quiet || !in
		return true
	})
	if quiet || reads == 0 {
		return
	}
	// The true path goes on to report success: every later return gives a
	// nil error.
	after := tests[0].End()
	returns := 0
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if n.Pos() < after {
				return true
			}
			returns++
			if len(n.Results) == 0 || !ck.isNil(ast.Unparen(n.Results[len(n.Results)-1])) {
				quiet = true
			}
		}
		return true
	})
	if quiet || returns == 0 {
		return
	}
	ck.reportOnce(as.Pos(), "polarity", fmt.Sprintf(
		"%s reads %s's first result (%s) as success, but it is the retry verdict (true for %s, with the error set): on those codes the error is dropped and %s returns nil, so the failure counts as done and is never retried; hand the verdict on as retry, or test the error first",
		caller, fn.Name(), bID.Name, andCodes(codes), caller))
}

// andCodes renders "429, 500 and 503".
func andCodes(cs []int) string {
	s := joinCodes(cs, false)
	if i := strings.LastIndex(s, ", "); i >= 0 {
		s = s[:i] + " and " + s[i+2:]
	}
	return s
}
