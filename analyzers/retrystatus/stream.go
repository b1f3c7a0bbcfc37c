package retrystatus

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file holds the stream check: a retry whose operation opens a
// stream and hands it on unread classifies only failures to open it.
// After the 200, a failure arrives in the stream (an error event, a
// connection dropped mid-answer, a gRPC status on Recv), outside the
// retried region, so nothing retries it and the caller gets a truncated
// answer (seed 003).
//
// Quiet: a stream read inside the retried region (its error can feed the
// decision), handed to a function there (which may read it), and a stream
// returned to a caller in this package that opens it inside a retry of its
// own or returned by an exported function, or by a method that serves an
// exported interface of the package (the error is deliberately the
// caller's to retry, and another package's callers are not seen here).

// streams reports l's retried region opening a stream it never reads.
func (ck *checker) streams(l *retrymodel.Layer) {
	if ck.isExample(l) || ck.inTest(l.Pos) {
		return
	}
	for _, so := range ck.res.StreamOpens(l) {
		if so.Leaves.IsValid() && (ck.retriedByCaller(l.Func) || exported(l.Func)) {
			continue
		}
		where := "after the retried region"
		if so.Leaves.IsValid() {
			where = "in the caller, after the return at " + ck.short(so.Leaves)
		}
		msg := fmt.Sprintf("%s at %s retries opening the stream (%s) but never reads it: errors that arrive after the response starts (an error event, a connection dropped mid-answer) come from %s.%s() %s and are never retried, so the caller gets a truncated answer; read the stream inside the retried region and retry on its error before any output is passed on",
			l.Name, ck.short(l.Pos), callText(so.Call), so.Var.Name(), so.Read, where)
		key := fmt.Sprintf("%d/stream", so.Call.Pos())
		if ck.reported[key] {
			continue
		}
		ck.reported[key] = true
		ck.pass.Report(analysis.Diagnostic{
			Pos:      so.Call.Pos(),
			End:      so.Call.End(),
			Category: "stream-error",
			Message:  msg,
			Related:  []analysis.RelatedInformation{{Pos: l.Pos, Message: "the retry"}},
		})
	}
}

// exported reports a function other packages call: the stream it returns
// is read there, by code this package cannot see, which may retry it.
func exported(fn *types.Func) bool {
	if fn == nil || !fn.Exported() {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return true
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return !ok || n.Obj().Exported() || servesExportedIface(fn, n)
}

// servesExportedIface reports a method of an unexported type that
// implements an exported interface of its package with it (a retrying
// decorator behind the package's Provider interface): other packages call
// it through the interface.
func servesExportedIface(fn *types.Func, n *types.Named) bool {
	pkg := n.Obj().Pkg()
	if pkg == nil {
		return false
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok || iface.NumMethods() == 0 {
			continue
		}
		if m, _, _ := types.LookupFieldOrMethod(iface, false, pkg, fn.Name()); m == nil {
			continue // fn is no method of this interface
		}
		if types.Implements(n, iface) || types.Implements(types.NewPointer(n), iface) {
			return true
		}
	}
	return false
}

// callText renders a call's function as written: client.CreateChatCompletionStream.
func callText(call *ast.CallExpr) string { return types.ExprString(call.Fun) }

// retriedByCaller reports whether fn is called, in this package, inside
// the retried region of a retry layer: the stream it returns is then read
// (or not) where that layer can retry it.
func (ck *checker) retriedByCaller(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	for _, l := range slices.Concat(ck.res.Layers, ck.res.HelperLayers) {
		if l.Body == nil || l.Func == fn {
			continue
		}
		found := false
		ast.Inspect(l.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && ck.res.Callee(call) == fn {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
