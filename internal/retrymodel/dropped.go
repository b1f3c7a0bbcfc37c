package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// A retry layer multiplies the attempts of one it reaches only when the
// inner layer's failure makes it go round. The code between them may
// drop that failure: a function with no results cannot hand one up, and a
// call whose results are discarded (a statement, `_ = f()`, a deferred
// call) throws it away. A template fetch that retries, called by a mail
// sender that logs its error and sends without it, does not make the
// sender's retry send the mail again. The chains reached through such a
// call keep their layers (the census still counts what the deadline
// reaches) and carry the gap (Chain.Gap).

// dropScan records the calls whose results the statements it has seen
// discard. Statements are visited before the calls they hold (ast.Inspect
// order), so a call is known dropped when the walk reaches it.
type dropScan map[*ast.CallExpr]bool

// see records the call a statement discards the results of, or whose
// failure it absorbs.
func (d dropScan) see(info *types.Info, n ast.Node) {
	d.seeAbsorbed(info, n)
	switch s := n.(type) {
	case *ast.ExprStmt:
		if c, ok := astutil.Unparen(s.X).(*ast.CallExpr); ok {
			d[c] = true
		}
	case *ast.DeferStmt:
		d[s.Call] = true
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 {
			return
		}
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); !ok || id.Name != "_" {
				return
			}
		}
		if c, ok := astutil.Unparen(s.Rhs[0]).(*ast.CallExpr); ok {
			d[c] = true
		}
	}
}

// drops reports whether a failure inside call cannot reach the code
// around it: its results are discarded, or it has none.
func (d dropScan) drops(info *types.Info, call *ast.CallExpr) bool {
	if d[call] {
		return true
	}
	if tv, ok := info.Types[call.Fun]; ok && !tv.IsType() {
		if sig, ok := tv.Type.Underlying().(*types.Signature); ok && sig.Results().Len() == 0 {
			return true
		}
	}
	return false
}

// cut returns the chains as reached through a call that drops failures:
// the caller sees none of their layers fail.
func cut(cs []Chain) []Chain {
	out := make([]Chain, len(cs))
	for i, c := range cs {
		c.Gap = 1
		out[i] = c
	}
	return out
}

// Under returns c with head as a new outermost layer.
func (c Chain) Under(head LayerInfo) Chain {
	c.Layers = append([]LayerInfo{head}, c.Layers...)
	if c.Gap > 0 {
		c.Gap++
	}
	return c
}

// via returns c reached through the function named fn.
func (c Chain) via(fn string) Chain {
	c.Via = append([]string{fn}, c.Via...)
	return c
}

// Nesting returns the layers of c whose failures reach the code that
// reached c: the ones above its gap.
func (c Chain) Nesting() []LayerInfo {
	if c.Gap > 0 {
		return c.Layers[:c.Gap-1]
	}
	return c.Layers
}

// seeAbsorbed records, for a block, the calls whose failure the block
// tests and absorbs: `v, err := f()` (or the if's own init) followed by
// `if err != nil { log(err) } else { use(v) }`, where the failure branch
// only makes calls (a log line, a metric) and goes on, and neither err
// nor the call's other results are read anywhere else. The failure ends
// there; the code after it runs as on success.
func (d dropScan) seeAbsorbed(info *types.Info, n ast.Node) {
	switch s := n.(type) {
	case *ast.IfStmt:
		if s.Init != nil {
			d.absorbs(info, s.Init, s, s)
		}
	case *ast.BlockStmt:
		for i := 0; i+1 < len(s.List); i++ {
			if is, ok := s.List[i+1].(*ast.IfStmt); ok && is.Init == nil {
				d.absorbs(info, s.List[i], is, s)
			}
		}
	}
}

// absorbs marks the call of def when the if after it absorbs its failure;
// scope is where the defined names can be read.
func (d dropScan) absorbs(info *types.Info, def ast.Stmt, is *ast.IfStmt, scope ast.Node) {
	as, ok := def.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Rhs) != 1 {
		return
	}
	call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	errID, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident)
	if !ok {
		return
	}
	errObj, ok := info.Defs[errID].(*types.Var)
	if !ok || !isErrorType(errObj.Type()) {
		return
	}
	cond, ok := astutil.Unparen(is.Cond).(*ast.BinaryExpr)
	if !ok || cond.Op != token.NEQ || !isIdentOf(info, cond.X, errObj) || !isNil(info, cond.Y) {
		return
	}
	for _, st := range is.Body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			return
		}
		c, ok := astutil.Unparen(es.X).(*ast.CallExpr)
		if !ok {
			return
		}
		if id, ok := astutil.Unparen(c.Fun).(*ast.Ident); ok {
			if _, ok := info.Uses[id].(*types.Builtin); ok {
				return // panic
			}
		}
	}
	// Where each defined name may be read: err in the test and the
	// failure branch, the other results in the success branch.
	allowed := map[types.Object][]ast.Node{errObj: {cond.X, is.Body}}
	for _, l := range as.Lhs[:len(as.Lhs)-1] {
		id, ok := l.(*ast.Ident)
		if !ok {
			return
		}
		if obj := info.Defs[id]; obj != nil {
			allowed[obj] = []ast.Node{is.Else}
		}
	}
	clean := true
	ast.Inspect(scope, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || !clean {
			return clean
		}
		regions, ok := allowed[info.Uses[id]]
		if !ok {
			return true
		}
		in := false
		for _, r := range regions {
			if r != nil && within(id, r) {
				in = true
			}
		}
		clean = in
		return true
	})
	if clean {
		d[call] = true
	}
}
