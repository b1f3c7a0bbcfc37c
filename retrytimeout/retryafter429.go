package retrytimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// retryAfterOnly429 reports a Retry-After read that happens only for a
// 429 while 503 is retried too: a server that sheds load answers 503 with
// Retry-After (RFC 9110, 15.6.4), and the client retries it on its own
// schedule instead. The 503 retry is seen in the same function (a branch
// for 5xx that returns the same retry result without reading the header),
// or, for a function that computes a wait, in a retry policy of the same
// package that answers true for 503.
func (c *checker) retryAfterOnly429() {
	for _, h := range c.res.HintReads() {
		if c.inTestFile(h.Pos) {
			continue
		}
		// Read for a 429 (or under a flag besides), never for a 503.
		if at429, _ := c.res.ReadUnder(h, 429); at429 == retrymodel.No {
			continue
		}
		at503, test := c.res.ReadUnder(h, 503)
		if at503 != retrymodel.No || test == nil {
			continue
		}
		fn := h.Decl.Name.Name
		if pos, ok := c.sameFunc503(h); ok {
			c.report(pos, "retry-after-429", fmt.Sprintf("retry-after read only on 429: %s reads Retry-After only when the status is 429 (%s), but this branch retries 503 too with its own backoff, so a server that sheds load with 503 and Retry-After is retried before it asked; read the header for 503 as well",
				fn, c.pos(test.Pos())), nil)
			continue
		}
		if policy, pos, ok := c.policy503(h); ok {
			c.report(test.Pos(), "retry-after-429", fmt.Sprintf("retry-after read only on 429: %s reads Retry-After only when the status is 429, but %s (%s) retries 503 too, whose Retry-After is then ignored and the computed backoff used instead; read the header for 503 as well",
				fn, policy, c.pos(pos)), nil)
		}
	}
}

func (c *checker) pos(p token.Pos) string { return retrymodel.Shorten(c.pass.Fset, p) }

// sameFunc503 finds, in the function of h, a branch taken for 503 that
// returns what the branch of the read returns (the same retry result)
// without reading Retry-After.
func (c *checker) sameFunc503(h retrymodel.HintRead) (token.Pos, bool) {
	var want types.Type
	ast.Inspect(h.Decl.Body, func(n ast.Node) bool {
		if ret, ok := n.(*ast.ReturnStmt); ok && len(ret.Results) > 0 && ret.Pos() <= h.Pos && h.Pos < ret.End() {
			want = c.pass.TypesInfo.TypeOf(ret.Results[0])
		}
		return want == nil
	})
	if want == nil {
		return token.NoPos, false
	}
	var pos token.Pos
	ast.Inspect(h.Decl.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || pos.IsValid() {
			return !pos.IsValid()
		}
		if (ifs.Pos() <= h.Pos && h.Pos < ifs.End()) || c.res.StatusHolds(ifs.Cond, 503) != retrymodel.Yes || len(ifs.Body.List) == 0 {
			return true
		}
		ret, ok := ifs.Body.List[len(ifs.Body.List)-1].(*ast.ReturnStmt)
		if !ok || len(ret.Results) == 0 || !types.Identical(c.pass.TypesInfo.TypeOf(ret.Results[0]), want) {
			return true
		}
		if isBoolType(want) && !isTrue(c.pass.TypesInfo, ret.Results[0]) {
			return true
		}
		pos = ifs.Cond.Pos()
		return false
	})
	return pos, pos.IsValid()
}

// policy503 finds, for a function that returns a wait, a retry policy of
// the package (a function whose first result is bool) that returns true in
// a branch taken for 503.
func (c *checker) policy503(h retrymodel.HintRead) (string, token.Pos, bool) {
	sig, _ := c.pass.TypesInfo.Defs[h.Decl.Name].(*types.Func)
	if sig == nil {
		return "", token.NoPos, false
	}
	res := sig.Type().(*types.Signature).Results()
	if res.Len() != 1 || !isDurationType(res.At(0).Type()) {
		return "", token.NoPos, false
	}
	for _, f := range c.pass.Files {
		if c.inTestFile(f.Pos()) {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd == h.Decl {
				continue
			}
			fn, _ := c.pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			rs := fn.Type().(*types.Signature).Results()
			if rs.Len() == 0 || !isBoolType(rs.At(0).Type()) {
				continue
			}
			var pos token.Pos
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				ifs, ok := n.(*ast.IfStmt)
				if !ok || pos.IsValid() {
					return !pos.IsValid()
				}
				if _, lit := n.(*ast.FuncLit); lit {
					return false
				}
				if c.res.StatusHolds(ifs.Cond, 503) != retrymodel.Yes || len(ifs.Body.List) == 0 {
					return true
				}
				if ret, ok := ifs.Body.List[len(ifs.Body.List)-1].(*ast.ReturnStmt); ok && len(ret.Results) > 0 && isTrue(c.pass.TypesInfo, ret.Results[0]) {
					pos = ifs.Cond.Pos()
				}
				return true
			})
			if pos.IsValid() {
				return fd.Name.Name, pos, true
			}
		}
	}
	return "", token.NoPos, false
}

func isBoolType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

func isDurationType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}

func isTrue(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value)
}
