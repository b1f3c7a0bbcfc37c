package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// retryAfterIgnored reports a layer that retries a 429 or 503 read from an
// HTTP response (an *http.Response, or an SDK error that carries one, such
// as openai-go's and anthropic-sdk-go's *Error) and computes its wait
// without reading Retry-After. SDK layers honour the header themselves; a
// retryablehttp client does with its DefaultBackoff and
// RateLimitLinearJitterBackoff.
func (c *checker) retryAfterIgnored(l *retrymodel.Layer) {
	pol := &l.Policy
	if pol.RetryAfter == retrymodel.Yes && !c.readByInnerLayer(l) {
		return
	}
	var codes []int64
	var pos token.Pos
	switch l.Kind {
	case retrymodel.SDK:
		return
	case retrymodel.Client:
		if pol.RetryAfter != retrymodel.No {
			return
		}
		codes, pos = c.clientCodes(l)
	case retrymodel.Library:
		if pol.RetryAfter == retrymodel.Unknown {
			return
		}
		codes, pos = c.retriedCodes(l)
	case retrymodel.Loop:
		if len(l.Waits) == 0 {
			return // retries at once: nothing computes a wait to replace
		}
		codes, pos = c.retriedCodes(l)
	}
	if len(codes) == 0 {
		return
	}
	var cs []string
	for _, code := range codes {
		cs = append(cs, fmt.Sprint(code))
	}
	waits := schedule(l)
	if len(pol.Waits) > 0 {
		list, _ := shownWaits(l)
		waits = "waits " + list
	}
	if c.manyWaits(l) {
		waits = "its own backoff"
		if ds, ok := c.waitChoices(l); ok {
			waits = "waits " + choiceList(ds)
		}
	}
	if waits == "" || waits == "waits not known statically" {
		waits = "its own backoff"
	}
	msg := fmt.Sprintf("retry-after ignored: %s retries %s but %s without reading the Retry-After header the server sends with it, so it comes back before the limit window has passed; wait what the server asks (Retry-After, or retry-after-ms from the AI APIs) and fall back to the backoff when it is absent",
		describe(l), strings.Join(cs, " and "), waitsVerb(waits))
	c.report(pos, "retry-after", msg, nil)
}

// waitsVerb turns a schedule into a clause: "waits 1s, 2s", "uses linear
// with jitter".
func waitsVerb(s string) string {
	if strings.HasPrefix(s, "waits ") || strings.HasPrefix(s, "its ") {
		return strings.Replace(s, "its own", "waits on its own", 1)
	}
	return "waits by " + s
}

// clientCodes: a retryablehttp client retries 429 and 503 under its
// default CheckRetry; a custom CheckRetry is read for the codes it names.
func (c *checker) clientCodes(l *retrymodel.Layer) ([]int64, token.Pos) {
	pos := l.Policy.WaitPos
	if !pos.IsValid() {
		pos = l.Pos
	}
	pol := &l.Policy
	if pol.Classifier == nil && pol.ClassifierFunc == nil {
		return []int64{429, 503}, pos
	}
	var regions []ast.Node
	if pol.Classifier != nil {
		regions = append(regions, pol.Classifier)
	}
	if fn := pol.ClassifierFunc; fn != nil {
		if fn.Pkg() != nil && fn.Pkg().Path() == "github.com/hashicorp/go-retryablehttp" {
			switch fn.Name() {
			case "DefaultRetryPolicy", "ErrorPropagatedRetryPolicy":
				return []int64{429, 503}, pos
			}
			return nil, pos
		}
		if d := c.res.Decl(fn); d != nil && d.Body != nil {
			regions = append(regions, d.Body)
		}
	}
	var codes []int64
	for _, r := range regions {
		ast.Inspect(r, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil && fn.Pkg() != nil &&
					fn.Pkg().Path() == "github.com/hashicorp/go-retryablehttp" &&
					(fn.Name() == "DefaultRetryPolicy" || fn.Name() == "ErrorPropagatedRetryPolicy") {
					codes = addCodes(codes, 429, 503)
				}
			}
			return true
		})
		for _, t := range c.statusTests(r) {
			codes = addCodes(codes, t.codes...)
		}
	}
	return codes, pos
}

// retriedCodes finds the 429/503 tests of a loop or library layer whose
// branch goes on to another attempt, and returns the codes and the first
// test's position.
func (c *checker) retriedCodes(l *retrymodel.Layer) ([]int64, token.Pos) {
	var regions []ast.Node
	if l.Body != nil {
		regions = append(regions, l.Body)
	}
	if l.Policy.Classifier != nil && (l.Body == nil || !within(l.Policy.Classifier, l.Body)) {
		regions = append(regions, l.Policy.Classifier)
	}
	if fn := l.Policy.ClassifierFunc; fn != nil {
		if d := c.res.Decl(fn); d != nil && d.Body != nil {
			regions = append(regions, d.Body)
		}
	}
	regions = append(regions, c.retryPredicates(l)...)
	var codes []int64
	var pos token.Pos
	for _, r := range regions {
		for _, t := range c.statusTests(r) {
			if !c.testRetries(l, r, t) {
				continue
			}
			codes = addCodes(codes, t.codes...)
			if !pos.IsValid() {
				pos = t.node.Pos()
			}
		}
	}
	return codes, pos
}

// retryPredicates returns the bodies of the package's functions the
// layer's body asks whether to go round again, handing them the status or
// the response: `if !isRetryable(resp.StatusCode) { return }` (also
// through a variable set once from the call), `if isRetryable(code) {
// continue }` or `if r.shouldRetry(resp) { wait; again }`. A true
// answer there is a retry, so their tests of 429 and 503 are the layer's.
func (c *checker) retryPredicates(l *retrymodel.Layer) []ast.Node {
	if l.Body == nil {
		return nil
	}
	info := c.pass.TypesInfo
	var out []ast.Node
	seen := map[*types.Func]bool{}
	ast.Inspect(l.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		cond, neg := astutil.Unparen(ifs.Cond), false
		if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
			cond, neg = astutil.Unparen(u.X), true
		}
		if id, ok := cond.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				if def, ok := c.res.WrittenOnce(v); ok {
					cond = astutil.Unparen(def)
				}
			}
		}
		call, ok := cond.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := typeutil.StaticCallee(info, call)
		if fn == nil || fn.Pkg() != c.pass.Pkg || seen[fn] {
			return true
		}
		status := false
		for _, a := range call.Args {
			// The status, or the response that carries it
			// (shouldRetry(resp) reading resp.StatusCode).
			status = status || c.isStatus(a, 0) || carriesResponse(info.TypeOf(a))
		}
		retry := neg && c.endsRetry(l, ifs.Body.List) || !neg && retryBranch(l, ifs.Body.List)
		if d := c.res.Decl(fn); status && retry && d != nil && d.Body != nil {
			seen[fn] = true
			out = append(out, d.Body)
		}
		return true
	})
	return out
}

// A statusTest is a comparison of an HTTP status with 429 or 503, a test
// of its membership in a code set that holds one of them, or a
// case clause of a switch on the status.
type statusTest struct {
	node  ast.Node // the *ast.BinaryExpr, the membership test or the *ast.CaseClause
	op    token.Token
	codes []int64
	// member: a membership test of a code set, which retries only when its
	// branch is the retry (not a counter bumped on the way).
	member bool
}

// statusTests finds the tests of a response status against 429 or 503 in
// root, without entering nested function literals other than root itself.
func (c *checker) statusTests(root ast.Node) []statusTest {
	var out []statusTest
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return n == root
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if code, ok := c.rateCode(pair[1]); ok && c.isStatus(pair[0], 0) {
					out = append(out, statusTest{node: n, op: n.Op, codes: []int64{code}})
					break
				}
			}
		case *ast.IndexExpr, *ast.CallExpr:
			// retryOn[resp.StatusCode], slices.Contains(codes, status): the
			// model resolves a set written once to its codes.
			set, key, ok := c.res.Membership(n.(ast.Expr))
			if !ok || !c.isStatus(key, 0) {
				return true
			}
			codes, ok := c.res.CodeSet(set)
			if !ok {
				return true
			}
			var rate []int64
			for _, k := range codes {
				if k == 429 || k == 503 {
					rate = addCodes(rate, int64(k))
				}
			}
			if len(rate) > 0 {
				out = append(out, statusTest{node: n, op: token.EQL, codes: rate, member: true})
			}
		case *ast.SwitchStmt:
			if n.Tag == nil || !c.isStatus(n.Tag, 0) {
				return true
			}
			for _, cl := range n.Body.List {
				cc, ok := cl.(*ast.CaseClause)
				if !ok {
					continue
				}
				var codes []int64
				for _, e := range cc.List {
					if code, ok := c.rateCode(e); ok {
						codes = addCodes(codes, code)
					}
				}
				if len(codes) > 0 {
					out = append(out, statusTest{node: cc, op: token.CASE, codes: codes})
				}
			}
		}
		return true
	})
	return out
}

// rateCode reports whether e is the constant 429 or 503.
func (c *checker) rateCode(e ast.Expr) (int64, bool) {
	tv, ok := c.pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return 0, false
	}
	n, ok := constant.Int64Val(tv.Value)
	if !ok || (n != 429 && n != 503) {
		return 0, false
	}
	return n, true
}

// isStatus reports whether e is the status code of an HTTP response:
// resp.StatusCode of an *http.Response, err.StatusCode of an error type
// that carries the *http.Response (openai.Error, anthropic.Error), or a
// local assigned once from one of those.
func (c *checker) isStatus(e ast.Expr, depth int) bool {
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.SelectorExpr:
		if e.Sel.Name != "StatusCode" {
			return false
		}
		return carriesResponse(c.pass.TypesInfo.TypeOf(e.X))
	case *ast.Ident:
		if depth > 2 {
			return false
		}
		v, ok := c.pass.TypesInfo.Uses[e].(*types.Var)
		if !ok {
			return false
		}
		if v.Kind() == types.ParamVar && c.res.StatusOf(e) == retrymodel.HTTPStatus {
			return true // a helper's code parameter, handed a status (the model's provenance)
		}
		vals := c.valuesOf(v)
		return len(vals) == 1 && c.isStatus(vals[0], depth+1)
	case *ast.CallExpr:
		// int(resp.StatusCode)
		if tv, ok := c.pass.TypesInfo.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return c.isStatus(e.Args[0], depth+1)
		}
		// statusOf(resp), c.code(resp): a wrapper that returns a
		// response's status, by the model's answer of where its result
		// comes from (a function of this package, or its StatusFact).
		return c.res.StatusOf(e) == retrymodel.HTTPStatus && handsResponse(c.pass.TypesInfo, e)
	}
	return false
}

// handsResponse reports a call handed a value that carries the response,
// so that the response whose status it returns, and its Retry-After, are
// in reach of the caller.
func handsResponse(info *types.Info, call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if carriesResponse(info.TypeOf(a)) {
			return true
		}
	}
	return false
}

// carriesResponse reports whether t is (a pointer to) net/http.Response or
// a struct with a Response *http.Response field.
func carriesResponse(t types.Type) bool {
	if t == nil {
		return false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Response" {
		return true
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if f.Name() != "Response" {
			continue
		}
		ft := f.Type()
		if p, ok := ft.(*types.Pointer); ok {
			ft = p.Elem()
		}
		if n, ok := types.Unalias(ft).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Response" {
			return true
		}
	}
	return false
}

// testRetries reports whether the status named by t goes on to another
// attempt: a != test (the branch is the other statuses), a case or == test
// whose branch does not end the retry, or a test that only classifies.
func (c *checker) testRetries(l *retrymodel.Layer, region ast.Node, t statusTest) bool {
	switch t.op {
	case token.NEQ:
		return true
	case token.CASE:
		return !c.endsRetry(l, t.node.(*ast.CaseClause).Body)
	}
	// ==: find the if statement whose condition holds the test, when the
	// test is not negated on the way.
	var branch []ast.Stmt
	found := false
	ast.Inspect(region, func(n ast.Node) bool {
		if found || n == nil {
			return false
		}
		ifs, ok := n.(*ast.IfStmt)
		if !ok || !within(t.node, ifs.Cond) {
			return true
		}
		found = true
		if !negated(ifs.Cond, t.node) {
			branch = ifs.Body.List
		}
		return false
	})
	if branch == nil {
		return true // a classification (retryable := code == 429 || ...), or a negated test
	}
	if c.onlyUnderCondition(l, region, branch) {
		return false
	}
	if t.member && !retryBranch(l, branch) {
		return false
	}
	return !c.endsRetry(l, branch)
}

// retryBranch reports whether a branch goes to the next attempt itself:
// it ends in continue or holds the layer's wait.
func retryBranch(l *retrymodel.Layer, stmts []ast.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	if b, ok := stmts[len(stmts)-1].(*ast.BranchStmt); ok && b.Tok == token.CONTINUE {
		return true
	}
	w := l.Policy.WaitPos
	return w.IsValid() && stmts[0].Pos() <= w && w < stmts[len(stmts)-1].End()
}

// endsRetry reports whether a branch ends the retry: for a loop, a final
// return or break; for a library operation, a return of a permanent error.
func (c *checker) endsRetry(l *retrymodel.Layer, stmts []ast.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	last := stmts[len(stmts)-1]
	switch st := last.(type) {
	case *ast.ReturnStmt:
		if l.Kind == retrymodel.Loop {
			return true
		}
		stop := false
		for _, r := range st.Results {
			ast.Inspect(r, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil {
						name := fn.Name()
						if strings.Contains(name, "Permanent") || strings.Contains(name, "Unrecoverable") {
							stop = true
						}
					}
				}
				return !stop
			})
		}
		return stop
	case *ast.BranchStmt:
		return l.Kind == retrymodel.Loop && st.Tok == token.BREAK
	case *ast.ExprStmt:
		if call, ok := st.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// negated reports whether the test sits under a ! in cond.
func negated(cond ast.Expr, test ast.Node) bool {
	neg := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.NOT && within(test, u) {
			neg = true
		}
		return !neg
	})
	return neg
}

func within(n, region ast.Node) bool {
	return region != nil && region.Pos() <= n.Pos() && n.End() <= region.End()
}

func addCodes(codes []int64, more ...int64) []int64 {
	for _, m := range more {
		dup := false
		for _, c := range codes {
			dup = dup || c == m
		}
		if !dup {
			codes = append(codes, m)
		}
	}
	return codes
}

// readByInnerLayer reports a RetryAfter that the model credits to a loop
// or library layer only because its region calls a retrying SDK or client
// that reads the header for its own waits (retrymodel's OwnRetryAfter finds
// no read of the layer's own). The outer layer's wait never sees it.
func (c *checker) readByInnerLayer(l *retrymodel.Layer) bool {
	if l.Body == nil || (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) {
		return false
	}
	_, own := c.res.OwnRetryAfter(l)
	return !own
}
