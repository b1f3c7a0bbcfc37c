package retrystatus

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Classifiers that stop retrying 429 and 5xx.
//
// A retrying client or SDK retries throttling (429) and server errors (5xx)
// by default; a classifier handed to it replaces that default. Two shapes
// are read:
//
//   - a retryablehttp CheckRetry that never retries a response: every
//     return, with err == nil, is false (`return err != nil, nil`: only
//     connection errors), or it tests the status and gives up on 429 and
//     on every 5xx;
//   - an aws-sdk-go-v2 Retryer whose IsErrorRetryable override neither
//     hands the error to the default (the embedded Retryer,
//     retry.DefaultRetryables) nor names throttling or 5xx itself, or
//     returns false in branches that test throttling and 5xx.
//
// Only both together are reported: giving up on one of them is a policy
// (an API without rate limits; a call kept off 5xx because it is not
// idempotent).

// stopsOnClient checks the custom CheckRetry of a retryablehttp layer.
func (ck *checker) stopsOnClient(l *retrymodel.Layer) {
	if l.Kind != retrymodel.Client {
		return
	}
	// A test's client that gives up at once is a fixture (a test of the
	// failure path), not the policy production traffic runs on.
	if strings.HasSuffix(ck.pass.Fset.Position(l.Pos).Filename, "_test.go") {
		return
	}
	pol := &l.Policy
	var node ast.Node
	switch c := pol.Classifier.(type) {
	case *ast.FuncLit:
		node = c
	}
	if fn := pol.ClassifierFunc; node == nil && fn != nil {
		if fn.Pkg() != nil && fn.Pkg().Path() == "github.com/hashicorp/go-retryablehttp" {
			return // a policy of the library: retries 429 and 5xx
		}
		if d := ck.decls[fn.Origin()]; d != nil {
			node = d
		}
	}
	if node == nil {
		return
	}
	var stopped []string
	if s := ck.summary(node); s != nil && s.dep {
		if only(s.codes[429].v, vF) {
			stopped = append(stopped, "429")
		}
		all5xx := true
		for _, c := range []int{500, 502, 503, 504} {
			if !only(s.codes[c].v, vF) {
				all5xx = false
			}
		}
		if all5xx {
			stopped = append(stopped, "5xx")
		}
	} else if ck.neverRetriesResponse(node) {
		stopped = []string{"429", "5xx"}
	}
	// One of the two stopped is a policy (an API without rate limits, a
	// non-idempotent call kept off 5xx); both is a classifier that retries
	// nothing the server says.
	if len(stopped) < 2 {
		return
	}
	pos := pol.Classifier.Pos()
	what := strings.Join(stopped, " and ")
	ck.reportOnce(pos, "stops", fmt.Sprintf("classifier stops retrying %s: the CheckRetry of %s gives up on %s, which the client's default retries (a throttled or recovering server); a 429 or 503 fails at once instead of after a wait; retry them, or call retryablehttp.DefaultRetryPolicy for what the code does not decide",
		what, describeLayer(l), what))
}

func only(v, want val) bool { return v == want }

// neverRetriesResponse evaluates a CheckRetry (ctx, resp, err) with err ==
// nil and the context live: true when every return it can reach is false.
func (ck *checker) neverRetriesResponse(node ast.Node) bool {
	var body *ast.BlockStmt
	var ft *ast.FuncType
	switch n := node.(type) {
	case *ast.FuncDecl:
		body, ft = n.Body, n.Type
	case *ast.FuncLit:
		body, ft = n.Body, n.Type
	}
	if body == nil || ft.Params.NumFields() != 3 {
		return false
	}
	var errVar *types.Var
	if f := ft.Params.List[len(ft.Params.List)-1]; len(f.Names) > 0 {
		errVar, _ = ck.info.Defs[f.Names[len(f.Names)-1]].(*types.Var)
	}
	if errVar == nil {
		return false
	}
	// cond evaluates a condition with err == nil and ctx live: 1 true, 0
	// false, -1 unknown.
	var cond func(e ast.Expr) int
	cond = func(e ast.Expr) int {
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			if tv, ok := ck.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
				if constant.BoolVal(tv.Value) {
					return 1
				}
				return 0
			}
		case *ast.UnaryExpr:
			if e.Op == token.NOT {
				if x := cond(e.X); x >= 0 {
					return 1 - x
				}
			}
		case *ast.BinaryExpr:
			switch e.Op {
			case token.LAND, token.LOR:
				x, y := cond(e.X), cond(e.Y)
				if e.Op == token.LAND {
					if x == 0 || y == 0 {
						return 0
					}
					if x == 1 && y == 1 {
						return 1
					}
					return -1
				}
				if x == 1 || y == 1 {
					return 1
				}
				if x == 0 && y == 0 {
					return 0
				}
				return -1
			case token.EQL, token.NEQ:
				id, ok := ast.Unparen(e.X).(*ast.Ident)
				if !ok || ck.info.Uses[id] != errVar || !isNilExpr(ck.info, e.Y) {
					break
				}
				if e.Op == token.EQL {
					return 1
				}
				return 0
			}
		case *ast.CallExpr:
			// ctx.Err() != nil is a BinaryExpr; errors.Is(err, ...) with
			// err nil is false.
			fn := typeutil.StaticCallee(ck.info, e)
			if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && (fn.Name() == "Is" || fn.Name() == "As") && len(e.Args) > 0 {
				if id, ok := ast.Unparen(e.Args[0]).(*ast.Ident); ok && ck.info.Uses[id] == errVar {
					return 0
				}
			}
		}
		return -1
	}
	any, retries := false, false
	var walk func(stmts []ast.Stmt)
	walk = func(stmts []ast.Stmt) {
		for _, st := range stmts {
			switch st := st.(type) {
			case *ast.ReturnStmt:
				if len(st.Results) < 1 {
					retries = true
					return
				}
				any = true
				if cond(st.Results[0]) != 0 {
					retries = true
				}
				return
			case *ast.IfStmt:
				switch cond(st.Cond) {
				case 1:
					walk(st.Body.List)
					return
				case 0:
					if st.Else != nil {
						walk([]ast.Stmt{st.Else})
						return
					}
				default:
					walk(st.Body.List)
					if st.Else != nil {
						walk([]ast.Stmt{st.Else})
					}
				}
			case *ast.BlockStmt:
				walk(st.List)
			case *ast.ExprStmt, *ast.AssignStmt, *ast.DeclStmt:
			default:
				retries = true // a loop, a switch: not read, assume it may retry
				return
			}
		}
	}
	walk(body.List)
	return any && !retries
}

// awsThrottle and aws5xx recognise what an IsErrorRetryable override
// names: throttling codes and checks, and server errors.
var (
	awsThrottle = regexp.MustCompile(`(?i)throttl|toomanyrequests|slowdown|requestlimitexceeded|\b429\b`)
	aws5xx      = regexp.MustCompile(`\b5\d\d\b|InternalError|ServiceUnavailable|Status5`)
)

// stopsAWSRetryer checks IsErrorRetryable methods of types that implement
// aws.Retryer.
func (ck *checker) stopsAWSRetryer() {
	var retryer *types.Interface
	for _, imp := range ck.pass.Pkg.Imports() {
		if imp.Path() == "github.com/aws/aws-sdk-go-v2/aws" {
			if tn, ok := imp.Scope().Lookup("Retryer").(*types.TypeName); ok {
				retryer, _ = tn.Type().Underlying().(*types.Interface)
			}
		}
	}
	if retryer == nil {
		return
	}
	for fn, decl := range ck.decls {
		if fn.Name() != "IsErrorRetryable" || decl.Body == nil {
			continue
		}
		recv := fn.Type().(*types.Signature).Recv()
		if recv == nil || !types.Implements(recv.Type(), retryer) && !types.Implements(types.NewPointer(recv.Type()), retryer) {
			continue
		}
		delegates, throttleFalse, fiveFalse := false, false, false
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if f := typeutil.Callee(ck.info, n); f != nil {
					if f.Name() == "IsErrorRetryable" || f.Name() == "DefaultRetryables" || f.Name() == "IsErrorRetryables" {
						delegates = true
					}
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "DefaultRetryables" {
					delegates = true
				}
			case *ast.IfStmt:
				if !returnsConst(ck.info, n.Body, false) {
					break
				}
				text := codeText(n.Cond)
				throttleFalse = throttleFalse || awsThrottle.MatchString(text) || ck.callsNamed(n.Cond, awsThrottle)
				fiveFalse = fiveFalse || aws5xx.MatchString(text)
			}
			return true
		})
		var stopped []string
		if !delegates {
			text := codeText(decl.Body)
			if !awsThrottle.MatchString(text) && !ck.callsNamed(decl.Body, awsThrottle) {
				throttleFalse = true
			}
			if !aws5xx.MatchString(text) {
				fiveFalse = true
			}
		}
		if throttleFalse {
			stopped = append(stopped, "throttling (429)")
		}
		if fiveFalse {
			stopped = append(stopped, "5xx")
		}
		if len(stopped) < 2 {
			continue // one of the two: a policy, not a classifier that retries nothing
		}
		how := "returns false for them"
		if !delegates {
			how = "replaces the SDK's retryables without retrying them"
		}
		what := strings.Join(stopped, " and ")
		ck.reportOnce(decl.Name.Pos(), "stops", fmt.Sprintf("classifier stops retrying %s: %s.IsErrorRetryable %s, which the SDK's standard retryer retries (with backoff and a retry token bucket); a throttled or failing request fails at once; hand what it does not decide to the wrapped Retryer's IsErrorRetryable",
			what, recvName(recv.Type()), how))
	}
}

// codeText is the names and literals of n, space separated, for the
// patterns above (source text would include comments).
func codeText(n ast.Node) string {
	var b strings.Builder
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.Ident:
			b.WriteString(x.Name + " ")
		case *ast.BasicLit:
			b.WriteString(x.Value + " ")
		case *ast.BinaryExpr:
			b.WriteString(x.Op.String() + " ")
		}
		return true
	})
	return b.String()
}

func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return types.TypeString(t, nil)
}

// callsNamed reports a call in n whose callee's name matches re
// (retry.IsErrorThrottles, isThrottle).
func (ck *checker) callsNamed(n ast.Node, re *regexp.Regexp) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if call, ok := x.(*ast.CallExpr); ok {
			if f := typeutil.Callee(ck.info, call); f != nil && re.MatchString(f.Name()) {
				found = true
			}
		}
		return !found
	})
	return found
}

// returnsConst reports a block that ends in `return <b>`.
func returnsConst(info *types.Info, b *ast.BlockStmt, want bool) bool {
	if len(b.List) == 0 {
		return false
	}
	r, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	if !ok || len(r.Results) != 1 {
		return false
	}
	tv, ok := info.Types[r.Results[0]]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value) == want
}

func (ck *checker) reportOnce(pos token.Pos, kind, msg string) {
	key := fmt.Sprintf("%d/%s", pos, kind)
	if ck.reported[key] {
		return
	}
	ck.reported[key] = true
	ck.pass.Reportf(pos, "%s", msg)
}
