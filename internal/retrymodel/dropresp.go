package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// This file holds the responses a retry loop drops. A retry loop that
// sends an HTTP request and goes round again with the response's body
// neither read to the end nor closed leaves that response's connection
// taken: net/http returns a connection to its pool only when the body is
// closed or read to EOF. Every retry then opens another connection, and
// while the dependency keeps failing a caller holds one connection per
// retry until the server drops it (openai-go#495, ollama#14710,
// azure-sdk-for-go#1539, ocm-sdk-go#804).
//
// The send is net/http's own (Client.Do/Get/Post/PostForm, http.Get/Post,
// a RoundTrip), a method of an interface shaped Do(*http.Request)
// (*http.Response, error), or a function of this package that hands back
// such a send's response without touching its body (a wrapper that sets
// headers or captures the exchange for debugging: its caller holds the
// connection as if it had sent the request). A wrapper that reads or
// replaces the body may buffer it and hand back a response with nothing
// to close, so it is not counted. The
// response is dropped on a path from the send to the next attempt (a
// continue of the loop, or the end of its body) on which the send may
// have succeeded (net/http answers a nil response only with an error) and
// nothing else is done with the response than reading its status, header
// or other fields. Anything more (its body mentioned, the response handed
// to a function that may close it, stored, returned) counts as handled,
// and so does any use before the send in the loop (a previous attempt's
// response closed at the top of the next).

// A DroppedResponse is an HTTP response a retry loop drops unclosed when
// it goes round again.
type DroppedResponse struct {
	Call *ast.CallExpr // the send
	Var  *types.Var    // the response variable
	// Exit is the continue that starts the next attempt, or the last
	// statement of the loop body when the body falls through to it.
	Exit ast.Stmt
	// NonNil: the response is certainly non-nil at Exit (a successful
	// send, or its fields read, on every path there).
	NonNil bool
	// Before is the statement a close fits before: the first of the
	// innermost block on the way to Exit that starts after the send (the
	// branch that decided to retry), so the connection is not held
	// through the wait; Exit when there is none.
	Before ast.Stmt
	// LastKept: the last attempt's response is not dropped: the variable
	// outlives the loop and is read after it (returned, closed there), or
	// a test before Exit of more than the send (attempt == max) returns it.
	LastKept bool
}

// DroppedResponses returns the responses l's loop body drops unclosed on
// the way to its next attempt.
func (r *Result) DroppedResponses(l *Layer) []DroppedResponse {
	body, ok := l.Body.(*ast.BlockStmt)
	if l.Kind != Loop || !ok || len(body.List) == 0 {
		return nil
	}
	label := ""
	switch n := l.Node.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
	case *ast.LabeledStmt:
		switch n.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			label = n.Label.Name
		default:
			return nil // a goto loop
		}
	default:
		return nil
	}
	var exits []ast.Stmt
	if last := body.List[len(body.List)-1]; !endsPath(last) {
		exits = append(exits, fallThrough(last))
	}
	exits = append(exits, loopContinues(body, label)...)

	var out []DroppedResponse
	for _, s := range body.List {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
				return false
			case *ast.AssignStmt:
				if d, ok := r.dropped(l, n, body, exits); ok {
					out = append(out, d...)
				}
			}
			return true
		})
	}
	return out
}

// fallThrough returns the statement through which control falls off the
// end of s: for an if whose one branch leaves (returns, breaks), the last
// statement of the other branch, so that the walk to the exit passes the
// condition that leads there (if err != nil { wait } else { close;
// return }: only a failed send reaches the next turn).
func fallThrough(s ast.Stmt) ast.Stmt {
	ifs, ok := s.(*ast.IfStmt)
	if !ok || ifs.Else == nil {
		return s
	}
	var other *ast.BlockStmt
	switch {
	case endsPath(ifs.Body):
		other, _ = ifs.Else.(*ast.BlockStmt)
		if other == nil {
			if elif, ok := ifs.Else.(*ast.IfStmt); ok {
				return fallThrough(elif)
			}
		}
	case endsPath(ifs.Else):
		other = ifs.Body
	}
	if other == nil || len(other.List) == 0 {
		return s
	}
	return fallThrough(other.List[len(other.List)-1])
}

// dropped reports the exits of body at which the response as sends is
// dropped.
func (r *Result) dropped(l *Layer, as *ast.AssignStmt, body *ast.BlockStmt, exits []ast.Stmt) ([]DroppedResponse, bool) {
	info := r.pass.TypesInfo
	if len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return nil, false
	}
	call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil, false
	}
	fn, _ := typeutil.Callee(info, call).(*types.Func) // the interface method itself, for a call through one
	if !sendsHTTP(fn) && !r.returnsSentResponse(fn) {
		return nil, false
	}
	v := identVar(info, as.Lhs[0])
	if v == nil {
		return nil, false
	}
	errv := identVar(info, as.Lhs[1])
	lastKept := false
	if fn := r.enclosing(l.FuncNode); fn != nil && (v.Pos() < body.Pos() || v.Pos() >= body.End()) {
		ast.Inspect(fn, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && n.Pos() >= l.Node.End() && info.Uses[id] == v {
				lastKept = true
			}
			return !lastKept
		})
	}
	// A use before the send: the previous attempt's response is closed
	// (or kept) at the top of the next.
	before := false
	ast.Inspect(body, func(n ast.Node) bool {
		if n != nil && n.Pos() >= as.Pos() {
			return false
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
			before = true
		}
		return !before
	})
	if before {
		return nil, false
	}
	var out []DroppedResponse
	for _, e := range exits {
		if e.Pos() < as.End() {
			continue
		}
		path := nodePath(body, e)
		if path == nil {
			continue
		}
		if drops, nonNil, handsOn := r.dropsOn(path, as, v, errv); drops {
			out = append(out, DroppedResponse{Call: call, Var: v, Exit: e, NonNil: nonNil, Before: firstAfter(path, as, e), LastKept: lastKept || handsOn})
		}
	}
	return out, true
}

// dropsOn walks path (from the loop body down to the exit) and reports
// whether the response v sent by as may reach the exit non-nil and
// unhandled, and whether it is certainly non-nil there.
func (r *Result) dropsOn(path []ast.Node, as *ast.AssignStmt, v, errv *types.Var) (drops, nonNil, handsOn bool) {
	info := r.pass.TypesInfo
	sent := false   // as is on the path before this point
	failed := false // the send certainly failed here (err != nil, resp == nil)
	handled := false
	succ := func(e ast.Expr) bool { return succTest(info, e, v, errv) }
	// answered: e holds only for a response (err == nil, resp.StatusCode >= 500).
	answered := func(e ast.Expr) bool { return succ(e) || readsField(info, e, v) }
	fail := func(e ast.Expr) bool { return failTest(info, e, v, errv) }
	prefix := func(s ast.Stmt) {
		if !sent {
			if s == as {
				sent = true
			}
			return
		}
		if r.usesResponse(s, v) {
			handled = true
		}
		// if err == nil { ... return } / if resp != nil { return }: what
		// follows runs after a failed send only.
		if ifs, ok := s.(*ast.IfStmt); ok && ifs.Else == nil && endsPath(ifs.Body) {
			// if err != nil || ... || attempt == max { return resp, err }:
			// some attempt hands its response on by a test of more than
			// the send; the last one, when the loop bounds it so.
			if r.mentions(ifs.Body, v) && anyDisjunct(ifs.Cond, func(e ast.Expr) bool { return !r.mentions(e, v) && (errv == nil || !r.mentions(e, errv)) }) {
				handsOn = true
			}
			switch {
			case impliedBy(ifs.Cond, succ):
				failed = true
			case impliedBy(ifs.Cond, fail):
				failed, nonNil = false, true
			}
		}
	}
	for i, n := range path {
		if i+1 >= len(path) {
			break
		}
		next := path[i+1]
		switch n := n.(type) {
		case *ast.BlockStmt:
			for _, s := range n.List {
				if s == next {
					break
				}
				switch s.(type) {
				case *ast.CaseClause, *ast.CommClause:
					continue // a switch's or select's other clause: not on the way
				}
				prefix(s)
			}
		case *ast.CaseClause:
			for _, s := range n.Body {
				if s == next {
					break
				}
				prefix(s)
			}
			for _, e := range n.List {
				if sent && r.usesResponse(e, v) {
					handled = true
				}
			}
		case *ast.IfStmt:
			if n.Init != nil && n.Init != next {
				prefix(n.Init)
			}
			if next == n.Body || next == n.Else {
				if sent && r.usesResponse(n.Cond, v) {
					handled = true
				}
				if sent && (next == n.Body && implies(n.Cond, fail) || next == n.Else && impliedBy(n.Cond, succ)) {
					failed = true
				}
				if sent && next == n.Body && implies(n.Cond, answered) {
					nonNil = true
				}
			}
		case *ast.SwitchStmt:
			if n.Init != nil && n.Init != next {
				prefix(n.Init)
			}
			if n.Tag != nil && sent && r.usesResponse(n.Tag, v) {
				handled = true
			}
			if n.Tag != nil && sent && isFieldOf(info, n.Tag, v) {
				nonNil = true // switch resp.StatusCode: evaluated on the way to every case
			}
		case *ast.CommClause:
			for _, s := range n.Body {
				if s == next {
					break
				}
				prefix(s)
			}
		case *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.LabeledStmt:
		default:
			return false, false, false // a path through another kind of statement: not followed
		}
	}
	if last := path[len(path)-1]; last != nil {
		if s, ok := last.(ast.Stmt); ok {
			if _, isBranch := s.(*ast.BranchStmt); !isBranch {
				prefix(s) // the body's last statement runs before the next turn
			}
		}
	}
	return sent && !failed && !handled, nonNil, handsOn
}

// mentions reports whether n mentions v.
func (r *Result) mentions(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && r.pass.TypesInfo.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// anyDisjunct reports whether some operand of e's || chain satisfies f.
func anyDisjunct(e ast.Expr, f func(ast.Expr) bool) bool {
	if b, ok := astutil.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LOR {
		return anyDisjunct(b.X, f) || anyDisjunct(b.Y, f)
	}
	return f(e)
}

// enclosing returns the body of a function node.
func (r *Result) enclosing(fn ast.Node) ast.Node {
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		if fn.Body != nil {
			return fn.Body
		}
	case *ast.FuncLit:
		return fn.Body
	}
	return nil
}

// firstAfter returns the first statement of the innermost block (or case
// or select clause) of path that starts after as; exit when there is none.
func firstAfter(path []ast.Node, as *ast.AssignStmt, exit ast.Stmt) ast.Stmt {
	for i := len(path) - 1; i >= 0; i-- {
		var list []ast.Stmt
		switch n := path[i].(type) {
		case *ast.BlockStmt:
			list = n.List
			if len(list) > 0 {
				switch list[0].(type) {
				case *ast.CaseClause, *ast.CommClause:
					continue // a switch's or select's clauses: no statement goes between them
				}
			}
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		default:
			continue
		}
		if path[i].Pos() > as.End() && len(list) > 0 {
			return list[0]
		}
		return exit
	}
	return exit
}

// readsField reports a comparison with a field of the response v as an
// operand (resp.StatusCode >= 500): it holds only for a response.
func readsField(info *types.Info, e ast.Expr, v *types.Var) bool {
	b, ok := astutil.Unparen(e).(*ast.BinaryExpr)
	return ok && b.Op != token.LAND && b.Op != token.LOR && (isFieldOf(info, b.X, v) || isFieldOf(info, b.Y, v))
}

func isFieldOf(info *types.Info, e ast.Expr, v *types.Var) bool {
	sel, ok := astutil.Unparen(e).(*ast.SelectorExpr)
	return ok && isIdentOf(info, sel.X, v)
}

// usesResponse reports whether n does more with the response v than read
// its fields (other than Body) or compare it with nil, outside branches of
// n that end in a return, a break or a continue (those leave the path).
func (r *Result) usesResponse(n ast.Node, v *types.Var) bool {
	info := r.pass.TypesInfo
	used := false
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		ast.Inspect(n, func(m ast.Node) bool {
			if used || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.BlockStmt:
				if m != n && endsPath(m) {
					return false
				}
			case *ast.CaseClause:
				if len(m.Body) > 0 && endsPath(m.Body[len(m.Body)-1]) {
					for _, e := range m.List {
						walk(e)
					}
					return false
				}
			case *ast.SelectorExpr:
				if id, ok := m.X.(*ast.Ident); ok && info.Uses[id] == v {
					if m.Sel.Name == "Body" {
						used = true
					}
					return false
				}
			case *ast.BinaryExpr:
				if (m.Op == token.EQL || m.Op == token.NEQ) && (isIdentOf(info, m.X, v) && isNil(info, m.Y) || isIdentOf(info, m.Y, v) && isNil(info, m.X)) {
					return false
				}
			case *ast.AssignStmt:
				// resp = nil, or a new send into resp: not a use of the old one
				for i, l := range m.Lhs {
					if isIdentOf(info, l, v) && i < len(m.Rhs) && len(m.Lhs) == len(m.Rhs) && isNil(info, m.Rhs[i]) {
						return false
					}
				}
			case *ast.CallExpr:
				if r.readsFieldsOnly(m, v) || leavesBodyOpen(r.Callee(m)) {
					for _, a := range m.Args {
						if !isIdentOf(info, a, v) {
							walk(a)
						}
					}
					return false
				}
			case *ast.Ident:
				if info.Uses[m] == v {
					used = true
				}
			}
			return true
		})
	}
	walk(n)
	return used
}

// readsFieldsOnly reports a call of a function of this package that is
// handed v and whose parameter is only read for fields other than Body
// (a classifier shouldRetry(resp) that looks at resp.StatusCode).
func (r *Result) readsFieldsOnly(call *ast.CallExpr, v *types.Var) bool {
	info := r.pass.TypesInfo
	fn := r.Callee(call)
	if fn == nil {
		return false
	}
	fd := r.decls[fn]
	if fd == nil || fd.Body == nil {
		return false
	}
	sig := fn.Type().(*types.Signature)
	handed := false
	for i, a := range call.Args {
		if !isIdentOf(info, a, v) {
			continue
		}
		if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
			return false
		}
		p := sig.Params().At(i)
		handed = true
		ok := true
		ast.Inspect(fd.Body, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.SelectorExpr:
				if id, isID := m.X.(*ast.Ident); isID && info.Uses[id] == p {
					if m.Sel.Name == "Body" {
						ok = false
					}
					return false
				}
			case *ast.BinaryExpr:
				if (m.Op == token.EQL || m.Op == token.NEQ) && (isIdentOf(info, m.X, p) && isNil(info, m.Y) || isIdentOf(info, m.Y, p) && isNil(info, m.X)) {
					return false
				}
			case *ast.Ident:
				if info.Uses[m] == p {
					ok = false
				}
			}
			return ok
		})
		if !ok {
			return false
		}
	}
	return handed
}

// leavesBodyOpen reports standard functions that take a response and
// never close its body: httputil.DumpResponse reads the body and puts a
// buffered copy back, and fmt's and log's printers only format it. A
// debug dump or a log line on the way to the next attempt closes nothing.
func leavesBodyOpen(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "net/http/httputil":
		return fn.Name() == "DumpResponse"
	case "fmt", "log":
		return strings.Contains(strings.ToLower(fn.Name()), "print") || fn.Name() == "Errorf"
	}
	return false
}

// sendsHTTP reports net/http's own sends and the methods of interfaces
// shaped Do(*http.Request) (*http.Response, error). HEAD responses have
// no body to close.
func sendsHTTP(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	if fn.Pkg() != nil && fn.Pkg().Path() == "net/http" {
		switch fn.Name() {
		case "Do", "Get", "Post", "PostForm", "RoundTrip":
			return true
		}
		return false
	}
	return httpDoer(fn)
}

// returnsSentResponse reports a function of this package whose first
// result is a send's *http.Response handed back as it came: every return
// gives nil, a send, or a variable assigned only from sends, and nothing
// in the function mentions that variable's Body.
func (r *Result) returnsSentResponse(fn *types.Func) bool {
	if fn == nil || fn.Pkg() != r.pass.Pkg {
		return false
	}
	if ans, ok := r.sentResp[fn]; ok {
		return ans
	}
	if r.sentResp == nil {
		r.sentResp = map[*types.Func]bool{}
	}
	r.sentResp[fn] = false
	ans := r.passesResponse(fn)
	r.sentResp[fn] = ans
	return ans
}

func (r *Result) passesResponse(fn *types.Func) bool {
	fd := r.decls[fn]
	sig := fn.Type().(*types.Signature)
	if fd == nil || fd.Body == nil || sig.Results().Len() == 0 {
		return false
	}
	if p, ok := sig.Results().At(0).Type().(*types.Pointer); !ok || !namedIs(p.Elem(), "net/http", "Response") {
		return false
	}
	info := r.pass.TypesInfo
	isSend := func(e ast.Expr) bool {
		call, ok := astutil.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		callee, _ := typeutil.Callee(info, call).(*types.Func)
		return sendsHTTP(callee) || r.returnsSentResponse(callee)
	}
	// The variables returned, each of which must come only from sends.
	vars := map[*types.Var]bool{}
	sent := false
	ok := true
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its returns are its own
		case *ast.ReturnStmt:
			if len(n.Results) == 0 {
				if res := sig.Results().At(0); res.Name() != "" {
					vars[res] = true
				}
				return true
			}
			e := n.Results[0] // also return f(), the results of one call
			switch {
			case isNil(info, e):
			case isSend(e):
				sent = true
			default:
				if v := identVar(info, astutil.Unparen(e)); v != nil {
					vars[v] = true
				} else {
					ok = false
				}
			}
		}
		return ok
	})
	if !ok {
		return false
	}
	if len(vars) == 0 {
		return sent
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				v := identVar(info, l)
				if v == nil || !vars[v] {
					continue
				}
				switch {
				case i == 0 && len(n.Rhs) == 1 && isSend(n.Rhs[0]):
					sent = true
				case len(n.Rhs) == len(n.Lhs) && isNil(info, n.Rhs[i]):
				default:
					ok = false
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if v := identVar(info, id); v != nil && vars[v] && i < len(n.Values) && !isSend(n.Values[i]) && !isNil(info, n.Values[i]) {
					ok = false
				}
			}
		case *ast.SelectorExpr:
			if v := identVar(info, astutil.Unparen(n.X)); v != nil && vars[v] && n.Sel.Name == "Body" {
				ok = false
			}
		}
		return ok
	})
	return ok && sent
}

// The send's outcome tests: succTest is err == nil or resp != nil,
// failTest err != nil or resp == nil. implies(c, t): c holds only when t
// does; impliedBy(c, t): c holds whenever t does (so !c means not t).
func succTest(info *types.Info, e ast.Expr, v, errv *types.Var) bool {
	b, ok := astutil.Unparen(e).(*ast.BinaryExpr)
	return ok && (b.Op == token.EQL && errv != nil && nilTest(info, b, errv) || b.Op == token.NEQ && nilTest(info, b, v))
}

func failTest(info *types.Info, e ast.Expr, v, errv *types.Var) bool {
	b, ok := astutil.Unparen(e).(*ast.BinaryExpr)
	return ok && (b.Op == token.NEQ && errv != nil && nilTest(info, b, errv) || b.Op == token.EQL && nilTest(info, b, v))
}

func implies(e ast.Expr, test func(ast.Expr) bool) bool {
	if b, ok := astutil.Unparen(e).(*ast.BinaryExpr); ok {
		switch b.Op {
		case token.LAND:
			return implies(b.X, test) || implies(b.Y, test)
		case token.LOR:
			return implies(b.X, test) && implies(b.Y, test)
		}
	}
	return test(e)
}

func impliedBy(e ast.Expr, test func(ast.Expr) bool) bool {
	if b, ok := astutil.Unparen(e).(*ast.BinaryExpr); ok {
		switch b.Op {
		case token.LAND:
			return impliedBy(b.X, test) && impliedBy(b.Y, test)
		case token.LOR:
			return impliedBy(b.X, test) || impliedBy(b.Y, test)
		}
	}
	return test(e)
}

func nilTest(info *types.Info, b *ast.BinaryExpr, v *types.Var) bool {
	return isIdentOf(info, b.X, v) && isNil(info, b.Y) || isIdentOf(info, b.Y, v) && isNil(info, b.X)
}

func isIdentOf(info *types.Info, e ast.Expr, v *types.Var) bool {
	id, ok := astutil.Unparen(e).(*ast.Ident)
	return ok && v != nil && info.ObjectOf(id) == v
}

// endsPath reports a statement after which control does not go on to the
// next statement: a return, break, continue, goto or panic, a block that
// ends in one, an if whose branches both do, a switch whose clauses all
// leave (switchLeaves), a select whose clauses all do.
func endsPath(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.BlockStmt:
		return len(s.List) > 0 && endsPath(s.List[len(s.List)-1])
	case *ast.IfStmt:
		return s.Else != nil && endsPath(s.Body) && endsPath(s.Else)
	case *ast.LabeledStmt:
		return endsPath(s.Stmt)
	case *ast.SwitchStmt:
		return switchLeaves(s.Body)
	case *ast.TypeSwitchStmt:
		return switchLeaves(s.Body)
	case *ast.SelectStmt:
		return selectLeaves(s.Body)
	}
	return terminates(s)
}

// selectLeaves reports a select body whose every clause ends in a return,
// a continue or a goto: a select blocks until one clause runs, so control
// never reaches the statement after it (a break only leaves the select).
func selectLeaves(body *ast.BlockStmt) bool {
	for _, c := range body.List {
		clause, ok := c.(*ast.CommClause)
		if !ok || !clauseLeaves(clause.Body) {
			return false
		}
	}
	return len(body.List) > 0
}

func identVar(info *types.Info, e ast.Expr) *types.Var {
	id, ok := e.(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	v, _ := info.ObjectOf(id).(*types.Var)
	return v
}

// loopContinues returns the continue statements of the loop whose body is
// body: unlabelled ones outside nested loops, and those naming label.
// Nested loops and function literals are not entered.
func loopContinues(body *ast.BlockStmt, label string) []ast.Stmt {
	var out []ast.Stmt
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.BranchStmt:
			if n.Tok == token.CONTINUE && (n.Label == nil || n.Label.Name == label) {
				out = append(out, n)
			}
		}
		return true
	})
	return out
}

// nodePath returns the nodes from root down to target, both included.
func nodePath(root, target ast.Node) []ast.Node {
	var stack, found []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		stack = append(stack, n)
		if n == target {
			found = append([]ast.Node(nil), stack...)
			return false
		}
		if n.Pos() > target.Pos() || n.End() < target.End() {
			stack = stack[:len(stack)-1]
			return false
		}
		return true
	})
	return found
}
