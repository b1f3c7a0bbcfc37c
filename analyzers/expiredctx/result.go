package expiredctx

import "go/ast"

// Writes is the analyzer's result: which calls of the package are work
// that must happen (the classification the analyzer itself uses), for
// analyzers that ask whether code writes (doubleretry: a handler behind a
// proxy that retries it).
type Writes struct{ c *checker }

// A Write is one such call.
type Write struct {
	Call   *ast.CallExpr
	Kind   string // "status write", "publish", "write", ...
	Callee string // as written: s.store.Save
}

// In returns the first write in n (a function body), reading the calls of
// project functions through their WritesFacts. ok is false when n makes
// none, or the package imports no context (nothing was classified).
func (w *Writes) In(n ast.Node) (Write, bool) {
	if w == nil || n == nil {
		return Write{}, false
	}
	var found *write
	ast.Inspect(n, func(x ast.Node) bool {
		if found != nil {
			return false
		}
		if call, ok := x.(*ast.CallExpr); ok {
			found = w.c.classify(call)
		}
		return found == nil
	})
	if found == nil {
		return Write{}, false
	}
	return Write{Call: found.call, Kind: found.kind, Callee: found.callee}, true
}
