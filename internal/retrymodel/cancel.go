package retrymodel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// What cancels this? The code at a position observes its caller's
// cancellation through a value it can reach: a context.Context variable in
// scope, the Context() of an *http.Request it was handed, or a field of the
// receiver or a parameter (one or two levels down) that holds a context, a
// request, or a value with a Done() <-chan struct{} (a project's own
// context-like type), or a method that gives out such a field (an
// accessor; exported as FuncFact.CancelAccessor, so another package's type
// answers the same). Whether such a value can ever be done is read from
// where it comes from: the writes the package makes to a field (Writes),
// the values of a local; a context only ever Background or TODO, or a
// request built without one, cancels nothing.

// A CancelSource is how code at a position can observe cancellation, as
// that code spells it.
type CancelSource struct {
	Name string     // what is done: "ctx", "req.Context()", "r.ctx", "p.stop"
	Done string     // the channel that closes then: "ctx.Done()", "p.stop.Done()"
	Err  string     // the error it gives, for a return: "ctx.Err()"; "" when it has none
	Var  *types.Var // the context variable, when the source is one in scope
	Chan bool       // a done channel: it is closed, not done (donechan.go)
}

// CancelSource returns how the code at pos (in layer l, if not nil) can
// observe cancellation: the layer's own context when it is a variable,
// else the innermost context variable in scope, else a value in scope
// (declared before the layer's retried region) that carries one. ok is
// false when nothing that can be done is reachable.
func (r *Result) CancelSource(l *Layer, pos token.Pos) (CancelSource, bool) {
	scope := r.pass.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return CancelSource{}, false
	}
	if src, ok := r.layerCtxField(l, scope, pos); ok {
		return src, true
	}
	if r.layerCtxLifetime(l) {
		return CancelSource{}, false
	}
	if v := r.ContextInScope(l, pos); v != nil {
		if r.NeverDone(ast.NewIdent(v.Name()), v) || r.perAttemptOfNever(v, l) {
			return CancelSource{}, false
		}
		if parent, ok := r.perAttemptParent(v, l); ok {
			// ctx, cancel := context.WithTimeout(cli.Ctx(), d) in each
			// turn: what ends it between attempts is its parent; the
			// attempt's own is cancelled before the wait.
			src := ctxSource(types.ExprString(parent))
			src.Var = varOf(r.pass.TypesInfo, parent)
			return src, true
		}
		src := ctxSource(v.Name())
		src.Var = v
		return src, true
	}
	for s := scope; s != nil && s != r.pass.Pkg.Scope(); s = s.Parent() {
		for _, v := range varsBefore(s, scope, pos) {
			if l != nil && l.Body != nil && l.Body.Pos() <= v.Pos() && v.Pos() < l.Body.End() {
				continue // made afresh in each turn, not what the retry was handed
			}
			if src, ok := r.carrier(v.Name(), v.Type(), v, 0); ok {
				return src, true
			}
		}
	}
	return CancelSource{}, false
}

// layerCtxField is the layer's own context when it is a field read
// through variables in scope at pos (pool.session.ctx): what the attempts
// run on is what the wait should honour, before any other value in scope
// that happens to carry a context.
func (r *Result) layerCtxField(l *Layer, scope *types.Scope, pos token.Pos) (CancelSource, bool) {
	if l == nil {
		return CancelSource{}, false
	}
	sel, ok := astutil.Unparen(l.Context).(*ast.SelectorExpr)
	if !ok || !IsContext(r.pass.TypesInfo.TypeOf(sel)) {
		return CancelSource{}, false
	}
	root := ast.Expr(sel)
	for {
		s, ok := astutil.Unparen(root).(*ast.SelectorExpr)
		if !ok {
			break
		}
		root = s.X
	}
	id, ok := astutil.Unparen(root).(*ast.Ident)
	if !ok {
		return CancelSource{}, false
	}
	v, _ := r.pass.TypesInfo.Uses[id].(*types.Var)
	if v == nil {
		return CancelSource{}, false
	}
	if _, obj := scope.LookupParent(v.Name(), pos); obj != v {
		return CancelSource{}, false
	}
	f := varOf(r.pass.TypesInfo, sel)
	if f == nil || !f.IsField() || !r.fieldLive(f) && f.Pkg() == r.pass.Pkg {
		return CancelSource{}, false
	}
	return ctxSource(types.ExprString(sel)), true
}

// layerCtxLifetime reports a layer whose attempts run on a context field
// that is the value's own lifetime (lifetimeField): nothing a caller
// cancels reaches the retry, whatever else in scope carries a context (a
// connection the failed attempt left nil).
func (r *Result) layerCtxLifetime(l *Layer) bool {
	if l == nil {
		return false
	}
	sel, ok := astutil.Unparen(l.Context).(*ast.SelectorExpr)
	if !ok || !IsContext(r.pass.TypesInfo.TypeOf(sel)) {
		return false
	}
	f := varOf(r.pass.TypesInfo, sel)
	return f != nil && f.IsField() && f.Pkg() == r.pass.Pkg && !f.Exported() && r.lifetimeField(f)
}

// ContextInScope returns a context.Context variable visible at pos: the
// layer's own context when it is a variable, else the innermost one.
func (r *Result) ContextInScope(l *Layer, pos token.Pos) *types.Var {
	scope := r.pass.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	if l != nil {
		if id, ok := l.Context.(*ast.Ident); ok {
			if v, ok := r.pass.TypesInfo.Uses[id].(*types.Var); ok {
				if _, obj := scope.LookupParent(v.Name(), pos); obj == v {
					return v
				}
			}
		}
	}
	for s := scope; s != nil && s != r.pass.Pkg.Scope(); s = s.Parent() {
		for _, v := range varsBefore(s, scope, pos) {
			if IsContext(v.Type()) {
				return v
			}
		}
	}
	return nil
}

// varsBefore lists the variables of scope s declared before pos and
// visible there, the latest first.
func varsBefore(s, inner *types.Scope, pos token.Pos) []*types.Var {
	var out []*types.Var
	for _, name := range s.Names() {
		v, ok := s.Lookup(name).(*types.Var)
		if !ok || v.Pos() > pos || name == "_" {
			continue
		}
		if _, obj := inner.LookupParent(name, pos); obj == v {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *types.Var) int { return int(b.Pos() - a.Pos()) })
	return out
}

// ctxSource is a source that is a context, spelled c.
func ctxSource(c string) CancelSource {
	return CancelSource{Name: c, Done: c + ".Done()", Err: c + ".Err()"}
}

// carrier returns the cancellation a value of type t, spelled name,
// carries: itself (a request, a context field, a Done type), an accessor
// method's result, or, to depth 2, a field of a struct of this package.
// v is the variable itself at depth 0 (its own values are then read).
func (r *Result) carrier(name string, t types.Type, v *types.Var, depth int) (CancelSource, bool) {
	if depth == 0 && v != nil && isDoneChanType(t) && !v.IsField() {
		return chanSource(name), true // stop <-chan struct{}: a parameter or local done channel
	}
	switch {
	case IsHTTPRequest(t) || embedsRequest(t):
		if v != nil && r.NeverDone(ast.NewIdent(v.Name()), v) {
			return CancelSource{}, false
		}
		return ctxSource(name + ".Context()"), true
	case depth > 0 && IsContext(t):
		return ctxSource(name), true
	}
	if src, ok := r.accessorSource(name, t); ok {
		return src, true
	}
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok || depth >= 2 {
		return CancelSource{}, false
	}
	if n, ok := deref(t).(*types.Named); !ok || n.Obj().Pkg() != r.pass.Pkg {
		return CancelSource{}, false // another package's fields: their writes are not seen here
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if f.Name() == "_" || !r.fieldLive(f) {
			continue
		}
		if src, ok := r.carrier(name+"."+f.Name(), f.Type(), nil, depth+1); ok {
			return src, true
		}
	}
	return CancelSource{}, false
}

// accessorSource finds, among t's methods, one that gives out the value's
// cancellation: Done() <-chan struct{} (the value is then a context-like
// type) or a method with no parameters that returns a context.
func (r *Result) accessorSource(name string, t types.Type) (CancelSource, bool) {
	if IsContext(t) {
		return CancelSource{}, false
	}
	var ctxM, doneM, errM *types.Func
	for _, sel := range typeutil.IntuitiveMethodSet(t, nil) {
		fn, ok := sel.Obj().(*types.Func)
		if !ok || !fn.Exported() && fn.Pkg() != r.pass.Pkg {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
			continue
		}
		res := sig.Results().At(0).Type()
		switch {
		case fn.Name() == "Done" && isDoneChanType(res):
			doneM = fn
		case fn.Name() == "Err" && types.Identical(res, types.Universe.Lookup("error").Type()):
			errM = fn
		case IsContext(res) && ctxM == nil && r.cancelAccessor(fn):
			ctxM = fn
		}
	}
	// An interface that has a context's Done and Err (a project's own
	// Context interface, often embedding context.Context) is a contract,
	// not a body to read: any value of it is done when its caller is.
	if doneM != nil && (r.cancelAccessor(doneM) || errM != nil && types.IsInterface(t)) {
		src := CancelSource{Name: name, Done: name + ".Done()"}
		if errM != nil {
			src.Err = name + ".Err()"
		}
		return src, true
	}
	if ctxM != nil {
		return ctxSource(name + "." + ctxM.Name() + "()"), true
	}
	return CancelSource{}, false
}

func isDoneChanType(t types.Type) bool {
	ch, ok := types.Unalias(t).(*types.Chan)
	if !ok || ch.Dir() != types.RecvOnly {
		return false
	}
	st, ok := ch.Elem().Underlying().(*types.Struct)
	return ok && st.NumFields() == 0
}

// cancelAccessor reports a method that gives out its receiver's
// cancellation on every path: a context field that can be done
// (return j.ctx), its Done() or a request's Context(), a channel field the
// package closes (return s.ch), or another accessor of the receiver. A
// method of another package answers by its fact.
func (r *Result) cancelAccessor(fn *types.Func) bool {
	fn = fn.Origin()
	if fn.Pkg() != r.pass.Pkg {
		var f FuncFact
		return r.pass.ImportObjectFact(fn, &f) && f.CancelAccessor
	}
	ix := r.cancelIx()
	if a, ok := ix.accessor[fn]; ok {
		return a
	}
	ix.accessor[fn] = false // a cycle answers no
	decl := r.decls[fn]
	if decl == nil || decl.Body == nil || decl.Recv == nil || len(decl.Recv.List) != 1 || len(decl.Recv.List[0].Names) != 1 {
		return false
	}
	recv, _ := r.pass.TypesInfo.Defs[decl.Recv.List[0].Names[0]].(*types.Var)
	rets := returns(decl)
	ok := recv != nil && len(rets) > 0
	for _, ret := range rets {
		ok = ok && len(ret.Results) == 1 && r.fromReceiver(ret.Results[0], recv)
	}
	ix.accessor[fn] = ok
	return ok
}

// fromReceiver reports a returned expression that is the receiver's own
// cancellation (see cancelAccessor).
func (r *Result) fromReceiver(e ast.Expr, recv *types.Var) bool {
	info := r.pass.TypesInfo
	e = astutil.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
		sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if t := info.TypeOf(sel.X); t != nil && (IsContext(t) && sel.Sel.Name == "Done" || IsHTTPRequest(t) && sel.Sel.Name == "Context") {
			return r.fromReceiver(sel.X, recv) // return w.ctx.Done(), return w.req.Context()
		}
		fn, _ := info.Uses[sel.Sel].(*types.Func)
		return fn != nil && varOf(info, sel.X) == recv && r.cancelAccessor(fn)
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || varOf(info, sel.X) != recv {
		return false
	}
	f := varOf(info, sel)
	if f == nil || !f.IsField() || !r.fieldLive(f) {
		return false
	}
	if _, isChan := f.Type().Underlying().(*types.Chan); isChan {
		return r.cancelIx().closed[f]
	}
	return IsContext(f.Type()) || IsHTTPRequest(f.Type())
}

// fieldLive reports a field of this package that may carry a
// cancellation: exported (any importer may set it), or given in
// production code a value that is not nil and not one that can never be
// done.
func (r *Result) fieldLive(f *types.Var) bool {
	if f.Pkg() != r.pass.Pkg || f.Exported() {
		return f.Pkg() == r.pass.Pkg
	}
	never, n := r.fieldNever(f, map[types.Object]bool{})
	return n > 0 && !never && !r.lifetimeField(f)
}

// lifetimeField reports an unexported context field whose every value the
// package makes itself with context.WithCancel on a root that is never
// done (context.WithCancel(context.Background()) in a constructor, the
// cancel called when the value is closed): the value's lifetime, not a
// caller's cancellation, as a done channel the value closes is
// (donechan.go). A wait that ignores it delays a Close by one wait.
func (r *Result) lifetimeField(f *types.Var) bool {
	if !IsContext(f.Type()) {
		return false
	}
	vals, ok := r.Writes(f)
	if !ok || len(vals) == 0 {
		return false
	}
	n := 0
	for _, val := range vals {
		if val == nil {
			return false
		}
		if r.inTestFile(val.Pos()) || isNil(r.pass.TypesInfo, val) {
			continue
		}
		n++
		if !r.ownRoot(val, 0) {
			return false
		}
	}
	return n > 0
}

// ownRoot reports a context made by context.WithCancel (or
// WithCancelCause) of a context that is never done, directly or through
// the locals it was assigned to.
func (r *Result) ownRoot(e ast.Expr, depth int) bool {
	info := r.pass.TypesInfo
	e = astutil.Unparen(e)
	if depth > 3 {
		return false
	}
	if id, ok := e.(*ast.Ident); ok {
		v, _ := info.Uses[id].(*types.Var)
		if v == nil || v.IsField() || v.Parent() == r.pass.Pkg.Scope() || r.cancelIx().params[v] {
			return false
		}
		vals, ok := r.Writes(v)
		if !ok || len(vals) == 0 {
			return false
		}
		for _, val := range vals {
			if val == nil || !r.ownRoot(val, depth+1) {
				return false
			}
		}
		return true
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	fn := typeutil.StaticCallee(info, call)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" &&
		(fn.Name() == "WithCancel" || fn.Name() == "WithCancelCause") && r.NeverDone(call.Args[0], nil)
}

// fieldNever reports whether every production write of an unexported
// field is nil or can never be done; n counts the other writes.
func (r *Result) fieldNever(f *types.Var, seen map[types.Object]bool) (never bool, n int) {
	vals, ok := r.Writes(f)
	never = ok
	for _, val := range vals {
		if val != nil && (r.inTestFile(val.Pos()) || isNil(r.pass.TypesInfo, val)) {
			continue
		}
		n++
		never = never && val != nil && r.neverDone(val, nil, seen)
	}
	return never, n
}

func (r *Result) inTestFile(pos token.Pos) bool { return InTestFile(r.pass.Fset, pos) }

// InTestFile reports a position in a _test.go file: a test's retries,
// deadlines and cleanups are its own harness's, which the analyzers leave
// alone where they say so.
func InTestFile(fset *token.FileSet, pos token.Pos) bool {
	return strings.HasSuffix(fset.Position(pos).Filename, "_test.go")
}

// NeverDone reports a context or request expression that can never be
// done: context.Background(), TODO(), WithoutCancel(x), WithValue of such
// a context; a request built with no context (http.NewRequest,
// retryablehttp.NewRequest) or given only such a context; a local or an
// unexported field whose every value is one, a function of the package
// whose every return is one. v, when not nil, is the variable e names.
func (r *Result) NeverDone(e ast.Expr, v *types.Var) bool {
	return r.neverDone(e, v, map[types.Object]bool{})
}

func (r *Result) neverDone(e ast.Expr, v *types.Var, seen map[types.Object]bool) bool {
	info := r.pass.TypesInfo
	e = astutil.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		if v == nil {
			v, _ = info.Uses[id].(*types.Var)
		}
		if v != nil && r.cancelIx().params[v] && !seen[v] {
			// poll(ctx) called only as poll(context.Background()): an
			// unexported function's parameter, every call in sight.
			seen[v] = true
			return r.paramNeverDone(v, seen)
		}
		if v == nil || v.IsField() || v.Parent() == nil || v.Parent() == r.pass.Pkg.Scope() || r.cancelIx().params[v] {
			return false
		}
		if seen[v] {
			return true // ctx = context.WithValue(ctx, ...): as done as its other values
		}
		seen[v] = true
		vals, ok := r.Writes(v)
		if !ok || len(vals) == 0 {
			return false
		}
		for _, val := range vals {
			if val == nil || !r.neverDone(val, nil, seen) {
				return false
			}
		}
		return true
	}
	if sel, ok := e.(*ast.SelectorExpr); ok {
		// x.request: every production write of the field.
		f := varOf(info, sel)
		if f == nil || !f.IsField() || f.Pkg() != r.pass.Pkg || f.Exported() || seen[f] {
			return f != nil && seen[f]
		}
		seen[f] = true
		never, n := r.fieldNever(f, seen)
		return never && n > 0
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := typeutil.StaticCallee(info, call)
	if fn == nil {
		return false
	}
	if d := r.decls[fn.Origin()]; d != nil && d.Body != nil && !seen[fn.Origin()] {
		// req.makeRequest(): what the package's own function returns.
		seen[fn.Origin()] = true
		rets := returns(d)
		for _, ret := range rets {
			if len(ret.Results) == 0 || !isNil(r.pass.TypesInfo, ret.Results[0]) && !r.neverDone(ret.Results[0], nil, seen) {
				return false
			}
		}
		return len(rets) > 0
	}
	if fn.Pkg() != nil && fn.Pkg().Path() == "context" {
		switch fn.Name() {
		case "Background", "TODO", "WithoutCancel":
			return true
		case "WithValue":
			return len(call.Args) == 3 && r.neverDone(call.Args[0], nil, seen)
		}
		return false
	}
	t := info.TypeOf(call)
	if tup, ok := t.(*types.Tuple); ok && tup.Len() > 0 {
		t = tup.At(0).Type() // r, err := http.NewRequest(...)
	}
	if t == nil || !IsHTTPRequest(t) && !embedsRequest(t) {
		return false
	}
	// A request: it carries the contexts it is given, else Background.
	replaces := false // r.WithContext(ctx): the result carries ctx, not the receiver's
	for _, a := range call.Args {
		switch t := info.TypeOf(a); {
		case t != nil && IsContext(t):
			if !r.neverDone(a, nil, seen) {
				return false
			}
			replaces = true
		case t != nil && (IsHTTPRequest(t) || embedsRequest(t)):
			return false
		}
	}
	return fn.Type().(*types.Signature).Recv() == nil || replaces
}

// perAttemptOfNever reports a context made afresh in the retried region on
// each turn, with a timeout or cancel of its own, from a context that can
// never be done (ctx, cancel := context.WithTimeout(context.Background(),
// dialTimeout) in a reconnect probe): it bounds one attempt, and a wait
// after that attempt has nothing of the caller's to honour.
func (r *Result) perAttemptOfNever(v *types.Var, l *Layer) bool {
	calls, ok := r.perAttemptCalls(v, l)
	if !ok {
		return false
	}
	for _, call := range calls {
		if !r.NeverDone(call.Args[0], nil) {
			return false
		}
	}
	return true
}

// perAttemptCalls returns the context.With* calls (WithTimeout,
// WithCancel, not WithValue or WithoutCancel) that give a context
// variable declared in the layer's body its every value: a context made
// afresh for each attempt.
func (r *Result) perAttemptCalls(v *types.Var, l *Layer) ([]*ast.CallExpr, bool) {
	if l == nil || l.Body == nil || v.Pos() < l.Body.Pos() || v.Pos() >= l.Body.End() {
		return nil, false
	}
	vals, ok := r.Writes(v)
	if !ok || len(vals) == 0 {
		return nil, false
	}
	calls := make([]*ast.CallExpr, 0, len(vals))
	for _, e := range vals {
		call, ok := astutil.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return nil, false
		}
		fn := typeutil.StaticCallee(r.pass.TypesInfo, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || !strings.HasPrefix(fn.Name(), "With") || fn.Name() == "WithValue" || fn.Name() == "WithoutCancel" {
			return nil, false
		}
		calls = append(calls, call)
	}
	return calls, true
}

// perAttemptParent is the context a per-attempt context of the layer is
// derived from, when every value the variable is given is a
// context.With* of the same parent made outside the layer's body.
func (r *Result) perAttemptParent(v *types.Var, l *Layer) (ast.Expr, bool) {
	calls, ok := r.perAttemptCalls(v, l)
	if !ok {
		return nil, false
	}
	var parent ast.Expr
	for _, call := range calls {
		p := astutil.Unparen(call.Args[0])
		if parent != nil && types.ExprString(parent) != types.ExprString(p) {
			return nil, false
		}
		declaredIn := contains(p, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return false
			}
			o := r.pass.TypesInfo.Uses[id]
			return o != nil && l.Body.Pos() <= o.Pos() && o.Pos() < l.Body.End()
		})
		if declaredIn {
			return nil, false
		}
		parent = p
	}
	return parent, parent != nil
}

// cancelIndex holds what the answers above share in one package.
type cancelIndex struct {
	accessor map[*types.Func]bool
	closed   map[*types.Var]bool // channel fields the package closes
	params   map[*types.Var]bool // parameters, receivers and results: given by a caller
	// paramOf: the parameters of the package's unexported functions (not
	// methods), with their function; taken: those functions named other
	// than as the callee of a call (handed on as a value: callers not in
	// sight).
	paramOf map[*types.Var]*types.Func
	taken   map[*types.Func]bool
	// funcWaits are the calls of func values that wait (funcwait.go).
	funcWaits map[*ast.CallExpr]waitSite
}

func (r *Result) cancelIx() *cancelIndex {
	if r.cancel != nil {
		return r.cancel
	}
	ix := &cancelIndex{accessor: map[*types.Func]bool{}, closed: map[*types.Var]bool{}, params: map[*types.Var]bool{}, funcWaits: map[*ast.CallExpr]waitSite{},
		paramOf: map[*types.Var]*types.Func{}, taken: map[*types.Func]bool{}}
	info := r.pass.TypesInfo
	callee := map[*ast.Ident]bool{}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := astutil.Unparen(n.Fun).(*ast.Ident); ok {
					callee[id] = true
				}
				if id, ok := astutil.Unparen(n.Fun).(*ast.Ident); ok && id.Name == "close" && len(n.Args) == 1 {
					if _, ok := info.Uses[id].(*types.Builtin); ok {
						if v := varOf(info, n.Args[0]); v != nil && v.IsField() {
							ix.closed[v] = true
						}
					}
				}
			case *ast.FuncDecl:
				if n.Recv != nil {
					r.markParams(ix, n.Recv)
				} else if fn, ok := info.Defs[n.Name].(*types.Func); ok && !n.Name.IsExported() && n.Type.Params != nil {
					for _, field := range n.Type.Params.List {
						for _, id := range field.Names {
							if v, ok := info.Defs[id].(*types.Var); ok {
								ix.paramOf[v] = fn
							}
						}
					}
				}
			case *ast.FuncType:
				r.markParams(ix, n.Params)
				r.markParams(ix, n.Results)
			}
			return true
		})
	}
	// A function of paramOf named anywhere but as a call's callee is
	// handed on: read from the uses, not by a lookup per identifier.
	fns := map[*types.Func]bool{}
	for _, fn := range ix.paramOf {
		fns[fn] = true
	}
	if len(fns) > 0 {
		for id, obj := range info.Uses {
			if fn, ok := obj.(*types.Func); ok && fns[fn] && !callee[id] {
				ix.taken[fn] = true
			}
		}
	}
	r.cancel = ix
	return ix
}

// paramNeverDone reports a parameter of an unexported function, never
// handed on as a value, whose every call in the package passes a context
// that can never be done.
func (r *Result) paramNeverDone(v *types.Var, seen map[types.Object]bool) bool {
	ix := r.cancelIx()
	fn := ix.paramOf[v]
	if fn == nil || ix.taken[fn] {
		return false
	}
	args := r.paramArgs[v]
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		if !r.neverDone(a, nil, seen) {
			return false
		}
	}
	return true
}

func (r *Result) markParams(ix *cancelIndex, fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, field := range fl.List {
		for _, id := range field.Names {
			if v, ok := r.pass.TypesInfo.Defs[id].(*types.Var); ok {
				ix.params[v] = true
			}
		}
	}
}

// IsHTTPRequest reports an *http.Request.
func IsHTTPRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Request"
}

// embedsRequest reports a pointer to a struct that embeds an
// *http.Request (retryablehttp.Request): its Context() is the request's.
func embedsRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	st, ok := types.Unalias(p.Elem()).Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() && IsHTTPRequest(f.Type()) {
			return true
		}
	}
	return false
}

// exportsAccessor reports a method whose fact says it gives out its
// receiver's cancellation (cancelAccessor), read only for the shapes an
// accessor has.
func (r *Result) exportsAccessor(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil || sig.Params().Len() != 0 || sig.Results().Len() != 1 {
		return false
	}
	if t := sig.Results().At(0).Type(); !IsContext(t) && !(fn.Name() == "Done" && isDoneChanType(t)) {
		return false
	}
	return r.cancelAccessor(fn)
}
