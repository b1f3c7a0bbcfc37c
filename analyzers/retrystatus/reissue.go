package retrystatus

import (
	"go/ast"
	"go/token"
	"slices"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// reissueDecision evaluates the classifier of a retry without a loop (a
// Bubble Tea Update that re-issues the request): the function on the
// failure path that answers the error either with the request again or
// with something else. A return that hands the request back is a retry.
func (ck *checker) reissueDecision(l *retrymodel.Layer) *decision {
	ri := ck.res.ReissueOf(l)
	if ri == nil || l.Policy.Classifier == nil {
		return nil
	}
	var body *ast.BlockStmt
	switch n := l.Policy.Classifier.(type) {
	case *ast.FuncDecl:
		body = n.Body
	case *ast.FuncLit:
		body = n.Body
	}
	if body == nil {
		return nil
	}
	d := newDecision(l)
	col := newCollector()
	for _, c := range universe {
		w := &walker{ck: ck, code: c, mode: modeReissue, col: col, reissue: ri}
		for _, f := range w.stmts(body.List, pathState{}) {
			if !f.st.dep {
				continue
			}
			switch f.kind {
			case fRetry:
				d.retried[c] = true
				if !f.st.body {
					d.noBody[c] = true
					if !f.st.changes {
						d.blind[c] = true
					}
				}
			case fStop:
				d.stopped[c] = true
				if !f.st.body {
					d.stopBlind[c] = true
				}
			}
		}
	}
	d.atoms, d.funcs, d.provider = col.atoms, col.funcs, col.provider
	return d
}

// changesState reports an assignment to a field (m.Config.Model =
// mod.Fallback): the re-issued request is built again from the model's
// state, so a retry after it is not the same request.
func changesState(s *ast.AssignStmt) bool {
	if s.Tok != token.ASSIGN {
		return false
	}
	for _, lhs := range s.Lhs {
		if _, ok := ast.Unparen(lhs).(*ast.SelectorExpr); ok {
			return true
		}
	}
	return false
}

// defaultAtom is the default clause of a switch on a status: it covers
// every code no case lists, so a default that retries retries them all
// (403, 405, 413, 422, ...).
func defaultAtom(s *ast.SwitchStmt, def *ast.CaseClause, tag ast.Expr, w *walker) *atom {
	var listed []int
	for _, c := range s.Body.List {
		for _, e := range c.(*ast.CaseClause).List {
			if k, ok := w.ck.intConst(e); ok {
				listed = append(listed, int(k))
			}
		}
	}
	a := &atom{kind: atomRange, pos: def.Pos(), operand: w.ck.text(tag)}
	for _, c := range universe {
		if !slices.Contains(listed, c) {
			a.covered = append(a.covered, c)
		}
	}
	return a
}
