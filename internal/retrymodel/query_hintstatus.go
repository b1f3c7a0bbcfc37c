package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Under which response status a Retry-After read happens.
//
// A function that reads Retry-After only inside `if resp.StatusCode == 429`
// ignores the header on every other status it retries; a 503 with
// Retry-After (a server shedding load) is then retried on the client's own
// schedule. The model answers, for a read and a status code, whether the
// branches around the read are taken for a response with that status.

// A HintRead is one read of Retry-After in a function of the package.
type HintRead struct {
	Pos  token.Pos     // the header name
	Decl *ast.FuncDecl // the function that reads it
	// path is the chain of nodes from Decl down to the read.
	path []ast.Node
}

// HintReads returns the Retry-After reads of the package's functions.
func (r *Result) HintReads() []HintRead {
	var out []HintRead
	for _, f := range r.pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var stack []ast.Node
			ast.Inspect(fd, func(n ast.Node) bool {
				if n == nil {
					stack = stack[:len(stack)-1]
					return true
				}
				stack = append(stack, n)
				e, ok := n.(ast.Expr)
				if !ok {
					return true
				}
				tv, ok := r.pass.TypesInfo.Types[e]
				if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
					return true
				}
				if s := strings.ToLower(constant.StringVal(tv.Value)); (s == "retry-after" || s == "retry-after-ms") && !r.intoText(stack) {
					out = append(out, HintRead{Pos: e.Pos(), Decl: fd, path: append([]ast.Node(nil), stack...)})
				}
				return true
			})
		}
	}
	return out
}

// ReadUnder says whether the read happens for a response with status
// code, as far as the status decides: No when a branch around it that
// tests the status is not taken for code (the test is returned), Yes when
// every such branch is, Unknown when one also tests something else
// (c.retryOnRateLimit && status == 429). Branches that do not test the
// status (resp != nil) do not count.
func (r *Result) ReadUnder(h HintRead, code int64) (Tri, ast.Expr) {
	out := Yes
	var test ast.Expr
	for i := 0; i+1 < len(h.path); i++ {
		child := h.path[i+1]
		var t Tri
		var cond ast.Expr
		switch n := h.path[i].(type) {
		case *ast.IfStmt:
			switch {
			case child == n.Body:
				cond, t = n.Cond, r.StatusHolds(n.Cond, code)
			case child == n.Else:
				cond, t = n.Cond, r.StatusHolds(n.Cond, code).Not()
			default:
				continue
			}
		case *ast.CaseClause:
			if i < 2 {
				continue
			}
			ss, ok := h.path[i-2].(*ast.SwitchStmt)
			if !ok || ss.Tag == nil || r.StatusOf(ss.Tag) != HTTPStatus || n.List == nil || within(child, n.List[0]) {
				continue
			}
			t = No
			for _, e := range n.List {
				if v, ok := r.intConst(e); ok && v == code {
					t = Yes
				}
			}
			cond = n.List[0]
		default:
			continue
		}
		if !r.mentionsStatus(cond) {
			continue // a test of something else (resp != nil, a flag)
		}
		switch t {
		case No:
			return No, cond
		case Unknown:
			out = Unknown
		case Yes:
			test = cond
		}
	}
	return out, test
}

// StatusHolds evaluates cond for a response with status code: comparisons
// of the status (resp.StatusCode, status/100) with constants and its
// membership in a known code set, combined by &&, || and !. Anything else
// is Unknown.
func (r *Result) StatusHolds(cond ast.Expr, code int64) Tri {
	cond = astutil.Unparen(cond)
	switch c := cond.(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return r.StatusHolds(c.X, code).Not()
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			return r.StatusHolds(c.X, code).And(r.StatusHolds(c.Y, code))
		case token.LOR:
			return r.StatusHolds(c.X, code).Or(r.StatusHolds(c.Y, code))
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			x, okx := r.statusValue(c.X, code)
			y, oky := r.statusValue(c.Y, code)
			if !okx || !oky || !(r.mentionsStatus(c.X) || r.mentionsStatus(c.Y)) {
				return Unknown
			}
			if constant.Compare(constant.MakeInt64(x), c.Op, constant.MakeInt64(y)) {
				return Yes
			}
			return No
		}
	case *ast.IndexExpr, *ast.CallExpr:
		// retryOn[resp.StatusCode], slices.Contains(codes, status): a set
		// the package writes once (codeset.go).
		if set, key, ok := r.Membership(c); ok && r.StatusOf(key) == HTTPStatus {
			if codes, ok := r.CodeSet(set); ok {
				for _, k := range codes {
					if int64(k) == code {
						return Yes
					}
				}
				return No
			}
		}
	}
	return Unknown
}

// statusValue folds e with the response status set to code: a constant,
// the status, or status / n, status % n.
func (r *Result) statusValue(e ast.Expr, code int64) (int64, bool) {
	e = astutil.Unparen(e)
	if v, ok := r.intConst(e); ok {
		return v, true
	}
	if r.StatusOf(e) == HTTPStatus {
		return code, true
	}
	if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.QUO || b.Op == token.REM) {
		x, ok1 := r.statusValue(b.X, code)
		y, ok2 := r.intConst(b.Y)
		if ok1 && ok2 && y != 0 {
			if b.Op == token.QUO {
				return x / y, true
			}
			return x % y, true
		}
	}
	return 0, false
}

func (r *Result) intConst(e ast.Expr) (int64, bool) {
	tv, ok := r.pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(tv.Value)
}

// mentionsStatus reports whether e reads a response status.
func (r *Result) mentionsStatus(e ast.Expr) bool {
	return contains(e, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		return ok && r.StatusOf(x) == HTTPStatus
	})
}

// intoText reports a header read (the constant at the end of path, in a
// Header.Get call) whose value goes straight into a message: an argument
// of fmt's or a logger's formatting (fmt.Errorf("429: retry-after=%s",
// resp.Header.Get("Retry-After"))). That is a report of the hint, not a
// wait taken from it.
func (r *Result) intoText(path []ast.Node) bool {
	if len(path) < 3 {
		return false
	}
	get, ok := path[len(path)-2].(*ast.CallExpr)
	if !ok {
		return false
	}
	outer, ok := path[len(path)-3].(*ast.CallExpr)
	if !ok || !slices.Contains(outer.Args, ast.Expr(get)) {
		return false
	}
	fn, _ := typeutil.Callee(r.pass.TypesInfo, outer).(*types.Func)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "fmt", "log", "log/slog":
		return true
	}
	return false
}
