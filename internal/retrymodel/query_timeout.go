package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Read-only queries for the retrytimeout analyzer.

// OwnRetryAfter returns where layer l itself reads Retry-After (or
// retry-after-ms) in its retried region: the header name written there,
// or a call of a function that reads it. Unlike Policy.RetryAfterPos it
// does not count calls that are retry layers themselves (an SDK or a
// retrying client reads the header for its own waits, which the outer
// layer's wait never sees), nor functions that reach a retry layer (their
// Retry-After reads are that layer's). ok is false when l has no region or
// reads nothing of its own.
func (r *Result) OwnRetryAfter(l *Layer) (token.Pos, bool) {
	if l.Body == nil {
		return token.NoPos, false
	}
	if at := l.Policy.RetryAfterPos; l.Kind == Library && l.Policy.RetryAfter == Yes && at.IsValid() && !(l.Body.Pos() <= at && at < l.Body.End()) {
		return at, true // the library's own option waits it (failsafehttp's DelayFunc)
	}
	info := r.pass.TypesInfo
	var pos token.Pos
	ast.Inspect(l.Body, func(n ast.Node) bool {
		if pos.IsValid() || n == nil {
			return false
		}
		if inner := r.byNode[n]; inner != nil && inner != l && inner.Body == nil {
			return false // an SDK or client call: its own Retry-After
		}
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			switch strings.ToLower(constant.StringVal(tv.Value)) {
			case "retry-after", "retry-after-ms", "x-ratelimit-reset", "x-ratelimit-reset-requests":
				pos = e.Pos()
			}
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if ff := r.Func(typeutil.StaticCallee(info, call)); (ff != nil && ff.RetryAfter && len(ff.Chains) == 0) || r.implReadsRetryAfter(call) {
				pos = call.Pos()
				return false
			}
		}
		return true
	})
	return pos, pos.IsValid()
}
