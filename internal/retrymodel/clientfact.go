package retrymodel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// ClientFact is exported for a function whose first result, or a
// package-level variable or struct field whose value, is a retrying client the model
// followed to its construction: an openai-go or anthropic-sdk-go Client, a
// *retryablehttp.Client, or an *http.Client built by StandardClient(). A
// package that calls the function (llm.New()) or reads the variable sees
// where the client was built and how often it retries, the way it would if
// the client were built in the package itself.
type ClientFact struct {
	// Kind is "openai", "anthropic" (Stainless SDK clients), "aws" (an
	// aws-sdk-go-v2 service client), "retryablehttp" (*retryablehttp.Client)
	// or "standard" (an *http.Client whose transport is a retryablehttp
	// client).
	Kind string
	// Retries is the number of retries after the first attempt (SDK
	// MaxRetries, retryablehttp RetryMax) when Known.
	Retries int64
	Known   bool
	// Default: no setting was seen and the construction is fully visible,
	// so Retries is the SDK or library default. Opaque: options were not
	// all visible (Retries is then the default, assumed).
	Default bool
	Opaque  bool
	// Posn is where the client was built (dir/file.go:line).
	Posn string
	// Chains, for Kind "transport" (an *http.Client whose Transport's
	// RoundTrip retries, transport.go), are the retry layers under each
	// request the client sends.
	Chains []Chain
}

// AFact marks ClientFact as an analysis fact.
func (*ClientFact) AFact() {}

func (f *ClientFact) String() string {
	r := "?"
	if f.Known {
		r = fmt.Sprint(f.Retries)
	}
	return fmt.Sprintf("%s client (retries %s) built at %s", f.Kind, r, f.Posn)
}

// clientFactsOn reports whether the running analyzer registers ClientFact.
func (p *pkgCtx) clientFactsOn() bool {
	for _, ft := range p.pass.Analyzer.FactTypes {
		if _, ok := ft.(*ClientFact); ok {
			return true
		}
	}
	return false
}

// exportClientFacts exports, once per package, a ClientFact for every
// function of the package whose first result is a retrying client it
// builds, and every package-level variable or struct field holding one.
func (p *callCtx) exportClientFacts() {
	ix := p.index()
	if ix.exported {
		return
	}
	ix.exported = true
	if !p.clientFactsOn() {
		return
	}
	for _, fn := range p.res.funcsInOrder() {
		sig, ok := fn.Type().(*types.Signature)
		if !ok || sig.Results().Len() == 0 || clientKind(sig.Results().At(0).Type()) == "" {
			continue
		}
		decl := p.res.decls[fn]
		r := p.returnedFrom(decl, 0)
		if r == nil {
			continue
		}
		if f := p.clientFactOf(r, sig.Results().At(0).Type()); f != nil {
			p.pass.ExportObjectFact(fn, f)
		}
	}
	var vars []*types.Var
	scope := p.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		if v, ok := scope.Lookup(name).(*types.Var); ok {
			vars = append(vars, v)
		}
	}
	// struct fields of this package given one client (a constructor's
	// composite literal or assignment), read from other packages
	var fields []*types.Var
	for v := range ix.vars {
		if v.IsField() && v.Pkg() == p.pass.Pkg {
			fields = append(fields, v)
		}
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Pos() < fields[j].Pos() })
	vars = append(vars, fields...)
	for _, v := range vars {
		if clientKind(v.Type()) == "" {
			continue
		}
		srcs := ix.vars[v]
		if len(srcs) != 1 || srcs[0].unknown || srcs[0].tuple {
			continue
		}
		if f := p.clientFactOf(srcs[0].expr, v.Type()); f != nil {
			p.pass.ExportObjectFact(v, f)
		}
	}
}

// clientKind names the retrying client a type is, or "".
func clientKind(t types.Type) string {
	if pt, ok := types.Unalias(t).(*types.Pointer); ok {
		t = pt.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	path, name := n.Obj().Pkg().Path(), n.Obj().Name()
	switch {
	case name == "Client" && under(path, pkgOpenAIV1) && stainlessRoot(path, pkgOpenAIV1) == path:
		return "openai"
	case name == "Client" && under(path, pkgAnthropic) && stainlessRoot(path, pkgAnthropic) == path:
		return "anthropic"
	case name == "Client" && path == pkgRetryableHTTP:
		return "retryablehttp"
	case name == "Client" && path == "net/http":
		return "standard"
	case name == "Client" && strings.HasPrefix(path, pkgAWS+"/service/"):
		return "aws"
	}
	return ""
}

// clientFactOf follows a client value of type t to its construction.
func (p *callCtx) clientFactOf(e ast.Expr, t types.Type) *ClientFact {
	switch kind := clientKind(t); kind {
	case "openai", "anthropic":
		root := deref(t).(*types.Named).Obj().Pkg().Path()
		c := p.stainlessClient(e, root)
		if !c.found {
			return nil
		}
		f := &ClientFact{Kind: kind, Posn: c.posn, Opaque: c.opaque, Default: c.retries.Default && !c.opaque}
		if c.retries.Known {
			f.Retries, f.Known = c.retries.N, true
		}
		return f
	case "aws":
		svc := deref(t).(*types.Named).Obj().Pkg()
		c := p.awsClient(e, svc)
		if c.posn == "" {
			return nil
		}
		f := &ClientFact{Kind: kind, Posn: c.posn, Opaque: !c.known, Default: c.attempts.Default}
		if c.attempts.Known && c.attempts.N > 0 {
			f.Retries, f.Known = c.attempts.N-1, true
		}
		return f
	case "retryablehttp":
		rc := p.resolveRetryableClient(e)
		if !rc.known {
			return nil
		}
		return rhFact(kind, rc, p.posnOf(rc))
	case "standard":
		rc, at, ok := p.standardClientOf(e)
		if !ok {
			return nil
		}
		f := rhFact(kind, rc, p.short(at))
		if rc.posn != "" {
			f.Posn = rc.posn
		}
		return f
	}
	return nil
}

func rhFact(kind string, rc rhPolicy, posn string) *ClientFact {
	f := &ClientFact{Kind: kind, Posn: posn, Default: rc.max.Default}
	if rc.max.Known {
		f.Retries, f.Known = rc.max.N, true
	}
	return f
}

func (p *callCtx) posnOf(rc rhPolicy) string {
	if rc.posn != "" {
		return rc.posn
	}
	return p.short(rc.pos)
}

// importedClient returns the ClientFact of the function called or the
// package variable read by x, when it belongs to another package.
func (p *callCtx) importedClient(x ast.Expr) (*ClientFact, string) {
	if x == nil || !p.clientFactsOn() {
		return nil, ""
	}
	var obj types.Object
	switch x := astutil.Unparen(x).(type) {
	case *ast.CallExpr:
		if fn, ok := typeutil.Callee(p.info, x).(*types.Func); ok {
			obj = fn.Origin()
		}
	case *ast.Ident:
		obj = p.info.Uses[x]
	case *ast.SelectorExpr:
		obj = p.info.Uses[x.Sel]
	}
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == p.pass.Pkg {
		return nil, ""
	}
	if v, isVar := obj.(*types.Var); isVar && !v.IsField() && obj.Parent() != obj.Pkg().Scope() {
		return nil, "" // a local
	}
	var f ClientFact
	if !p.pass.ImportObjectFact(obj, &f) {
		return nil, ""
	}
	name := obj.Pkg().Name() + "." + obj.Name()
	if v, isVar := obj.(*types.Var); isVar && v.IsField() {
		name += " field"
	}
	return &f, name
}

// returnedFrom is returnedBy for a declaration: the one non-nil value its
// returns give as result i.
func (p *pkgCtx) returnedFrom(decl *ast.FuncDecl, i int) ast.Expr {
	if decl == nil {
		return nil
	}
	var out ast.Expr
	for _, ret := range returns(decl) {
		if i >= len(ret.Results) {
			return nil
		}
		r := astutil.Unparen(ret.Results[i])
		if id, isID := r.(*ast.Ident); isID && id.Name == "nil" {
			continue
		}
		if out != nil && out != r {
			return nil
		}
		out = r
	}
	return out
}

// stainlessClientInfo is an SDK client followed to its construction.
type stainlessClientInfo struct {
	found      bool
	pos        token.Pos // NewClient in this package
	posn       string    // where it was built (this or another package)
	via        string    // the other package's function or variable
	retries    Value
	opaque     bool
	perAttempt Value
	transport  string
}

// stainlessClient follows an openai-go / anthropic-sdk-go client value.
func (p *callCtx) stainlessClient(e ast.Expr, root string) stainlessClientInfo {
	c := stainlessClientInfo{retries: defInt(sdkDefaultRetries)}
	x, _ := p.origin(e)
	if x == nil {
		return c
	}
	if nc, ok := x.(*ast.CallExpr); ok && p.calleeIs(nc, root, "", "NewClient") {
		c.found, c.pos, c.posn = true, nc.Pos(), p.short(nc.Pos())
		opts, complete := p.optList(nc, 0)
		r, pa, tr, seen := p.stainlessOpts(opts, root)
		if seen.IsValid() {
			c.retries = r
		} else if !complete {
			c.opaque = true
		}
		c.perAttempt, c.transport = pa, tr
		return c
	}
	if f, via := p.importedClient(x); f != nil && (f.Kind == "openai" || f.Kind == "anthropic") {
		c.found, c.posn, c.via, c.opaque = true, f.Posn, via, f.Opaque
		switch {
		case f.Known && (f.Default || f.Opaque):
			c.retries = defInt(f.Retries)
		case f.Known:
			c.retries = Value{Set: true, Known: true, N: f.Retries}
		default:
			c.retries = Value{Set: true}
		}
	}
	return c
}
