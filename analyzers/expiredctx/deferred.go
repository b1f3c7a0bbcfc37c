package expiredctx

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// A ctxSet is a context a function derives with a deadline or a cancel.
type ctxSet struct {
	ref      effects.Ref
	pos      token.Pos
	deadline bool   // WithTimeout/WithDeadline
	dur      string // folded timeout, "" when unknown
	cancel   *types.Var
	// by names the caller that sets the deadline when the context is a
	// parameter every caller gives one (callerset.go); setAt is where.
	by    string
	setAt token.Pos
	// framework names the job framework that sets the deadline, when the
	// context is a worker's (framework.go).
	framework string
}

// where says where s's deadline is set: "set at f.go:3", or "set by its
// caller runJob at f.go:3".
func (c *checker) where(s ctxSet) string {
	if s.framework != "" {
		return "set by " + s.framework
	}
	if s.by != "" {
		return "set by its caller " + s.by + " at " + c.short(s.setAt)
	}
	return "set at " + c.short(s.pos)
}

// deferred finds the deferred calls of each function that run after one
// of its contexts is done: the function put a deadline on it, ran a retry
// bounded by it, or deferred its cancel after deferring the call (defers run
// last-in first-out, so the cancel runs first).
func (c *checker) deferred() []*expiry {
	var out []*expiry
	c.eachBody(func(fn ast.Node, body *ast.BlockStmt) {
		if retrymodel.InTestFile(c.pass.Fset, body.Pos()) {
			// A test's deadline is its own: when it passes the test has
			// failed already, and no caller's item is left in progress.
			return
		}
		sets := slices.Clone(c.callerSets()[fn])
		var defers []*ast.DeferStmt
		cancelDefer := make(map[*types.Var]token.Pos)
		inspectOwn(body, func(n ast.Node) {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if s, ok := c.ctxSetOf(n); ok {
					sets = append(sets, s)
				}
			case *ast.DeferStmt:
				defers = append(defers, n)
				if id, ok := astutil.Unparen(n.Call.Fun).(*ast.Ident); ok && len(n.Call.Args) == 0 {
					if v, ok := c.info.Uses[id].(*types.Var); ok {
						if _, seen := cancelDefer[v]; !seen {
							cancelDefer[v] = n.Pos()
						}
					}
				}
			}
		})
		if len(defers) == 0 {
			return
		}
		type reason struct {
			ref    effects.Ref
			setPos token.Pos // the deferred call must come after it when direct
			before token.Pos // the deferred call must be registered before it (cancel order)
			when   string
			rank   int
		}
		var reasons []reason
		for _, s := range sets {
			if s.cancel != nil {
				if p, ok := cancelDefer[s.cancel]; ok {
					reasons = append(reasons, reason{ref: s.ref, setPos: s.pos, before: p, rank: 1,
						when: " after its cancel has run (defer cancel() at " + c.short(p) + " is registered later, so it runs first)"})
				}
			}
			if s.deadline {
				d := "deadline"
				if s.dur != "" {
					d = "deadline of " + s.dur
				}
				reasons = append(reasons, reason{ref: s.ref, setPos: s.pos, rank: 2,
					when: fmt.Sprintf(", which has expired when the function returns on its %s (%s)", d, c.where(s))})
			}
		}
		for _, l := range c.model.Layers {
			if l.FuncNode != fn || l.Context == nil {
				continue
			}
			// Bounded by ctx: it stops when ctx is done (it checks it, or it
			// has no other bound), so it can end the function after expiry.
			if _, bounded := l.Attempts(); l.Policy.DeadlineAware != retrymodel.Yes && bounded {
				continue
			}
			r, ok := c.flow.RefOf(l.Context)
			if !ok {
				continue
			}
			desc := l.Describe()
			if desc != "" {
				desc = " (" + desc + ")"
			}
			reasons = append(reasons, reason{ref: r, setPos: body.Pos(), rank: 3,
				when: fmt.Sprintf(", which has expired when the %s at %s bounded by it gives up%s", l.Name, c.short(l.Pos), desc)})
		}
		for _, d := range defers {
			for _, r := range reasons {
				if r.before.IsValid() && d.Pos() >= r.before {
					continue
				}
				e := &expiry{ctx: r.ref, when: r.when, rank: r.rank, deferred: true, check: r.setPos}
				if lit, ok := astutil.Unparen(d.Call.Fun).(*ast.FuncLit); ok {
					e.lit = lit
					e.start, e.end = lit.Body.Pos(), lit.Body.End()
					e.after = lit.Pos()
				} else {
					if d.Pos() < r.setPos {
						continue // the arguments are evaluated before the deadline is set
					}
					e.only = d.Call
					e.deferPos = d.Pos()
					e.after = r.setPos
				}
				out = append(out, e)
			}
		}
	})
	return out
}

// ctxSetOf recognises `x, cancel := context.WithTimeout(parent, d)` and the
// other deriving functions that give a cancel.
func (c *checker) ctxSetOf(as *ast.AssignStmt) (ctxSet, bool) {
	if len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return ctxSet{}, false
	}
	call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return ctxSet{}, false
	}
	s := ctxSet{pos: as.Pos()}
	switch effects.ContextFunc(c.info, call) {
	case "WithTimeout", "WithTimeoutCause":
		s.deadline = true
		if len(call.Args) >= 2 {
			if d, ok := c.model.Folder.Duration(call.Args[1]); ok {
				s.dur = durconst.Format(d)
			}
		}
	case "WithDeadline", "WithDeadlineCause":
		s.deadline = true
	case "WithCancel", "WithCancelCause":
	default:
		return ctxSet{}, false
	}
	r, ok := c.flow.RefOf(as.Lhs[0])
	if !ok {
		return ctxSet{}, false
	}
	s.ref = r
	if id, ok := as.Lhs[1].(*ast.Ident); ok && id.Name != "_" {
		obj := c.info.Defs[id]
		if obj == nil {
			obj = c.info.Uses[id]
		}
		s.cancel, _ = obj.(*types.Var)
	}
	return s, true
}

// eachBody calls f with every function declaration and function literal
// of the package that has a body, and that body.
func (c *checker) eachBody(f func(fn ast.Node, body *ast.BlockStmt)) {
	c.insp.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil {
			f(n, body)
		}
	})
}

// inspectOwn visits the nodes of a function body that belong to it, not
// to the function literals inside it.
func inspectOwn(body ast.Node, f func(ast.Node)) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n != nil {
			f(n)
		}
		return true
	})
}

// successOnly reports whether a call inside a deferred function literal
// runs only when the work succeeded: under `if err == nil`, in the else of
// `if err != nil`, after `if err != nil { return }`, or under
// `if ctx.Err() == nil`; or only on a panic (`if r := recover(); r != nil`),
// which is not the path where the deadline ended the work.
func (c *checker) successOnly(call *ast.CallExpr, lit *ast.FuncLit) bool {
	path, _ := astutil.PathEnclosingInterval(c.fileOf(lit), call.Pos(), call.End())
	for i, n := range path {
		if n == lit {
			break
		}
		var child ast.Node
		if i > 0 {
			child = path[i-1]
		}
		switch n := n.(type) {
		case *ast.IfStmt:
			if child == n.Body && (c.outcome(n.Cond) == success || callsRecover(n.Init) || callsRecover(n.Cond)) {
				return true // the success path, or the panic path (not the expiry one)
			}
			if child == n.Else && c.outcome(n.Cond) == failure {
				return true
			}
		case *ast.BlockStmt:
			for _, s := range n.List {
				if s.Pos() >= call.Pos() {
					break
				}
				if is, ok := s.(*ast.IfStmt); ok && is.Else == nil && terminates(is.Body) && c.outcome(is.Cond) == failure {
					return true
				}
			}
		}
	}
	return false
}

const (
	neither = iota
	success
	failure
)

// outcome says whether a condition holds when the work succeeded (err ==
// nil, ctx.Err() == nil) or when it failed (err != nil).
func (c *checker) outcome(e ast.Expr) int {
	e = astutil.Unparen(e)
	switch e := e.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			switch c.outcome(e.X) {
			case success:
				return failure
			case failure:
				return success
			}
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			if o := c.outcome(e.X); o == success {
				return success
			}
			if c.outcome(e.Y) == success {
				return success
			}
		case token.LOR:
			if c.outcome(e.X) == failure && c.outcome(e.Y) == failure {
				return failure
			}
			if c.outcome(e.X) == failure || c.outcome(e.Y) == failure {
				return failure
			}
		case token.EQL, token.NEQ:
			var x ast.Expr
			switch {
			case isNil(c.info, e.Y):
				x = e.X
			case isNil(c.info, e.X):
				x = e.Y
			default:
				return neither
			}
			if tv, ok := c.info.Types[x]; ok && isError(tv.Type) {
				if e.Op == token.EQL {
					return success
				}
				return failure
			}
		}
	}
	return neither
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

func (c *checker) fileOf(n ast.Node) *ast.File {
	for _, f := range c.pass.Files {
		if f.FileStart <= n.Pos() && n.Pos() < f.FileEnd {
			return f
		}
	}
	return nil
}

// callsRecover reports whether n calls the builtin recover.
func callsRecover(n ast.Node) bool {
	if n == nil {
		return false
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := astutil.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}
