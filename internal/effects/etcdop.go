package effects

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file follows etcd operations built as values. The etcd client's
// Do(ctx, op) writes when op does (clientv3.OpPut, OpDelete, OpTxn), so a
// project's operation layer that builds a transaction and hands it, through
// a helper that takes the op as a parameter, to KV.Do writes with its
// context:
//
//	func DoWithRetry(ctx context.Context, kv clientv3.KV, op clientv3.Op) { kv.Do(ctx, op) }
//	func (t *txn) op() lowOp { return lowOp{Op: clientv3.OpTxn(t.ifs, t.then, nil)} }
//	func (t *txn) Do(ctx context.Context) error { o := t.op(); _, err := DoWithRetry(ctx, t.kv, o.Op); return err }
//
// The helper alone decides nothing (it runs Gets too): it gets an
// OpWritesFact, and a call of it writes only where its op argument is a
// write op. A Txn counts as a write, as etcd's Txn does in the table.

// OpWritesFact marks a function that hands its context parameter Param and
// its etcd Op parameter OpParam to the etcd client's Do: it writes when
// the op it is given does.
type OpWritesFact struct {
	Param   int
	OpParam int
	Posn    string // the Do call
}

// AFact marks OpWritesFact as an analysis fact.
func (*OpWritesFact) AFact() {}

func (f *OpWritesFact) String() string {
	return fmt.Sprintf("does etcd op param %d with ctx param %d at %s", f.OpParam, f.Param, f.Posn)
}

const etcdClient = "go.etcd.io/etcd/client/v3"

// computeOpFacts finds this package's functions that hand an op parameter
// to the etcd client's Do (directly or through another such function), to
// a fixed point, and exports their facts.
func (c *Result) computeOpFacts() {
	type cand struct {
		fn    *types.Func
		decl  *ast.FuncDecl
		calls []*ast.CallExpr
	}
	var cands []*cand
	for fn, fd := range FuncDecls(c.pass) {
		if !hasEtcdOpParam(fn) {
			continue
		}
		cd := &cand{fn: fn, decl: fd}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				cd.calls = append(cd.calls, call)
			}
			return true
		})
		cands = append(cands, cd)
	}
	if len(cands) == 0 {
		return
	}
	if c.opFacts == nil {
		c.opFacts = make(map[*types.Func]*OpWritesFact)
	}
	for changed, iter := true, 0; changed && iter < 8; iter++ {
		changed = false
		for _, cd := range cands {
			if c.opFacts[cd.fn] != nil {
				continue
			}
			sig := cd.fn.Type().(*types.Signature)
			for _, call := range cd.calls {
				ctxArg, opArg, posn := c.opDoArgs(call)
				if ctxArg == nil {
					continue
				}
				pc, po := paramIndex(c.info, sig, ctxArg), paramIndex(c.info, sig, opArg)
				if pc < 0 || po < 0 || !retrymodel.IsContext(sig.Params().At(pc).Type()) {
					continue
				}
				c.opFacts[cd.fn] = &OpWritesFact{Param: pc, OpParam: po, Posn: posn}
				changed = true
				break
			}
		}
	}
	for fn, f := range c.opFacts {
		c.pass.ExportObjectFact(fn, f)
	}
}

// opDoArgs returns the context and op arguments of a call that does an
// etcd op: the client's Do, or a function with an OpWritesFact.
func (c *Result) opDoArgs(call *ast.CallExpr) (ctx, op ast.Expr, posn string) {
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil, nil, ""
	}
	fn = fn.Origin()
	if fn.Pkg().Path() == etcdClient && fn.Name() == "Do" && len(call.Args) == 2 && isEtcdOp(c.info.TypeOf(call.Args[1])) {
		return call.Args[0], call.Args[1], c.short(call.Pos())
	}
	if f := c.opFactOf(fn); f != nil && f.Param < len(call.Args) && f.OpParam < len(call.Args) {
		return call.Args[f.Param], call.Args[f.OpParam], f.Posn
	}
	return nil, nil, ""
}

func (c *Result) opFactOf(fn *types.Func) *OpWritesFact {
	if f := c.opFacts[fn]; f != nil {
		return f
	}
	if fn.Pkg() == c.pass.Pkg {
		return nil
	}
	var f OpWritesFact
	if c.pass.ImportObjectFact(fn, &f) {
		return &f
	}
	return nil
}

// etcdOpWrite classifies a call that does an etcd op built by a write.
func (c *Result) etcdOpWrite(call *ast.CallExpr) *Write {
	ctx, op, posn := c.opDoArgs(call)
	if ctx == nil || !c.writeOp(op, "", 0) {
		return nil
	}
	w := &Write{Call: call, Ctx: ctx, Kind: "write", Callee: CalleeText(call), Store: etcdClient}
	if fn, ok := typeutil.Callee(c.info, call).(*types.Func); ok && fn.Pkg().Path() != etcdClient {
		w.Kind = kindOf(fn.Name(), "write")
		w.Via = "writes through the etcd client's Do at " + posn
	}
	return w
}

// writeOp reports whether e is an etcd op built by OpPut, OpDelete or
// OpTxn (or, with field set, a struct whose field is one): followed
// through local variables assigned once, struct fields of composite
// literals, and the results of this package's functions.
func (c *Result) writeOp(e ast.Expr, field string, depth int) bool {
	if depth > 6 {
		return false
	}
	switch x := astutil.Unparen(e).(type) {
	case *ast.CallExpr:
		fn, ok := typeutil.Callee(c.info, x).(*types.Func)
		if !ok || fn.Pkg() == nil {
			return false
		}
		fn = fn.Origin()
		if fn.Pkg().Path() == etcdClient && field == "" {
			switch fn.Name() {
			case "OpPut", "OpDelete", "OpTxn":
				return true
			}
			return false
		}
		decl := c.declOf(fn)
		if decl == nil || decl.Body == nil {
			return false
		}
		found := false
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) > 0 && c.writeOp(r.Results[0], field, depth+1) {
				found = true
			}
			return !found
		})
		return found
	case *ast.UnaryExpr:
		return c.writeOp(x.X, field, depth+1)
	case *ast.CompositeLit:
		if field == "" {
			return false
		}
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == field {
					return c.writeOp(kv.Value, "", depth+1)
				}
			}
		}
	case *ast.SelectorExpr:
		if field != "" {
			return false
		}
		return c.writeOp(x.X, x.Sel.Name, depth+1)
	case *ast.Ident:
		v, ok := c.info.Uses[x].(*types.Var)
		if !ok {
			return false
		}
		as := c.flow.Assigns(v)
		if len(as) != 1 || as[0].RHS == nil {
			return false
		}
		if _, tuple := c.info.TypeOf(as[0].RHS).(*types.Tuple); tuple {
			return false
		}
		return c.writeOp(as[0].RHS, field, depth+1)
	}
	return false
}

// declOf finds the declaration of a function of this package (the
// model's index).
func (c *Result) declOf(fn *types.Func) *ast.FuncDecl {
	return c.model.Decl(fn.Origin())
}

// paramIndex returns the index of the parameter e names, or -1.
func paramIndex(info *types.Info, sig *types.Signature, e ast.Expr) int {
	id, ok := astutil.Unparen(e).(*ast.Ident)
	if !ok {
		return -1
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if info.Uses[id] == sig.Params().At(i) {
			return i
		}
	}
	return -1
}

func hasEtcdOpParam(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	for i := 0; i < sig.Params().Len(); i++ {
		if isEtcdOp(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

func isEtcdOp(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == etcdClient && n.Obj().Name() == "Op"
}
