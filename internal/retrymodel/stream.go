package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// This file holds streams opened in a retried region. After a stream's
// first response, a failure arrives as an event or a read error (an SSE
// error event, a connection dropped mid-answer, a gRPC status on Recv), so
// a retry around the call that opens the stream sees only failures to
// open it (seed 003).
//
// A stream is what a remote call returns that has a read method that
// reports errors: Recv() (T, error) (go-openai's streams, generated gRPC
// client streams) or Next() bool with Err() error (openai-go's and
// anthropic-sdk-go's ssestream.Stream). Provenance by the value's method
// set, not by package: any client whose stream has that shape counts. A
// value with a Scan method is a row cursor (sql.Rows, pgx.Rows), whose
// mid-result failures a query retry rightly leaves to its reader.
//
// A stream that also has Send(m) error is a session (a gRPC bidirectional
// or client stream: etcd's Watch, a chat session): the call that opens it
// carries no request, so no answer can be cut short under the retry. The
// requests go out later on Send, and their answers' failures are the
// session protocol's to handle (reopen and resume), not the open's.

// A StreamOpen is a remote call in a retry layer's retried region that
// opens a stream which the region never reads.
type StreamOpen struct {
	Call *ast.CallExpr
	Var  *types.Var // the stream variable
	Read string     // the method that reports its errors: "Recv", "Err"
	// Leaves is where the stream leaves the region: the return that hands
	// it to the caller, or NoPos when it is kept in a variable declared
	// outside the region and read after it.
	Leaves token.Pos
}

// StreamOpens returns the streams l's retried region opens without reading
// them (the region may still close them). Clients and SDK layers have no
// region: what they retry is their own.
func (r *Result) StreamOpens(l *Layer) []StreamOpen {
	if l.Body == nil || (l.Kind != Loop && l.Kind != Library) {
		return nil
	}
	info := r.pass.TypesInfo
	var out []StreamOpen
	if l.Kind == Library {
		ast.Inspect(l.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // another function's returns
			case *ast.ReturnStmt:
				if so, ok := r.returnedStream(l, n); ok {
					out = append(out, so)
				}
			}
			return true
		})
	}
	ast.Inspect(l.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return true
		}
		call, ok := astutil.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok {
			return true
		}
		v, _ := info.ObjectOf(id).(*types.Var)
		if v == nil {
			return true
		}
		read, ok := streamRead(v.Type())
		if !ok || !r.Remote(call) {
			return true
		}
		so := StreamOpen{Call: call, Var: v, Read: read}
		inside := l.Body.Pos() <= v.Pos() && v.Pos() < l.Body.End()
		readIn, leaves := streamUses(info, l.Body, v)
		if readIn {
			return true
		}
		switch {
		case leaves.IsValid():
			so.Leaves = leaves
		case inside:
			return true // opened and dropped in the region: nothing reads it at all
		}
		out = append(out, so)
		return true
	})
	return out
}

// returnedStream reads `return client.OpenStream(ctx, req)` in the
// operation handed to a library or helper: the stream comes out of the
// layer's call (stream, err := retry.Do(ctx, op)), outside the retried
// region. It is an open when the enclosing function then reads that
// variable or returns it; a result the caller drops is not followed.
func (r *Result) returnedStream(l *Layer, ret *ast.ReturnStmt) (StreamOpen, bool) {
	info := r.pass.TypesInfo
	if len(ret.Results) == 0 || l.FuncNode == nil {
		return StreamOpen{}, false
	}
	call, ok := astutil.Unparen(ret.Results[0]).(*ast.CallExpr)
	if !ok {
		return StreamOpen{}, false
	}
	t := info.TypeOf(call)
	if tup, ok := t.(*types.Tuple); ok && tup.Len() > 0 {
		t = tup.At(0).Type()
	}
	read, ok := streamRead(t)
	if !ok || !r.Remote(call) {
		return StreamOpen{}, false
	}
	// The layer's call, assigned: stream, err := retry.Do(...).
	var v *types.Var
	ast.Inspect(l.FuncNode, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || v != nil || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != l.Node || len(as.Lhs) == 0 {
			return v == nil
		}
		if id, ok := as.Lhs[0].(*ast.Ident); ok {
			v, _ = info.ObjectOf(id).(*types.Var)
		}
		return false
	})
	if v == nil || !types.Identical(v.Type(), t) {
		return StreamOpen{}, false
	}
	readOut, leaves := streamUses(info, l.FuncNode, v)
	if !readOut && !leaves.IsValid() {
		return StreamOpen{}, false
	}
	so := StreamOpen{Call: call, Var: v, Read: read}
	if !readOut {
		so.Leaves = leaves
	}
	return so, true
}

// streamRead reports whether t is a stream and names the method that
// reports its errors.
func streamRead(t types.Type) (string, bool) {
	ms := types.NewMethodSet(t)
	if _, ok := t.Underlying().(*types.Pointer); !ok {
		if _, isIface := t.Underlying().(*types.Interface); !isIface {
			ms = types.NewMethodSet(types.NewPointer(t))
		}
	}
	sigOf := func(name string) *types.Signature {
		sel := ms.Lookup(nil, name)
		if sel == nil {
			for i := range ms.Len() {
				if ms.At(i).Obj().Name() == name {
					sel = ms.At(i)
				}
			}
		}
		if sel == nil {
			return nil
		}
		sig, _ := sel.Type().(*types.Signature)
		return sig
	}
	if send := sigOf("Send"); send != nil && send.Params().Len() == 1 && send.Results().Len() == 1 && isErrorType(send.Results().At(0).Type()) {
		return "", false // a session: the open sends no request
	}
	if sig := sigOf("Recv"); sig != nil && sig.Params().Len() == 0 && sig.Results().Len() == 2 && isErrorType(sig.Results().At(1).Type()) {
		return "Recv", true
	}
	if sigOf("Scan") != nil {
		return "", false // a row cursor (database/sql, pgx): its rows are not events
	}
	next, errm := sigOf("Next"), sigOf("Err")
	if next != nil && errm != nil && next.Params().Len() == 0 && next.Results().Len() == 1 &&
		types.Identical(next.Results().At(0).Type(), types.Typ[types.Bool]) &&
		errm.Params().Len() == 0 && errm.Results().Len() == 1 && isErrorType(errm.Results().At(0).Type()) {
		return "Err", true
	}
	return "", false
}

// streamUses reads what region does with the stream v: whether it reads
// it (a read method, or hands it to a function, which may), and where it
// returns it.
func streamUses(info *types.Info, region ast.Node, v *types.Var) (read bool, returned token.Pos) {
	var stack []ast.Node
	ast.Inspect(region, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || info.Uses[id] != v || len(stack) < 2 {
			return true
		}
		switch p := stack[len(stack)-2].(type) {
		case *ast.SelectorExpr:
			switch p.Sel.Name {
			case "Recv", "Next", "Err", "RecvMsg", "Current":
				read = true
			}
		case *ast.CallExpr:
			for _, a := range p.Args {
				if a == id {
					read = true // handed on: the callee may read it
				}
			}
		case *ast.ReturnStmt:
			if !returned.IsValid() {
				returned = p.Pos()
			}
		case *ast.SendStmt, *ast.CompositeLit, *ast.KeyValueExpr:
			read = true // handed on to whoever receives it
		}
		return true
	})
	return read, returned
}
