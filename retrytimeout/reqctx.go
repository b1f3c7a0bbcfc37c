package retrytimeout

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// requestInScope finds the *http.Request the layer's operation sends again,
// when no context variable is in scope: a request the retry was handed (a
// parameter, or one built before the loop), whose Context() is the
// caller's, so a wait of the retry that ignores it keeps a caller that gave
// up waiting. A request built afresh inside each turn is not read. A
// request that is built here without a context (http.NewRequest, or
// WithContext of a context that is never done) carries Background and is
// skipped; a parameter carries whatever its caller gave it.
func (c *checker) requestInScope(l *retrymodel.Layer, pos token.Pos) (*types.Var, bool) {
	scope := c.pass.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return nil, false
	}
	info := c.pass.TypesInfo
	if l.Body == nil {
		return nil, false
	}
	// The requests the retried region sends: arguments of its calls (the
	// layer's Ops name only the call that last set each error).
	var found *types.Var
	ast.Inspect(l.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found != nil {
			return found == nil
		}
		for _, a := range call.Args {
			id, ok := astutil.Unparen(a).(*ast.Ident)
			if !ok {
				continue
			}
			v, ok := info.Uses[id].(*types.Var)
			if !ok || !isHTTPRequest(v.Type()) {
				continue
			}
			if _, obj := scope.LookupParent(v.Name(), pos); obj != v || c.requestNeverDone(v) {
				continue
			}
			if l.Body.Pos() <= v.Pos() && v.Pos() < l.Body.End() {
				continue // built afresh in each turn: not the request the retry was handed
			}
			found = v
		}
		return found == nil
	})
	if found != nil {
		return found, true
	}
	return nil, false
}

// requestNeverDone reports a local request whose every value carries a
// context that can never be done: req, err := http.NewRequest(...), or
// req.WithContext(context.Background()).
func (c *checker) requestNeverDone(v *types.Var) bool {
	info := c.pass.TypesInfo
	vals := c.tupleValuesOf(v)
	if len(vals) == 0 || slices.Contains(vals, nil) {
		return false // a parameter, or set in a way not followed
	}
	for _, e := range vals {
		call, ok := astutil.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := typeutil.StaticCallee(info, call)
		switch {
		case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" && fn.Name() == "NewRequest":
		case fn != nil && fn.Name() == "WithContext" && len(call.Args) == 1 && isHTTPRequest(info.TypeOf(call)):
			if !c.neverDone(call.Args[0], map[*types.Var]bool{}) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isHTTPRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Request"
}
