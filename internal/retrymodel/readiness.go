package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A cycle around an operation is a retry when the operation's failure is
// what sends it round again. Some cycles have that shape but wait for a
// state instead; retryNot says why a recognised loop is one of those:
//   - the operation reads local state (a file, a directory): the loop waits
//     for something to appear, nothing failed;
//   - the operation is a readiness check (Ping, /healthz, /ready), a
//     dial whose connection is only closed (a port probe), or
//     targets a service on this machine (localhost, 127.0.0.1, ::1), often
//     one the function has just started: a start-up wait;
//   - the loop waits before its first attempt: it asks at an interval (an
//     OAuth device-code poll), so its "failures" are states (pending);
//   - the server answered and the answer is a state, not a failure: the
//     loop goes round only on client-error statuses that say "not yet"
//     (403, 404 until a login is approved), gives up on every transport
//     error, and waits the same interval each turn.
//
// It returns "" for a retry.
func (p *pkgCtx) retryNot(body *ast.BlockStmt, shape *loopShape, waits []waitSite, fnNode ast.Node) string {
	ops := shape.ops
	if len(ops) == 0 {
		return ""
	}
	local, ready := true, true
	for _, op := range ops {
		local = local && p.localRead(op)
		ready = ready && (p.readinessCheck(op) || p.localTarget(op, fnNode) || p.portProbe(op, fnNode))
	}
	switch {
	case local:
		return "reads local state"
	case ready:
		return "readiness wait"
	case p.waitsFirst(body, ops, waits) && !p.attemptBefore(body, ops, fnNode):
		return "polls at an interval"
	case p.pendingPoll(body, shape, waits):
		return "polls for a state"
	}
	return ""
}

// pendingPoll: every status the loop's decisions test is a success or a
// client error other than the transient 408, 425 and 429, a transport
// failure gives up (the first decision that leaves tests the error), and
// no wait grows from turn to turn. A request retried on 403 or 404 with a
// backoff stays a retry: the same request fails the same way.
func (p *pkgCtx) pendingPoll(body *ast.BlockStmt, s *loopShape, waits []waitSite) bool {
	if s.class == nil || len(waits) == 0 {
		return false
	}
	if _, ok := p.errOperandOf(s.class, s); !ok {
		return false
	}
	for _, w := range waits {
		if w.dur == nil || p.changesPerTurn(w.dur, body) {
			return false
		}
	}
	state := false
	for _, d := range s.decide {
		if !p.statusTest(d, s) {
			continue
		}
		ok := true
		ast.Inspect(d, func(n ast.Node) bool {
			e, isExpr := n.(ast.Expr)
			if !isExpr || !ok {
				return ok
			}
			if b, isBin := e.(*ast.BinaryExpr); isBin && (b.Op == token.GTR || b.Op == token.GEQ || b.Op == token.LSS || b.Op == token.LEQ) {
				// code >= 400, code < 400: an ordering against a status
				// covers a range, and every range through 4xx reaches 5xx
				// on one side: a retry of server errors, not a poll.
				for _, side := range []ast.Expr{b.X, b.Y} {
					if tv := p.info.Types[side]; tv.Value != nil && tv.Value.Kind() == constant.Int {
						if c, exact := constant.Int64Val(tv.Value); exact && c >= 400 && c <= 599 {
							ok = false
						}
					}
				}
				if !ok {
					return false
				}
			}
			tv := p.info.Types[e]
			if tv.Value == nil || tv.Value.Kind() != constant.Int {
				return true
			}
			c, exact := constant.Int64Val(tv.Value)
			switch {
			case !exact || c < 200 || c > 599:
			case c >= 500, c == 408, c == 425, c == 429:
				ok = false
			case c >= 400:
				state = true
			}
			return false
		})
		if !ok {
			return false
		}
	}
	return state
}

// localRead: os.ReadFile, os.Stat, os.Open, ... on this machine.
func (p *pkgCtx) localRead(op *ast.CallExpr) bool {
	fn := typeutil.StaticCallee(p.info, op)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "os" {
		return false
	}
	switch fn.Name() {
	case "ReadFile", "Stat", "Lstat", "Open", "ReadDir", "Readlink":
		return true
	}
	return false
}

// readinessCheck: a Ping, or a request whose URL names a health endpoint.
func (p *pkgCtx) readinessCheck(op *ast.CallExpr) bool {
	// A client library's health check (database/sql, redis, mongo): a
	// method of another package's type. The package's own function named
	// Ping is judged by what it does.
	if fn, ok := typeutil.Callee(p.info, op).(*types.Func); ok && recvType(fn) != nil && (fn.Pkg() != p.pass.Pkg || types.IsInterface(recvType(fn))) {
		switch fn.Name() {
		case "Ping", "PingContext":
			return true
		}
	}
	return p.opStrings(op, func(s string) bool {
		s = strings.ToLower(s)
		for _, ep := range []string{"/health", "/healthz", "/ready", "/readyz", "/livez", "/ping"} {
			if strings.HasSuffix(s, ep) || strings.Contains(s, ep+"?") {
				return true
			}
		}
		return false
	})
}

// localTarget: the operation's address is this machine, directly or
// through a field or local the function sets to such an address.
func (p *pkgCtx) localTarget(op *ast.CallExpr, fnNode ast.Node) bool {
	if p.opStrings(op, LoopbackURL) {
		return true
	}
	// "http://" + h.addr + "/ready" where the function set h.addr = "localhost:18080".
	return fnNode != nil && contains(op, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		v := p.varOf(x)
		return ok && v != nil && contains(fnNode, func(m ast.Node) bool {
			as, ok := m.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != len(as.Rhs) {
				return false
			}
			for i, lhs := range as.Lhs {
				if p.varOf(lhs) == v && p.stringsIn(as.Rhs[i], LoopbackURL) {
					return true
				}
			}
			return false
		})
	})
}

// opStrings reports a string constant in the operation's arguments (also
// through the request it sends: http.NewRequest(..., url, ...)) that
// satisfies match.
func (p *pkgCtx) opStrings(op *ast.CallExpr, match func(string) bool) bool {
	if p.stringsIn(op, match) {
		return true
	}
	// client.Do(req) with req := http.NewRequest(...) in the same function.
	for _, a := range op.Args {
		id, ok := astutil.Unparen(a).(*ast.Ident)
		if !ok {
			continue
		}
		v := p.identVar(id)
		if v == nil {
			continue
		}
		if def := p.singleDef(v); def != nil && p.stringsIn(def, match) {
			return true
		}
	}
	return false
}

// stringsIn reports a string constant written in n that satisfies match.
func (p *pkgCtx) stringsIn(n ast.Node, match func(string) bool) bool {
	return p.res.stringsReach(n, match, maxStringDepth)
}

// StringsReach reports a string constant that e is built from and that
// satisfies match (a URL's host, an endpoint): written in e, or in the
// values the package gives a variable e names, two levels down.
func (r *Result) StringsReach(e ast.Expr, match func(string) bool) bool {
	return r.stringsReach(e, match, 0)
}

const maxStringDepth = 2

func (r *Result) stringsReach(n ast.Node, match func(string) bool, depth int) bool {
	info := r.pass.TypesInfo
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		e, ok := m.(ast.Expr)
		if !ok || found {
			return !found
		}
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			found = match(constant.StringVal(tv.Value))
			return false
		}
		if v := varOf(info, e); v != nil && depth < maxStringDepth {
			vals, _ := r.Writes(v)
			for _, val := range vals {
				if val != nil && r.stringsReach(val, match, depth+1) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// waitsFirst reports a loop body that waits, unconditionally, before its
// first operation, and no attempt before the loop: it asks at an interval.
func (p *pkgCtx) waitsFirst(body *ast.BlockStmt, ops []*ast.CallExpr, waits []waitSite) bool {
	first := token.NoPos
	for _, op := range ops {
		if !first.IsValid() || op.Pos() < first {
			first = op.Pos()
		}
	}
	for _, st := range body.List {
		if st.End() > first {
			return false
		}
		for _, w := range waits {
			if within(w.node, st) && !p.conditional(st, w.node) && !p.changesPerTurn(w.dur, body) {
				return true
			}
		}
	}
	return false
}

// changesPerTurn reports a duration that mentions a variable the loop
// changes (the counter, a growing delay): a backoff, not an interval.
func (p *pkgCtx) changesPerTurn(dur ast.Expr, body *ast.BlockStmt) bool {
	return dur != nil && p.mentions(dur, func(v *types.Var) bool {
		if _, grows := p.growingVars(body)[v]; grows {
			return true
		}
		if step, _ := p.stepOf(v, body); step.IsValid() {
			return true
		}
		is := func(k *types.Var) bool { return k == v }
		return slices.ContainsFunc(p.pass.Files, func(f *ast.File) bool {
			return contains(f, func(m ast.Node) bool {
				fs, ok := m.(*ast.ForStmt)
				return ok && fs.Body == body && fs.Post != nil && p.mentions(fs.Post, is)
			})
		})
	})
}

// attemptBefore reports the operation called before the loop in the same
// function (err := call(ctx); for err != nil { wait; err = call(ctx) }):
// the wait inside then follows a failed attempt.
func (p *pkgCtx) attemptBefore(body *ast.BlockStmt, ops []*ast.CallExpr, fnNode ast.Node) bool {
	if fnNode == nil {
		return false
	}
	callees := make(map[types.Object]bool)
	for _, op := range ops {
		if fn := typeutil.Callee(p.info, op); fn != nil {
			callees[fn] = true
		}
	}
	found := false
	ast.Inspect(fnNode, func(n ast.Node) bool {
		if n == nil || found || n.Pos() >= body.Pos() {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && callees[typeutil.Callee(p.info, call)] {
			found = true
		}
		return !found
	})
	return found
}

// conditional reports whether n sits under a condition inside the
// top-level statement st (if attempt > 0 { wait }).
func (p *pkgCtx) conditional(st ast.Stmt, n ast.Node) bool {
	switch st.(type) {
	case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.ForStmt, *ast.RangeStmt:
		return true
	}
	return false
}

// attemptSource recognises a range over attempts that a helper yields
// after each wait (for attempt := range newRetryTimer(ctx, 3, time.Second),
// a channel or an iter.Seq): the waits are the helper's, folded with its
// parameters bound to the call's arguments.
func (p *pkgCtx) attemptSource(x ast.Expr) []waitSite {
	call, ok := astutil.Unparen(x).(*ast.CallExpr)
	if !ok {
		return nil
	}
	fn := typeutil.StaticCallee(p.info, call)
	decl := p.res.decls[fn]
	if decl == nil || decl.Body == nil {
		return nil
	}
	switch p.info.TypeOf(call).Underlying().(type) {
	case *types.Chan, *types.Signature:
	default:
		return nil
	}
	var out []waitSite
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		var b *ast.BlockStmt
		switch n := n.(type) {
		case *ast.ForStmt:
			b = n.Body
		case *ast.RangeStmt:
			b = n.Body
		case *ast.FuncLit:
			b = n.Body
		}
		if b != nil {
			for _, w := range p.waitsIn(b) {
				if w.dur != nil && !w.ticker {
					w.call, w.helper = call, decl
					out = append(out, w)
				}
			}
		}
		return true
	})
	return out
}

// recvType is the type of fn's receiver, or nil for a function.
func recvType(fn *types.Func) types.Type {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	return sig.Recv().Type()
}
