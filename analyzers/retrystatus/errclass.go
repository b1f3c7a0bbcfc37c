package retrystatus

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports a retry classifier that retries one error and gives
// up on its sibling (category error-sibling): io.EOF retried and
// io.ErrUnexpectedEOF not. A peer that closes the connection between two
// messages gives io.EOF; the same close in the middle of a message gives
// io.ErrUnexpectedEOF (io.ReadFull, a length-prefixed frame), and the call
// fails at once with its attempts unused (franz-go's fix c706d79a). The
// model evaluates the classifier for each error (errclass.go there); a
// classifier that reads the error's text or a method of it is not decided
// and stays quiet.

func (ck *checker) errorSiblings() {
	for _, g := range ck.res.SentinelGaps() {
		if ck.inTest(g.Test.Pos()) {
			continue
		}
		ck.pass.Report(analysis.Diagnostic{
			Pos:      g.Test.Pos(),
			End:      g.Test.End(),
			Category: "error-sibling",
			Message: fmt.Sprintf("retry classifier %s retries %s but gives up on %s: a peer that closes the connection in the middle of a message (io.ReadFull's answer, a proxy cutting a frame) fails the call at once, while the same close between messages is retried; retry %s too",
				retrymodel.FuncName(g.Func), g.Retried, g.Missed, g.Missed),
			SuggestedFixes: ck.siblingFix(g),
		})
	}
}

// siblingFix adds the sibling to the test: errors.Is(err, io.EOF) ||
// errors.Is(err, io.ErrUnexpectedEOF), parenthesised unless the test is
// already a term of an || or a whole condition.
func (ck *checker) siblingFix(g retrymodel.SentinelGap) []analysis.SuggestedFix {
	src := ck.source(g.Test)
	if src == nil {
		return nil
	}
	text := string(src(g.Test))
	sibling := strings.Replace(text, g.Retried, g.Missed, 1)
	if sibling == text {
		return nil // io imported under another name
	}
	var file *ast.File
	for _, f := range ck.pass.Files {
		if f.Pos() <= g.Test.Pos() && g.Test.End() <= f.End() {
			file = f
		}
	}
	if file == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(file, g.Test.Pos(), g.Test.End())
	bare := false
	if len(path) > 1 {
		switch p := path[1].(type) {
		case *ast.BinaryExpr:
			bare = p.Op == token.LOR
		case *ast.IfStmt, *ast.ReturnStmt, *ast.CaseClause, *ast.ParenExpr:
			bare = true
		}
	}
	edit := text + " || " + sibling
	if !bare {
		edit = "(" + edit + ")"
	}
	return []analysis.SuggestedFix{{
		Message:   "retry " + g.Missed + " too",
		TextEdits: []analysis.TextEdit{{Pos: g.Test.Pos(), End: g.Test.End(), NewText: []byte(edit)}},
	}}
}
