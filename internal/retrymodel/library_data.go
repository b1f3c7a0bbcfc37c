package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/ast/astutil"
)

// Retry policies given as data: an options struct handed to a library
// that retries every request made through the client built from it. The
// layer sits at the struct literal (the policy is written there; the
// calls through the client are not followed to it), and its classifier
// is the list of codes.
//
// ---- github.com/elastic/go-elasticsearch/v8 and elastictransport
// (go-elasticsearch v8.19.7, elastic-transport-go v8.9.0; v7 and v9 are
// not read here and get no layer) ----
//
// Config{RetryOnStatus []int, DisableRetry bool, MaxRetries int,
// RetryBackoff func(attempt int) time.Duration}. Perform loops
// i = 0..MaxRetries (MaxRetries+1 attempts; 0 means the default 3),
// retries a transport error (RetryOnError decides, nil: all) and a
// response whose status is listed (an empty list means 502, 503, 504),
// and waits RetryBackoff(i+1) in a select on the request's context; with
// no RetryBackoff it retries at once. Retry-After is not read.
// DisableRetry turns all of it off.
//
// opensearch-go is a fork of this transport but differs (v4.8.1: MaxRetries
// 0 means 6 retries, an empty non-nil RetryOnStatus retries no status); it
// gets no layer until it has its own entry and testdata.

// CodeSet is a retry classifier given as data: the HTTP status codes a
// library option retries.
type CodeSet struct {
	Codes []int
	// Known: every element folded to a constant.
	Known bool
	// Expr is the option's value; nil when the library default applies.
	Expr ast.Expr
	Pos  token.Pos
	// Option names the field in messages: "RetryOnStatus".
	Option string
	// Default is what the library retries when the option is not set.
	Default []int
}

// dataPolicy describes one options struct that carries a retry policy.
type dataPolicy struct {
	name        string // "elasticsearch.Config"
	codesField  string
	defCodes    []int
	retriesFld  string // retries after the first attempt
	defRetries  int64
	backoffFld  string // func(attempt int) time.Duration, called with 1, 2, ...
	disableFld  string
	cancellable bool // the wait selects on the request's context
}

var esPolicy = dataPolicy{
	codesField: "RetryOnStatus", defCodes: []int{502, 503, 504},
	retriesFld: "MaxRetries", defRetries: 3,
	backoffFld: "RetryBackoff", disableFld: "DisableRetry", cancellable: true,
}

// dataPolicyOf returns the policy description of a struct type, if it is
// one of the options structs above.
func dataPolicyOf(t types.Type) (dataPolicy, bool) {
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		t = ptr.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Name() != "Config" {
		return dataPolicy{}, false
	}
	path := named.Obj().Pkg().Path()
	switch {
	case path == "github.com/elastic/go-elasticsearch/v8",
		path == "github.com/elastic/elastic-transport-go/v8/elastictransport":
		d := esPolicy
		d.name = named.Obj().Pkg().Name() + ".Config"
		return d, true
	}
	return dataPolicy{}, false
}

// dataLayers records the layers of retry policies given as data.
func (p *pkgCtx) dataLayers() {
	p.insp.WithStack([]ast.Node{(*ast.CompositeLit)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		lit := n.(*ast.CompositeLit)
		t := p.info.TypeOf(lit)
		if t == nil {
			return true
		}
		dp, ok := dataPolicyOf(t)
		if !ok {
			return true
		}
		if l := p.dataLayer(lit, dp); l != nil {
			l.FuncNode, l.Func = enclosingFunc(p.info, stack)
			p.res.Layers = append(p.res.Layers, l)
			p.res.byNode[lit] = l
		}
		return true
	})
}

func (p *pkgCtx) dataLayer(lit *ast.CompositeLit, dp dataPolicy) *Layer {
	fields := map[string]*ast.KeyValueExpr{}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil // positional: not written for its retry fields
		}
		if id, ok := kv.Key.(*ast.Ident); ok {
			fields[id.Name] = kv
		}
	}
	if kv := fields[dp.disableFld]; kv != nil {
		if tv := p.info.Types[kv.Value]; tv.Value == nil || constant.BoolVal(tv.Value) {
			return nil // retries off, or may be
		}
	}
	codes, retries, backoff := fields[dp.codesField], fields[dp.retriesFld], fields[dp.backoffFld]
	if codes == nil && retries == nil && backoff == nil {
		// The defaults, not a policy written as data; the literal says
		// nothing about retries.
		return nil
	}
	cp := &callCtx{pkgCtx: p}
	l := &Layer{Kind: Library, Name: dp.name, Pos: lit.Pos(), Node: lit, Remote: Yes}
	pol := &l.Policy

	pol.Attempts = Value{Set: true, Known: true, N: dp.defRetries + 1, Default: true}
	if retries != nil {
		v := cp.intVal(retries.Value)
		switch {
		case !v.Known:
			pol.Attempts = v
		case v.N > 0:
			v.N++
			pol.Attempts = v
		}
	}

	set := &CodeSet{Option: dp.codesField, Default: dp.defCodes, Codes: dp.defCodes, Known: true, Pos: lit.Pos()}
	if codes != nil {
		if elts, ok := p.codeList(codes.Value); ok && len(elts) > 0 {
			set.Expr, set.Pos, set.Codes = codes.Value, codes.Pos(), nil
			for _, e := range elts {
				if n, ok := cp.fold.Int(e); ok {
					set.Codes = append(set.Codes, int(n))
				} else {
					set.Known = false
				}
			}
		} else if !ok {
			set.Expr, set.Pos, set.Codes, set.Known = codes.Value, codes.Pos(), nil, false
		}
	}
	pol.Codes = set
	if set.Expr != nil {
		pol.Classifier = set.Expr
	}

	pol.RetryAfter = No
	n := waitCount(pol.Attempts)
	if backoff == nil {
		pol.Waits = make([]time.Duration, min(n, maxListedWaits))
		pol.WaitsKnown = pol.Attempts.Known
		pol.Schedule = "none (" + dp.backoffFld + " not set: retries at once)"
		pol.Jitter = No
		pol.WaitPos = lit.Pos()
	} else {
		pol.WaitPos = backoff.Value.Pos()
		if ws, ret, ok := p.backoffTable(backoff.Value, n); ok {
			pol.Waits, pol.WaitsKnown = ws, pol.Attempts.Known
			pol.Jitter = p.randomReach(ret)
		} else if ret != nil {
			pol.Jitter = p.randomReach(ret)
		}
		if dp.cancellable {
			pol.WaitCancellable, pol.DeadlineAware, pol.DeadlinePos = Yes, Yes, backoff.Value.Pos()
		}
	}
	return l
}

// codeList returns the elements of a list of codes: a slice or array
// literal, or a variable (local or of the package) set once to one.
func (p *pkgCtx) codeList(e ast.Expr) ([]ast.Expr, bool) {
	lit, ok := astutil.Unparen(e).(*ast.CompositeLit)
	if !ok {
		lit = p.sliceLiteral(e)
	}
	if lit == nil {
		return nil, false
	}
	for _, el := range lit.Elts {
		if _, kv := el.(*ast.KeyValueExpr); kv {
			return nil, false
		}
	}
	return lit.Elts, true
}

// backoffTable folds a func(attempt int) time.Duration whose body is one
// return statement for attempts 1..n: the waits before attempts 2..n+1. It
// returns the return expression also when it cannot be folded.
func (p *pkgCtx) backoffTable(e ast.Expr, n int) ([]time.Duration, ast.Expr, bool) {
	var ftype *ast.FuncType
	var body *ast.BlockStmt
	switch f := astutil.Unparen(e).(type) {
	case *ast.FuncLit:
		ftype, body = f.Type, f.Body
	case *ast.Ident:
		if fn, ok := p.info.Uses[f].(*types.Func); ok {
			if d := p.res.decls[fn]; d != nil && d.Body != nil {
				ftype, body = d.Type, d.Body
			}
		}
	}
	if body == nil || len(body.List) != 1 || ftype.Params == nil || len(ftype.Params.List) != 1 || len(ftype.Params.List[0].Names) != 1 {
		return nil, nil, false
	}
	ret, ok := body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil, nil, false
	}
	param, _ := p.info.Defs[ftype.Params.List[0].Names[0]].(*types.Var)
	if param == nil {
		return nil, ret.Results[0], false
	}
	var out []time.Duration
	for k := 1; k <= n && k <= maxListedWaits; k++ {
		c, ok := p.eval(ret.Results[0], env{param: constant.MakeInt64(int64(k))}, 1)
		if !ok {
			return nil, ret.Results[0], false
		}
		d, ok := toInt64(c)
		if !ok {
			return nil, ret.Results[0], false
		}
		out = append(out, time.Duration(d))
	}
	return out, ret.Results[0], true
}
