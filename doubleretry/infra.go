package doubleretry

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// The outer layer people forget: the proxy or mesh in front of the
// service (internal/infra reads its routes from the module's manifests)
// retries a request the handler has already started on, so it multiplies
// every retry layer the handler reaches, and it runs the handler's writes
// again.

// infraRetries reports, at each handler registration a retrying route
// serves: the product of the route's attempts and the layers the handler
// reaches, and a handler that writes with no idempotency key.
func infraRetries(pass *analysis.Pass, res *retrymodel.Result) {
	if len(pass.Files) == 0 {
		return
	}
	regs := infra.Registrations(pass.TypesInfo, pass.Files)
	if len(regs) == 0 && len(res.Layers) == 0 {
		return
	}
	dir := filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name())
	cfg := infra.Declared() // the manifests a driver declared (-manifests)
	if cfg == nil || len(cfg.Routes) == 0 {
		return
	}
	writes, _ := pass.ResultOf[effects.Analyzer].(*effects.Result)
	c := &checker{pass: pass, res: res, byPosn: make(map[string]*retrymodel.Layer)}
	for _, l := range append(append([]*retrymodel.Layer(nil), res.Layers...), res.HelperLayers...) {
		c.byPosn[retrymodel.Shorten(pass.Fset, l.Pos)] = l
	}
	c.infraOutbound(cfg) // infra_outbound.go
	for _, reg := range regs {
		body := handlerBody(res, reg)
		var chains []retrymodel.Chain
		for _, rt := range cfg.For(reg.Pattern, dir) {
			conds, codesOnly := rt.RetriesAfterStart()
			if len(conds) == 0 {
				continue // no retry, or only before the request reaches the handler
			}
			if rt.Retry.IdempotentOnly && reg.Method != "" && infra.NonIdempotent(reg.Method) {
				continue // nginx passes no POST on to another try
			}
			if codesOnly && !answersWith(pass.TypesInfo, body, rt.Retry.Codes) {
				continue // it retries only statuses the handler is not seen to send
			}
			if chains == nil {
				chains = nested("", c.handlerChains(reg, body))
			}
			if len(chains) > 0 {
				c.reportRoute(reg, rt, chains[0])
			}
			if !sideEffects || rt.Retry.IdempotentOnly || !infra.NonIdempotent(reg.Method) {
				continue
			}
			if w, ok := writes.In(body); ok && !mentionsIdempotency(pass.TypesInfo, body) {
				c.reportWrite(reg, rt, w)
			}
		}
	}
}

// handlerBody is the body of a registration's handler, when this package
// declares it.
func handlerBody(res *retrymodel.Result, reg infra.Registration) ast.Node {
	if reg.Lit != nil {
		return reg.Lit.Body
	}
	if d := res.Decl(reg.Func); d != nil {
		return d.Body
	}
	return nil
}

// handlerChains are the retry layers a call of the handler runs: from its
// summary for a named function (the package's own or a fact), from its
// body for a literal.
func (c *checker) handlerChains(reg infra.Registration, body ast.Node) []retrymodel.Chain {
	if reg.Func != nil {
		if ff := c.res.Func(reg.Func); ff != nil {
			return ff.Chains
		}
		return nil
	}
	var out []retrymodel.Chain
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if l := c.res.LayerOf(n); l != nil {
			head := c.info(l)
			out = append(out, retrymodel.Chain{Layers: []retrymodel.LayerInfo{head}})
			for _, ch := range c.res.Inner(l) {
				out = append(out, ch.Under(head))
			}
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			fn := c.res.Callee(call)
			if ff := c.res.Func(fn); ff != nil {
				for _, ch := range ff.Chains {
					ch.Via = append([]string{retrymodel.FuncName(fn)}, ch.Via...)
					out = append(out, ch)
				}
			}
		}
		return true
	})
	return out
}

// reportRoute: the route's attempts times the layers the handler reaches.
func (c *checker) reportRoute(reg infra.Registration, rt *infra.Route, ch retrymodel.Chain) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s retries a request %s after the handler has run (%s) around %s", routeName(rt), retryTimes(rt), conditions(rt), c.handlerName(reg))
	for i, li := range ch.Layers {
		if i == 0 {
			b.WriteString(", which reaches ")
		} else {
			b.WriteString(", which wraps ")
		}
		var via []string
		if i == 0 {
			via = ch.Via
		}
		b.WriteString(c.describe(li, via))
	}
	factors := []string{fmt.Sprintf("%s %d attempts", proxyWord(rt), rt.Retry.Attempts())}
	if !rt.Retry.Known {
		factors = []string{proxyWord(rt) + " attempts unknown"}
	}
	p, known := int64(rt.Retry.Attempts()), rt.Retry.Known
	for _, li := range ch.Layers {
		switch {
		case li.AttemptsKnown:
			p *= li.Attempts
			factors = append(factors, fmt.Sprintf("%s %d", layerWord(li), li.Attempts))
		case li.Unbounded:
			known = false
			factors = append(factors, layerWord(li)+" unbounded")
		default:
			known = false
			factors = append(factors, layerWord(li)+" unknown")
		}
	}
	b.WriteString(": " + strings.Join(factors, " × "))
	if known {
		fmt.Fprintf(&b, " = up to %d requests per client request", p)
	} else {
		b.WriteString(" requests per client request")
	}
	fmt.Fprintf(&b, "; pick one layer: %s on this path, or the handler's own retries", retriesOff(rt))
	c.pass.Report(analysis.Diagnostic{Pos: reg.Call.Pos(), End: reg.Call.Lparen, Message: b.String()})
}

// reportWrite: a retried request runs the handler's write again.
func (c *checker) reportWrite(reg infra.Registration, rt *infra.Route, w *effects.Write) {
	method := reg.Method
	if method == "" {
		method = "any method"
	}
	msg := fmt.Sprintf("%s retries a request %s after the handler has run (%s), and %s (%s) writes (%s at %s, a %s) with no Idempotency-Key: a request retried after the write ran writes again; %s on this path, or make the write idempotent (a key the handler checks)",
		routeName(rt), retryTimes(rt), conditions(rt), c.handlerName(reg), method, w.Callee, retrymodel.Shorten(c.pass.Fset, w.Call.Pos()), w.Kind, retriesOff(rt))
	c.pass.Report(analysis.Diagnostic{Pos: reg.Call.Pos(), End: reg.Call.Lparen, Category: "repeated-write", Message: msg})
}

func (c *checker) handlerName(reg infra.Registration) string {
	if reg.Func != nil {
		return "handler " + retrymodel.FuncName(reg.Func)
	}
	return "the handler at " + retrymodel.Shorten(c.pass.Fset, reg.Lit.Pos())
}

// routeName: "istio VirtualService llm /v1/complete (deploy/mesh.yaml:14)".
func routeName(rt *infra.Route) string {
	if rt.Retry.Default {
		return fmt.Sprintf("%s (%s; %s)", rt.Label(), rt.Pos, rt.Retry.Source)
	}
	return fmt.Sprintf("%s (retries at %s)", rt.Label(), rt.Retry.Pos)
}

func retryTimes(rt *infra.Route) string {
	if !rt.Retry.Known && rt.Proxy == "linkerd" {
		return "as often as its retry budget allows (" + rt.Retry.Source + ")"
	}
	if !rt.Retry.Known {
		return "an implementation-specific number of times"
	}
	if rt.Retry.Retries == 1 {
		return "once more"
	}
	return fmt.Sprintf("up to %d more times", rt.Retry.Retries)
}

func conditions(rt *infra.Route) string {
	conds, _ := rt.RetriesAfterStart()
	s := "on " + strings.Join(conds, ", ")
	if len(rt.Retry.Codes) > 0 {
		var cs []string
		for _, k := range rt.Retry.Codes {
			cs = append(cs, fmt.Sprint(k))
		}
		s += " (status " + strings.Join(cs, ", ") + ")"
	}
	return s
}

func proxyWord(rt *infra.Route) string {
	switch rt.Proxy {
	case "istio":
		return "mesh"
	case "gateway-api":
		return "gateway"
	case "ingress-nginx":
		return "ingress"
	case "linkerd":
		return "mesh"
	}
	return "proxy"
}

func layerWord(li retrymodel.LayerInfo) string {
	switch li.Kind {
	case retrymodel.Loop:
		return "own loop"
	case retrymodel.SDK:
		return "SDK"
	case retrymodel.Client:
		return "client"
	}
	return li.Name
}

// retriesOff says how the route's retries are turned off.
func retriesOff(rt *infra.Route) string {
	switch rt.Proxy {
	case "istio":
		return "turn the route's retries off (retries: {attempts: 0})"
	case "envoy":
		return "turn the route's retries off (num_retries: 0, or no retry_policy)"
	case "gateway-api":
		return "turn the route's retries off (retry: {attempts: 0})"
	case "ingress-nginx":
		return "turn the route's retries off (proxy-next-upstream: \"off\")"
	case "linkerd":
		return "turn the route's retries off (isRetryable: false)"
	}
	return "turn the route's retries off"
}

// answersWith reports whether body uses one of codes as a constant (the
// handler can answer with that status: http.StatusServiceUnavailable).
func answersWith(info *types.Info, body ast.Node, codes []int) bool {
	if body == nil || len(codes) == 0 {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if found || !ok {
			return !found
		}
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Int {
			if k, exact := constant.Int64Val(tv.Value); exact {
				for _, c := range codes {
					if int64(c) == k {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// mentionsIdempotency reports whether body uses a constant string naming
// an idempotency key (the Idempotency-Key header, a field of that name).
func mentionsIdempotency(info *types.Info, body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if found || !ok {
			return !found
		}
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			s := strings.ToLower(constant.StringVal(tv.Value))
			if strings.Contains(s, "idempotency") || strings.Contains(s, "idempotent") {
				found = true
			}
		}
		return !found
	})
	return found
}
