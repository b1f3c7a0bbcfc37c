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
	// Why says whether D is a default the code sets (Why.Default) or a
	// value from the values file (Why.Entry) rather than a constant.
	Why durconst.Why
	// From is the values-file source of a deadline set by infrastructure
	// in front of a handler (".retryvet.yml:7"); Pos is then the handler.
	From string
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

// maxFlows bounds the deadline sources one value is traced to; past it the
// flows are merged as one (Trace).
const maxFlows = 8

// Trace follows v (a context.Context value) backward within its function
// and merges the paths it comes from into one flow: the same origin on
// every path with the deadlines all of them set (Partial when some set
// more), else Opaque. TraceAll keeps the paths apart.
func (t *Tracer) Trace(v ssa.Value) Flow {
	return Merge(t.trace(v, map[ssa.Value]bool{}), v.Pos())
}

// TraceAll follows v backward and returns one flow per deadline source: a
// context assigned on several paths (a phi, a variable reassigned in a
// branch, a helper with several returns) gives one flow per path that
// sets a different deadline or comes from a different origin.
func (t *Tracer) TraceAll(v ssa.Value) []Flow {
	return t.trace(v, map[ssa.Value]bool{})
}

// Merge turns the flows of a value's paths into one, the way the trace did
// before it kept paths apart: the same origin everywhere with the common
// deadlines (Partial when paths differ), else an Opaque flow at pos.
func Merge(fs []Flow, pos token.Pos) Flow {
	var out *Flow
	for i := range fs {
		f := fs[i]
		if out == nil {
			out = &f
			continue
		}
		if f.Origin != out.Origin || f.Index != out.Index || f.Deref != out.Deref {
			return Flow{Origin: Opaque, Pos: pos, What: "contexts merged from different paths"}
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
		return Flow{Origin: Opaque, Pos: pos, What: "a context reassigned in a loop"}
	}
	return *out
}

func one(f Flow) []Flow { return []Flow{f} }

// union adds the flows of fs not in out yet; past maxFlows it merges.
func union(out []Flow, fs []Flow, pos token.Pos) []Flow {
	for _, f := range fs {
		dup := false
		for _, g := range out {
			if sameFlow(f, g) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	if len(out) > maxFlows {
		return one(Merge(out, pos))
	}
	return out
}

func sameFlow(a, b Flow) bool {
	if a.Origin != b.Origin || a.Index != b.Index || a.Deref != b.Deref || a.Partial != b.Partial || len(a.Sets) != len(b.Sets) {
		return false
	}
	if a.Origin == Opaque && a.What != b.What {
		return false
	}
	for i := range a.Sets {
		if a.Sets[i].Pos != b.Sets[i].Pos {
			return false
		}
	}
	return true
}

// each applies g to every flow of fs and unions the results.
func each(fs []Flow, pos token.Pos, g func(Flow) []Flow) []Flow {
	var out []Flow
	for _, f := range fs {
		out = union(out, g(f), pos)
	}
	return out
}

func (t *Tracer) trace(v ssa.Value, seen map[ssa.Value]bool) []Flow {
	if seen[v] {
		return one(Flow{Origin: Opaque, Pos: v.Pos(), What: "a context reassigned in a loop", cycle: true})
	}
	seen[v] = true
	defer delete(seen, v)
	switch v := v.(type) {
	case *ssa.Parameter:
		for i, p := range v.Parent().Params {
			if p == v {
				return one(Flow{Origin: Param, Index: i, Pos: v.Pos()})
			}
		}
	case *ssa.FreeVar:
		for i, fv := range v.Parent().FreeVars {
			if fv == v {
				return one(Flow{Origin: FreeVar, Index: i, Pos: v.Pos()})
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
			return one(Flow{Origin: Opaque, Pos: v.Pos(), What: "a nil context"})
		}
	}
	return one(Flow{Origin: Opaque, Pos: v.Pos(), What: describe(v)})
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
// that escaped into a closure (kept in an Alloc). A local assigned on
// several paths gives a flow per store that reaches the load.
func (t *Tracer) load(v *ssa.UnOp, seen map[ssa.Value]bool) []Flow {
	switch x := v.X.(type) {
	case *ssa.FreeVar:
		return each(t.trace(x, seen), v.Pos(), func(f Flow) []Flow {
			f.Deref = true
			return one(f)
		})
	case *ssa.Alloc:
		return t.stored(x, v, seen)
	}
	return one(Flow{Origin: Opaque, Pos: v.Pos(), What: describe(v)})
}

// stored traces the values of the stores to alloc that reach at.
func (t *Tracer) stored(alloc *ssa.Alloc, at ssa.Instruction, seen map[ssa.Value]bool) []Flow {
	if st := reachingStore(alloc, at); st != nil {
		return t.trace(st.Val, seen)
	}
	stores := reachingStores(alloc, at)
	if len(stores) == 0 {
		return one(Flow{Origin: Opaque, Pos: at.Pos(), What: "a context variable assigned on several paths"})
	}
	var out []Flow
	for _, st := range stores {
		for _, f := range t.trace(st.Val, seen) {
			if f.cycle {
				continue
			}
			out = union(out, one(f), at.Pos())
		}
	}
	if len(out) == 0 {
		return one(Flow{Origin: Opaque, Pos: at.Pos(), What: "a context reassigned in a loop"})
	}
	return out
}

// reachingStores returns every store to alloc that may reach instr (the
// reaching definitions of the variable), in block order.
func reachingStores(alloc *ssa.Alloc, at ssa.Instruction) []*ssa.Store {
	last := map[*ssa.BasicBlock]*ssa.Store{} // the last store in each block
	for _, r := range *alloc.Referrers() {
		st, ok := r.(*ssa.Store)
		if !ok || st.Addr != alloc {
			continue
		}
		if p := last[st.Block()]; p == nil || indexOf(p) < indexOf(st) {
			last[st.Block()] = st
		}
	}
	// A store before instr in its own block decides.
	ab := at.Block()
	var before *ssa.Store
	for _, r := range *alloc.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == alloc && st.Block() == ab && indexOf(st) < indexOf(at) {
			if before == nil || indexOf(st) > indexOf(before) {
				before = st
			}
		}
	}
	if before != nil {
		return []*ssa.Store{before}
	}
	// Walk the predecessors backward; a block with a store ends the walk.
	found := map[*ssa.Store]bool{}
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), ab.Preds...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		if st := last[b]; st != nil {
			found[st] = true
			continue
		}
		stack = append(stack, b.Preds...)
	}
	var out []*ssa.Store
	for _, b := range alloc.Parent().Blocks {
		if st := last[b]; st != nil && found[st] {
			out = append(out, st)
		}
	}
	return out
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

// phi keeps the flows of its edges apart: one per deadline source.
func (t *Tracer) phi(v *ssa.Phi, seen map[ssa.Value]bool) []Flow {
	var out []Flow
	for _, e := range v.Edges {
		if seen[e] {
			continue // a loop back edge
		}
		for _, f := range t.trace(e, seen) {
			if f.cycle {
				continue // ctx = derive(ctx) in a loop: the loop adds nothing new
			}
			out = union(out, one(f), v.Pos())
		}
	}
	if len(out) == 0 {
		return one(Flow{Origin: Opaque, Pos: v.Pos(), What: "a context reassigned in a loop"})
	}
	return out
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
func (t *Tracer) call(c *ssa.Call, index int, seen map[ssa.Value]bool) []Flow {
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
			return one(Flow{Origin: Background, Pos: c.Pos(), What: "context." + name + "()"})
		case "WithoutCancel":
			return one(Flow{Origin: Detached, Pos: c.Pos(), What: "context.WithoutCancel"})
		case "WithValue":
			return t.trace(args[0], seen)
		case "WithCancel", "WithCancelCause":
			if index == 0 {
				return t.trace(args[0], seen)
			}
		case "WithTimeout", "WithTimeoutCause", "WithDeadline", "WithDeadlineCause":
			if index == 0 {
				set := t.DeadlineSet(c, "context."+name)
				return each(t.trace(args[0], seen), c.Pos(), func(f Flow) []Flow {
					f.Sets = append(f.Sets[:len(f.Sets):len(f.Sets)], set)
					return one(f)
				})
			}
		}
	case "net/http":
		if name == "Context" && retrymodel.RecvName(obj) == "Request" {
			return one(Flow{Origin: Request, Pos: c.Pos(), What: "(*http.Request).Context()"})
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

// returned traces result res of fn in fn's frame: the flows of every
// return.
func (t *Tracer) returned(fn *ssa.Function, res int) []Flow {
	t.depth++
	defer func() { t.depth-- }()
	var out []Flow
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || res >= len(ret.Results) {
			continue
		}
		out = union(out, t.trace(ret.Results[res], map[ssa.Value]bool{}), fn.Pos())
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
func (t *Tracer) derived(c *ssa.Call, index int, seen map[ssa.Value]bool) []Flow {
	opaque := one(Flow{Origin: Opaque, Pos: c.Pos(), What: describe(c)})
	res := index
	if res < 0 {
		res = 0
	}
	if fn := c.Call.StaticCallee(); fn != nil && len(fn.Blocks) > 0 {
		if t.depth >= maxInline {
			return opaque
		}
		outs := t.returned(fn, res)
		if len(outs) == 0 {
			return opaque
		}
		return each(outs, c.Pos(), func(out Flow) []Flow {
			switch out.Origin {
			case Param:
				if out.Index >= len(c.Call.Args) {
					return opaque
				}
				return each(t.trace(c.Call.Args[out.Index], seen), c.Pos(), func(up Flow) []Flow {
					up.Sets = append(up.Sets[:len(up.Sets):len(up.Sets)], out.Sets...)
					up.Partial = up.Partial || out.Partial
					return one(up)
				})
			case Background, Request, Detached:
				return one(out)
			}
			return opaque
		})
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
		s.D, s.Known, s.Why = t.fold(c.Parent(), arg, astArg)
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
					s.D, s.Known, s.Why = t.fold(add.Parent(), add.Call.Args[1], dArg)
					return s
				}
			}
		}
	}
	return s
}

func isTimeMethod(f *ssa.Function, name string) bool {
	obj, _ := f.Object().(*types.Func)
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == name && retrymodel.RecvName(obj) == "Time"
}

// fold folds a deadline's duration: a constant, a value the package's
// folder folds (with a config field's value from the values file), else the
// default the code sets for the field or flag it reads (why.Default), looked
// for in the function's package and in the field's.
func (t *Tracer) fold(fn *ssa.Function, v ssa.Value, e ast.Expr) (time.Duration, bool, durconst.Why) {
	if c, ok := v.(*ssa.Const); ok && c.Value != nil {
		if i, exact := constant.Int64Val(constant.ToInt(c.Value)); exact {
			return time.Duration(i), true, durconst.Why{}
		}
	}
	if e == nil || t.Folder == nil {
		return 0, false, durconst.Why{}
	}
	f := t.Folder(fn)
	if f == nil {
		return 0, false, durconst.Why{}
	}
	if d, ok, why := f.Default(e); ok {
		return d, true, why
	}
	// A field of a struct declared in another package: its constructor
	// default is set there.
	if fld, of := f.FieldOf(e); fld != nil && fld.Pkg() != nil && fn.Pkg != nil && fld.Pkg() != fn.Pkg.Pkg {
		if sp := fn.Prog.Package(fld.Pkg()); sp != nil {
			if init := sp.Func("init"); init != nil {
				if pf := t.Folder(init); pf != nil && pf != f {
					if d, why, ok := pf.FieldDefault(fld, of); ok {
						return d, true, why
					}
				}
			}
		}
	}
	return 0, false, durconst.Why{}
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
// made the closure (its lexical parent), merging its paths (Merge). ok is
// false when the closure is not made exactly once there.
func (t *Tracer) ResolveFreeVar(fn *ssa.Function, i int, deref bool) (Flow, bool) {
	fs, ok := t.ResolveFreeVarAll(fn, i, deref)
	if !ok {
		return Flow{}, false
	}
	return Merge(fs, fn.Pos()), true
}

// ResolveFreeVarAll is ResolveFreeVar with one flow per deadline source.
func (t *Tracer) ResolveFreeVarAll(fn *ssa.Function, i int, deref bool) ([]Flow, bool) {
	parent := fn.Parent()
	if parent == nil {
		return nil, false
	}
	var mk *ssa.MakeClosure
	for _, b := range parent.Blocks {
		for _, instr := range b.Instrs {
			if m, ok := instr.(*ssa.MakeClosure); ok && m.Fn == fn {
				if mk != nil {
					return nil, false
				}
				mk = m
			}
		}
	}
	if mk == nil || i >= len(mk.Bindings) {
		return nil, false
	}
	b := mk.Bindings[i]
	if !deref {
		return t.TraceAll(b), true
	}
	switch b := b.(type) {
	case *ssa.Alloc:
		return t.stored(b, mk, map[ssa.Value]bool{}), true
	case *ssa.FreeVar:
		return each(t.TraceAll(b), b.Pos(), func(f Flow) []Flow {
			f.Deref = true
			return one(f)
		}), true
	}
	return one(Flow{Origin: Opaque, Pos: b.Pos(), What: "a captured context the trace cannot follow"}), true
}
