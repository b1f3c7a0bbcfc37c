package retrystatus

import (
	"fmt"
	"go/ast"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file holds the dropped-response check: a retry loop that goes
// round again with the failed attempt's response body neither closed nor
// read leaves that connection taken (net/http pools a connection only once
// its body is closed or read to EOF). While the dependency keeps failing,
// every retry opens another connection, and a caller holds one per retry
// until the server drops it: connection and file-descriptor exhaustion
// from a dependency that only answered 503 (openai-go#495, ollama#14710).

// droppedResponses reports the responses l's loop drops unclosed.
func (ck *checker) droppedResponses(l *retrymodel.Layer) {
	if ck.isExample(l) || ck.inTest(l.Pos) {
		return
	}
	for _, d := range ck.res.DroppedResponses(l) {
		key := fmt.Sprintf("%d/dropped", d.Exit.Pos())
		if ck.reported[key] {
			continue
		}
		ck.reported[key] = true
		name := d.Var.Name()
		next := "goes round again"
		if br, ok := d.Exit.(*ast.BranchStmt); ok && br.Label == nil {
			next = "continues"
		}
		msg := fmt.Sprintf("%s at %s %s here without closing %s.Body: the connection of each failed attempt stays taken, so %s; close %s.Body (drain it first to reuse the connection) before the next attempt",
			l.Name, ck.short(l.Pos), next, name, leakCount(l, d), name)
		diag := analysis.Diagnostic{
			Pos:      d.Exit.Pos(),
			End:      d.Exit.End(),
			Category: "dropped-response",
			Message:  msg,
			Related:  []analysis.RelatedInformation{{Pos: d.Call.Pos(), Message: "the response is received here"}},
		}
		if fix, ok := ck.closeFix(d); ok {
			diag.SuggestedFixes = []analysis.SuggestedFix{fix}
		}
		ck.pass.Report(diag)
	}
}

// leakCount says how many connections one call can leave taken.
// Every attempt's response is dropped, the last one's too unless the code
// after the loop reads the variable (returns or closes it).
func leakCount(l *retrymodel.Layer, d retrymodel.DroppedResponse) string {
	if n, ok := l.Attempts(); ok && n > 1 {
		if d.LastKept {
			n--
		}
		return fmt.Sprintf("one call holds up to %d connections while the dependency keeps failing", n)
	}
	if l.Policy.Attempts.Known && l.Policy.Attempts.N == 0 {
		return "one call holds one more connection per retry, with no bound, while the dependency keeps failing"
	}
	return "one call holds one more connection per retry while the dependency keeps failing"
}

// closeFix inserts resp.Body.Close() on its own line at the top of the
// branch that continues (before its wait), guarded by resp != nil unless
// the response is certainly there. A body that falls through to the next
// attempt gets no fix: where the close belongs is a choice.
func (ck *checker) closeFix(d retrymodel.DroppedResponse) (analysis.SuggestedFix, bool) {
	_, ok := d.Exit.(*ast.BranchStmt)
	if !ok || d.Before == nil {
		return analysis.SuggestedFix{}, false
	}
	col := ck.pass.Fset.Position(d.Before.Pos()).Column
	if col < 1 {
		return analysis.SuggestedFix{}, false
	}
	indent := strings.Repeat("\t", col-1)
	name := d.Var.Name()
	text := fmt.Sprintf("%s.Body.Close()\n%s", name, indent)
	if !d.NonNil {
		text = fmt.Sprintf("if %s != nil {\n%s\t%s.Body.Close()\n%s}\n%s", name, indent, name, indent, indent)
	}
	return analysis.SuggestedFix{
		Message:   "Close " + name + ".Body before the next attempt",
		TextEdits: []analysis.TextEdit{{Pos: d.Before.Pos(), End: d.Before.Pos(), NewText: []byte(text)}},
	}, true
}
