package retrystatus

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports a retry of overload answers that does not wait
// (category no-wait): a loop or recursion whose classifier retries 429 or
// a 5xx and that goes round again with no wait on the way, itself or in
// what it calls:
//
//	for i := 0; i < 3; i++ {
//		err = fn()
//		if v, ok := err.(HTTPError); ok && v.StatusCode() >= 500 {
//			continue // the next attempt leaves at once
//		}
//		break
//	}
//
// A 503 or 429 says the dependency is overloaded or limiting this client;
// the attempts that answer it arrive within milliseconds, from every
// client that got the same answer. The decision walk (eval.go) says, for
// each status, whether a path that retries it went through a wait: a
// sleep, a timer, a channel receive or select, a Wait method, a helper
// of the package that does one of those, or one of the model's waits. A
// wait under a condition the status does not decide (if attempt > 0
// { sleep }) counts on every path through it, so only a wait the status
// itself skips (a 429 case that sleeps beside a 5xx case that does not)
// leaves a retry bare. Quiet for conflict retries and for a single
// attempt.

// noWait reports the layer when it retries an overload answer with no
// wait between attempts.
func (ck *checker) noWait(l *retrymodel.Layer, ds []*decision) {
	if l.Kind != retrymodel.Loop || l.Body == nil || l.Policy.ConflictOnly.IsValid() || ck.inTest(l.Pos) || ck.isExample(l) {
		return
	}
	if n, ok := l.Attempts(); ok && n < 2 {
		return
	}
	// A wait in the loop's own clauses is on every path: the for
	// clause's condition or post statement, a range over a channel or an
	// iterator (each turn waits for the next attempt to be handed out).
	// So is one of the model's waits outside the body the decision walk
	// follows (a timer in the goroutine that feeds the loop).
	var body ast.Node
	switch n := l.Node.(type) {
	case *ast.ForStmt:
		if n.Cond != nil && ck.mayWait(n.Cond, 0, nil) || n.Post != nil && ck.mayWait(n.Post, 0, nil) {
			return
		}
		body = n.Body
	case *ast.RangeStmt:
		switch ck.info.TypeOf(n.X).Underlying().(type) {
		case *types.Chan, *types.Signature:
			return
		}
		body = n.Body
	case *ast.FuncDecl:
		body = n.Body
	}
	for _, w := range l.Waits {
		if body == nil || w.Pos() < body.Pos() || w.End() > body.End() {
			return
		}
	}
	var codes []int
	at := l.Pos
	for _, d := range ds {
		for c, pos := range d.bare {
			if (c == 429 || c >= 500 && c <= 599) && !slices.Contains(codes, c) {
				codes = append(codes, c)
				if pos.IsValid() && (at == l.Pos || pos < at) {
					at = pos // a recursion: where it calls itself
				}
			}
		}
	}
	if len(codes) == 0 {
		return
	}
	what := codeList(codes)
	attempts := "its attempts go out"
	if n, ok := l.Attempts(); ok {
		attempts = fmt.Sprintf("its %d attempts go out", n)
	}
	where := ""
	if len(l.Waits) > 0 {
		where = fmt.Sprintf(" (the wait at %s is on another path)", retrymodel.Shorten(ck.pass.Fset, l.Waits[0].Pos()))
	}
	ck.pass.Report(analysis.Diagnostic{
		Pos:      at,
		Category: "no-wait",
		Message: fmt.Sprintf("%s retries %s with no wait between attempts%s: %s back to back, so a dependency that answered that it is overloaded or limiting gets them again within milliseconds, from every client that got the same answer; wait between attempts (a backoff with jitter, or the Retry-After the server sends)",
			l.Name, what, where, attempts),
	})
}

// mayWait reports whether code under n may block for a while: a sleep or
// timer, a channel receive or select, a method named Wait (a rate
// limiter, a condition), a function whose summary waits, or a function
// of the package that does one of those (three levels). skip is a
// function not looked into: the retry by recursion being walked, whose
// call of itself is the next attempt, not a wait.
func (ck *checker) mayWait(n ast.Node, depth int, skip *types.Func) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if found {
			return false
		}
		switch e := x.(type) {
		case *ast.SelectStmt:
			found = true
		case *ast.UnaryExpr:
			if e.Op.String() == "<-" {
				found = true
			}
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(ck.pass.TypesInfo, e).(*types.Func)
			if fn == nil {
				return true
			}
			if fn.Pkg() != nil && fn.Pkg().Path() == "time" {
				switch fn.Name() {
				case "Sleep", "After", "NewTimer", "Tick", "NewTicker", "AfterFunc":
					found = true
				}
			}
			if strings.HasPrefix(fn.Name(), "Wait") {
				found = true
			}
			if ff := ck.res.Func(fn); ff != nil && (ff.Waiter || len(ff.WaitTable) > 0) {
				found = true
			}
			if d := ck.res.Decl(fn); d != nil && d.Body != nil && depth < 3 && fn != skip && ck.mayWait(d.Body, depth+1, skip) {
				found = true
			}
		}
		return !found
	})
	return found
}

// codeList names the codes: each when there are few, "every 5xx" for a
// range (>= 500), with 429 beside it.
func codeList(codes []int) string {
	slices.Sort(codes)
	var names []string
	fives := 0
	for _, c := range codes {
		if c >= 500 {
			fives++
		}
	}
	if fives > 4 {
		if codes[0] == 429 {
			names = append(names, "429")
		}
		return strings.Join(append(names, "every 5xx"), " and ")
	}
	for _, c := range codes {
		names = append(names, strconv.Itoa(c))
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
