package deadline

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ssa"

	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Origin says where a context comes from.
type Origin int

const (
	// Param: a parameter of the function (Flow.Index).
	Param Origin = iota
	// FreeVar: a variable a closure captured (Flow.Index; Deref when it
	// was captured by reference).
	FreeVar
	// Background: context.Background or context.TODO, no deadline.
	Background
	// Request: (*http.Request).Context; net/http sets no deadline on it.
	Request
	// Detached: context.WithoutCancel, which drops the deadlines above it.
	Detached
	// Opaque: a value the trace cannot follow (a struct field, a package
	// variable, the result of a call, contexts merged from different paths).
	Opaque
)

// A Set is a deadline set on the way: a context.WithTimeout and the like.
type Set struct {
	D     time.Duration
	Known bool      // D folds to a constant
	Pos   token.Pos // the call that sets it
	Call  string    // "context.WithTimeout", "http.TimeoutHandler"
	Expr  string    // the duration's source text (for unknown ones)
}

// Flow is a context traced backward from a use to its origin.
type Flow struct {
	Origin Origin
	Index  int       // Param, FreeVar
	Deref  bool      // FreeVar captured by reference
	Pos    token.Pos // the origin's position (Background call, opaque value)
	What   string    // the origin in words, for Opaque
	// Sets are the deadlines applied between the origin and the use.
	Sets []Set
	// Partial: the use merges paths that set different deadlines; Sets
	// holds those common to all of them, so the deadline is at most theirs.
	Partial bool
	// cycle: the trace came back to a value it is following (a context
	// reassigned in a loop from itself); a phi ignores such an edge.
	cycle bool
}

// Tracer follows contexts through SSA. Folder returns the duration folder
// of a function's package (for durations SSA does not fold: single-assigned
// variables, config struct fields); it may return nil.
type Tracer struct {
	Folder func(*ssa.Function) *durconst.Folder
	depth  int
}

// Trace follows v (a context.Context value) backward within its function.
func (t *Tracer) Trace(v ssa.Value) Flow {
	return t.trace(v, map[ssa.Value]bool{})
}

func (t *Tracer) trace(v ssa.Value, seen map[ssa.Value]bool) Flow {
	if seen[v] {
		return Flow{Origin: Opaque, Pos: v.Pos(), What: "a context reassigned in a loop", cycle: true}
	}
	seen[v] = true
	defer delete(seen, v)
	switch v := v.(type) {
	case *ssa.Parameter:
		for i, p := range v.Parent().Params {
			if p == v {
				return Flow{Origin: Param, Index: i, Pos: v.Pos()}
			}
		}
	case *ssa.FreeVar:
		for i, fv := range v.Parent().FreeVars {
			if fv == v {
				return Flow{Origin: FreeVar, Index: i, Pos: v.Pos()}
			}
		}
	case *ssa.ChangeType:
		return t.trace(v.X, seen)
	case *ssa.MakeInterface:
		return t.trace(v.X, seen)
	case *ssa.ChangeInterface:
		return t.trace(v.X, seen)
	case *ssa.TypeAssert:
		return t.trace(v.X, seen)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return t.load(v, seen)
		}
	case *ssa.Phi:
		return t.phi(v, seen)
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			return t.call(call, v.Index, seen)
		}
	case *ssa.Call:
		return t.call(v, -1, seen)
	case *ssa.Const:
		if v.IsNil() {
			return Flow{Origin: Opaque, Pos: v.Pos(), What: "a nil context"}
		}
	}
	return Flow{Origin: Opaque, Pos: v.Pos(), What: describe(v)}
}

func describe(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.UnOp:
		switch v.X.(type) {
		case *ssa.FieldAddr:
			return "a context kept in a struct field"
		case *ssa.Global:
			return "a package-level context"
		}
	case *ssa.Field, *ssa.FieldAddr:
		return "a context kept in a struct field"
	case *ssa.Call:
		if fn := v.Call.StaticCallee(); fn != nil {
			return "the result of " + fn.String()
		}
		return "the result of a dynamic call"
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			return describe(c)
		}
	}
	return "a context the trace cannot follow"
}

// load follows a load of a variable: a captured free variable, or a local
// that escaped into a closure (kept in an Alloc).
func (t *Tracer) load(v *ssa.UnOp, seen map[ssa.Value]bool) Flow {
	switch x := v.X.(type) {
	case *ssa.FreeVar:
		f := t.trace(x, seen)
		f.Deref = true
		return f
	case *ssa.Alloc:
		if st := reachingStore(x, v); st != nil {
			return t.trace(st.Val, seen)
		}
		return Flow{Origin: Opaque, Pos: v.Pos(), What: "a context variable assigned on several paths"}
	}
	return Flow{Origin: Opaque, Pos: v.Pos(), What: describe(v)}
}

// reachingStore returns the store to alloc that reaches instr: the last
// store before it in its block, else the latest store in a block that
// dominates it. Nil when it cannot be told.
func reachingStore(alloc *ssa.Alloc, at ssa.Instruction) *ssa.Store {
	var best *ssa.Store
	bestIdx := -1
	for _, r := range *alloc.Referrers() {
		st, ok := r.(*ssa.Store)
		if !ok || st.Addr != alloc {
			continue
		}
		sb, ab := st.Block(), at.Block()
		if sb == ab {
			if indexOf(st) < indexOf(at) {
				if best == nil || best.Block() != ab || indexOf(st) > bestIdx {
					best, bestIdx = st, indexOf(st)
				}
			}
			continue
		}
		if !sb.Dominates(ab) {
			continue
		}
		if best == nil {
			best, bestIdx = st, indexOf(st)
			continue
		}
		if best.Block() == ab {
			continue
		}
		// the later dominator wins
		if best.Block().Dominates(sb) && (best.Block() != sb || indexOf(st) > bestIdx) {
			best, bestIdx = st, indexOf(st)
		}
	}
	if best == nil {
		return nil
	}
	// A store in a block that does not dominate (a conditional reassignment)
	// makes the value path-dependent.
	for _, r := range *alloc.Referrers() {
		st, ok := r.(*ssa.Store)
		if !ok || st == best || st.Addr != alloc {
			continue
		}
		if st.Block() == best.Block() && indexOf(st) < bestIdx {
			continue
		}
		if st.Block() != best.Block() && st.Block().Dominates(best.Block()) {
			continue
		}
		if st.Block() == at.Block() && indexOf(st) > indexOf(at) {
			continue
		}
		if st.Block() != at.Block() && !canReach(st.Block(), at.Block()) {
			continue
		}
		return nil
	}
	return best
}

func canReach(from, to *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := []*ssa.BasicBlock{from}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range b.Succs {
			if s == to {
				return true
			}
			if !seen[s] {
				seen[s] = true
				stack = append(stack, s)
			}
		}
	}
	return false
}

func indexOf(instr ssa.Instruction) int {
	for i, in := range instr.Block().Instrs {
		if in == instr {
			return i
		}
	}
	return -1
}

// phi merges the flows of its edges: the same origin on every edge, with
// the deadlines every edge sets (Partial when some edges set more).
func (t *Tracer) phi(v *ssa.Phi, seen map[ssa.Value]bool) Flow {
	var out *Flow
	for _, e := range v.Edges {
		if seen[e] {
			continue // a loop back edge
		}
		f := t.trace(e, seen)
		if f.cycle {
			continue // ctx = derive(ctx) in a loop: the loop adds nothing new
		}
		if out == nil {
			out = &f
			continue
		}
		if f.Origin != out.Origin || f.Index != out.Index || f.Deref != out.Deref {
			return Flow{Origin: Opaque, Pos: v.Pos(), What: "contexts merged from different paths"}
		}
		common := out.Sets[:0:0]
		for _, s := range out.Sets {
			if hasSet(f.Sets, s.Pos) {
				common = append(common, s)
			}
		}
		if len(common) != len(out.Sets) || len(common) != len(f.Sets) {
			out.Partial = true
		}
		out.Sets = common
		out.Partial = out.Partial || f.Partial
	}
	if out == nil {
		return Flow{Origin: Opaque, Pos: v.Pos(), What: "a context reassigned in a loop"}
	}
	return *out
}

func hasSet(sets []Set, pos token.Pos) bool {
	for _, s := range sets {
		if s.Pos == pos {
			return true
		}
	}
	return false
}

// call follows a context made by a call (index is the tuple index, -1 for a
// single result).
func (t *Tracer) call(c *ssa.Call, index int, seen map[ssa.Value]bool) Flow {
	fn := c.Call.StaticCallee()
	if fn == nil {
		return t.derived(c, index, seen)
	}
	obj, _ := fn.Object().(*types.Func)
	if obj == nil || obj.Pkg() == nil {
		return t.derived(c, index, seen)
	}
	args := c.Call.Args
	path, name := obj.Pkg().Path(), obj.Name()
	switch path {
	case "context":
		switch name {
		case "Background", "TODO":
			return Flow{Origin: Background, Pos: c.Pos(), What: "context." + name + "()"}
		case "WithoutCancel":
			return Flow{Origin: Detached, Pos: c.Pos(), What: "context.WithoutCancel"}
		case "WithValue":
			return t.trace(args[0], seen)
		case "WithCancel", "WithCancelCause":
			if index == 0 {
				return t.trace(args[0], seen)
			}
		case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
			if index == 0 {
				f := t.trace(args[0], seen)
				f.Sets = append(f.Sets, t.DeadlineSet(c, "context."+name))
				return f
			}
		}
	case "net/http":
		if name == "Context" && recvNamed(obj) == "Request" {
			return Flow{Origin: Request, Pos: c.Pos(), What: "(*http.Request).Context()"}
		}
	case "os/signal":
		if name == "NotifyContext" && index == 0 {
			return t.trace(args[0], seen)
		}
	case "golang.org/x/sync/errgroup":
		if name == "WithContext" && index == 1 {
			return t.trace(args[0], seen)
		}
	}
	return t.derived(c, index, seen)
}

// returned traces result res of fn in fn's frame, when every return
// agrees on where it comes from.
func (t *Tracer) returned(fn *ssa.Function, res int) *Flow {
	t.depth++
	defer func() { t.depth-- }()
	var out *Flow
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || res >= len(ret.Results) {
			continue
		}
		f := t.trace(ret.Results[res], map[ssa.Value]bool{})
		if out != nil && (f.Origin != out.Origin || f.Index != out.Index || len(f.Sets) != len(out.Sets)) {
			return nil
		}
		out = &f
	}
	return out
}

// maxInline bounds how deep derived follows helpers that return contexts.
const maxInline = 4

// derived follows a context returned by a call that is not one of the
// context package's: a helper with a body is followed into its returns; a
// function without one (an interface method such as a tracer's Start, a
// function of another program) that takes one context and returns one is
// taken to derive the result from it, adding no deadline.
func (t *Tracer) derived(c *ssa.Call, index int, seen map[ssa.Value]bool) Flow {
	opaque := Flow{Origin: Opaque, Pos: c.Pos(), What: describe(c)}
	res := index
	if res < 0 {
		res = 0
	}
	if fn := c.Call.StaticCallee(); fn != nil && len(fn.Blocks) > 0 {
		if t.depth >= maxInline {
			return opaque
		}
		out := t.returned(fn, res)
		if out == nil {
			return opaque
		}
		switch out.Origin {
		case Param:
			if out.Index >= len(c.Call.Args) {
				return opaque
			}
			up := t.trace(c.Call.Args[out.Index], seen)
			up.Sets = append(up.Sets, out.Sets...)
			up.Partial = up.Partial || out.Partial
			return up
		case Background, Request, Detached:
			return *out
		}
		return opaque
	}
	sig := c.Call.Signature()
	if sig == nil || sig.Results().Len() <= res || !retrymodel.IsContext(sig.Results().At(res).Type()) {
		return opaque
	}
	k := -1
	for i := 0; i < sig.Params().Len(); i++ {
		if retrymodel.IsContext(sig.Params().At(i).Type()) {
			if k >= 0 {
				return opaque
			}
			k = i
		}
	}
	off := len(c.Call.Args) - sig.Params().Len()
	if k < 0 || off < 0 || off+k >= len(c.Call.Args) {
		return opaque
	}
	return t.trace(c.Call.Args[off+k], seen)
}

func recvNamed(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// DeadlineSet folds the duration of a deadline call: WithTimeout(parent, d),
// WithDeadline(parent, time.Now().Add(d)), http.TimeoutHandler(h, d, msg).
func (t *Tracer) DeadlineSet(c *ssa.Call, name string) Set {
	s := Set{Call: name, Pos: c.Pos()}
	lit := t.syntax(c.Parent(), c.Pos())
	if lit != nil {
		s.Pos = lit.Pos()
	}
	var astArg ast.Expr
	if lit != nil && len(lit.Args) > 1 {
		astArg = lit.Args[1]
		s.Expr = types.ExprString(astArg)
	}
	arg := c.Call.Args[1]
	if name != "context.WithDeadline" && name != "context.WithDeadlineCause" {
		s.D, s.Known = t.fold(c.Parent(), arg, astArg)
		return s
	}
	// WithDeadline: only time.Now().Add(d) folds.
	if add, ok := arg.(*ssa.Call); ok {
		if f := add.Call.StaticCallee(); f != nil && isTimeMethod(f, "Add") && len(add.Call.Args) == 2 {
			if now, ok := add.Call.Args[0].(*ssa.Call); ok {
				if nf := now.Call.StaticCallee(); nf != nil && nf.Pkg != nil && nf.Pkg.Pkg.Path() == "time" && nf.Name() == "Now" {
					var dArg ast.Expr
					if addLit := t.syntax(add.Parent(), add.Pos()); addLit != nil && len(addLit.Args) == 1 {
						dArg = addLit.Args[0]
					}
					s.D, s.Known = t.fold(add.Parent(), add.Call.Args[1], dArg)
					return s
				}
			}
		}
	}
	return s
}

func isTimeMethod(f *ssa.Function, name string) bool {
	obj, _ := f.Object().(*types.Func)
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == name && recvNamed(obj) == "Time"
}

func (t *Tracer) fold(fn *ssa.Function, v ssa.Value, e ast.Expr) (time.Duration, bool) {
	if c, ok := v.(*ssa.Const); ok && c.Value != nil {
		if i, exact := constant.Int64Val(constant.ToInt(c.Value)); exact {
			return time.Duration(i), true
		}
	}
	if e != nil && t.Folder != nil {
		if f := t.Folder(fn); f != nil {
			return f.Duration(e)
		}
	}
	return 0, false
}

// syntax finds the call expression whose left parenthesis is at lparen in
// fn's syntax.
func (t *Tracer) syntax(fn *ssa.Function, lparen token.Pos) *ast.CallExpr {
	if fn == nil || !lparen.IsValid() {
		return nil
	}
	root := fn.Syntax()
	for root == nil && fn.Parent() != nil {
		fn = fn.Parent()
		root = fn.Syntax()
	}
	if root == nil {
		return nil
	}
	if root.Pos() > lparen || lparen > root.End() {
		return nil
	}
	var found *ast.CallExpr
	ast.Inspect(root, func(n ast.Node) bool {
		if found != nil || n == nil || n.Pos() > lparen || n.End() < lparen {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok && c.Lparen == lparen {
			found = c
			return false
		}
		return true
	})
	return found
}

// ResolveFreeVar traces free variable i of closure fn in the function that
// made the closure (its lexical parent). ok is false when the closure is not
// made exactly once there.
func (t *Tracer) ResolveFreeVar(fn *ssa.Function, i int, deref bool) (Flow, bool) {
	parent := fn.Parent()
	if parent == nil {
		return Flow{}, false
	}
	var mk *ssa.MakeClosure
	for _, b := range parent.Blocks {
		for _, instr := range b.Instrs {
			if m, ok := instr.(*ssa.MakeClosure); ok && m.Fn == fn {
				if mk != nil {
					return Flow{}, false
				}
				mk = m
			}
		}
	}
	if mk == nil || i >= len(mk.Bindings) {
		return Flow{}, false
	}
	b := mk.Bindings[i]
	if !deref {
		return t.Trace(b), true
	}
	switch b := b.(type) {
	case *ssa.Alloc:
		if st := reachingStore(b, mk); st != nil {
			return t.Trace(st.Val), true
		}
		return Flow{Origin: Opaque, Pos: b.Pos(), What: "a context variable assigned on several paths"}, true
	case *ssa.FreeVar:
		f := t.Trace(b)
		f.Deref = true
		return f, true
	}
	return Flow{Origin: Opaque, Pos: b.Pos(), What: "a captured context the trace cannot follow"}, true
}
