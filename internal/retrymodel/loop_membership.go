package retrymodel

import "go/ast"

// statusMembership recognises a range over a list of codes whose body
// leaves as soon as one matches the status:
//
//	for _, ok := range successStatus {
//		if ok == resp.StatusCode {
//			return resp, nil
//		}
//	}
//
// It is the membership test `if slices.Contains(successStatus, code) {
// return }` written as a loop: past it, the status matched none of the
// codes. It returns the inner test, nil for any other range.
func (p *pkgCtx) statusMembership(r *ast.RangeStmt, s *loopShape) *ast.IfStmt {
	if r.Body == nil || len(r.Body.List) != 1 {
		return nil
	}
	ifs, ok := r.Body.List[0].(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) == 0 || !p.statusTest(ifs.Cond, s) {
		return nil
	}
	if _, ok := ifs.Body.List[len(ifs.Body.List)-1].(*ast.ReturnStmt); !ok {
		return nil
	}
	plain := true
	ast.Inspect(ifs.Body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.BranchStmt, *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
			plain = false
		}
		return plain
	})
	if !plain {
		return nil
	}
	return ifs
}
