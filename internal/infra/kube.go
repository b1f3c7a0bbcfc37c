package infra

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// kube reads a Kubernetes resource: an Istio VirtualService, a Gateway API
// HTTPRoute, an Ingress served by ingress-nginx. Other kinds are ignored;
// a List's items are read one by one.
func (f *fileCtx) kube(n *yaml.Node) {
	kind, api := str(get(n, "kind")), str(get(n, "apiVersion"))
	name := str(path(n, "metadata", "name"))
	switch {
	case kind == "List":
		for _, it := range items(get(n, "items")) {
			f.kube(it)
		}
	case kind == "VirtualService" && strings.HasPrefix(api, "networking.istio.io/"):
		f.istio(n, name)
	case kind == "HTTPRoute" && strings.HasPrefix(api, "gateway.networking.k8s.io/"):
		f.httpRoute(n, name)
	case kind == "Ingress" && isNginxIngress(n):
		f.nginx(n, name)
	case kind == "ServiceProfile" && strings.HasPrefix(api, "linkerd.io/"):
		f.linkerd(n, name)
	}
}

// linkerd reads a ServiceProfile: its routes' pathRegex and method
// conditions, timeout (10s by default) and isRetryable (retries bounded by
// the profile's retry budget, not by a count).
func (f *fileCtx) linkerd(n *yaml.Node, name string) {
	spec := get(n, "spec")
	budget := linkerdBudgetSource
	if b := get(spec, "retryBudget"); b != nil {
		budget = fmt.Sprintf("retry budget retryRatio %s, minRetriesPerSecond %s, ttl %s (%s)",
			orDefault(str(get(b, "retryRatio")), "0.2"), orDefault(str(get(b, "minRetriesPerSecond")), "10"), orDefault(str(get(b, "ttl")), "10s"), f.keyPos(spec, "retryBudget"))
	}
	for _, r := range items(get(spec, "routes")) {
		rt := &Route{Proxy: "linkerd", Kind: "linkerd ServiceProfile " + name, Name: str(get(r, "name")), Dest: []string{name}, Pos: f.pos(r)}
		cond := get(r, "condition")
		rt.Method = str(get(cond, "method"))
		switch {
		case get(cond, "pathRegex") != nil:
			rt.PathRegex = str(get(cond, "pathRegex"))
			if _, err := regexp.Compile(rt.PathRegex); err != nil {
				f.errorf(get(cond, "pathRegex"), "pathRegex %q: %v; the route covers no handler", rt.PathRegex, err)
				rt.Regex = true
			}
		case rt.Method != "":
			// a method alone: every path
		default:
			rt.Regex = true // all / any / not: not evaluated
		}
		if t := get(r, "timeout"); t != nil {
			if d, ok := f.duration(t, "timeout"); ok {
				rt.Timeout = Timeout{D: d, Set: d > 0, Pos: f.pos(t), Field: "timeout"}
			}
		} else {
			rt.Timeout = Timeout{D: linkerdRouteTimeout, Set: true, Default: true, Source: linkerdRouteTimeoutSource, Pos: rt.Pos, Field: "timeout"}
		}
		rt.Retry = Retry{Known: true, Pos: rt.Pos}
		if str(get(r, "isRetryable")) == "true" {
			// Failures are 5xx unless responseClasses say otherwise.
			rt.Retry = Retry{Known: false, On: []string{"5xx"}, Source: budget, Pos: f.keyPos(r, "isRetryable")}
		}
		f.routes = append(f.routes, rt)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (f *fileCtx) istio(n *yaml.Node, name string) {
	spec := get(n, "spec")
	var hosts []string
	for _, h := range items(get(spec, "hosts")) {
		hosts = append(hosts, str(h))
	}
	for _, h := range items(get(spec, "http")) {
		var dests []string
		for _, rd := range items(get(h, "route")) {
			dests = append(dests, str(path(rd, "destination", "host")))
		}
		base := Route{Proxy: "istio", Kind: "istio VirtualService " + name, Name: name, Hosts: hosts, Dest: dests, Pos: f.pos(h)}
		// Timeout: disabled unless written (Istio overrides Envoy's 15s).
		if t := get(h, "timeout"); t != nil {
			if d, ok := f.duration(t, "timeout"); ok {
				base.Timeout = Timeout{D: d, Set: d > 0, Pos: f.pos(t), Field: "timeout"}
			}
		}
		base.Retry = f.istioRetry(h, base.Pos)
		matches := items(get(h, "match"))
		if len(matches) == 0 {
			rt := base
			f.routes = append(f.routes, &rt)
			continue
		}
		for _, m := range matches {
			rt := base
			rt.Pos = f.pos(m)
			uri := get(m, "uri")
			switch {
			case uri == nil:
			case get(uri, "exact") != nil:
				rt.Path, rt.Exact = str(get(uri, "exact")), true
			case get(uri, "prefix") != nil:
				rt.Path = str(get(uri, "prefix"))
			default:
				rt.Regex = true
			}
			f.routes = append(f.routes, &rt)
		}
	}
}

func (f *fileCtx) istioRetry(h *yaml.Node, at Pos) Retry {
	rs := get(h, "retries")
	r := Retry{Known: true, Retries: istioDefaultAttempts, On: splitList(istioDefaultRetryOn), Codes: istioDefaultCodes, Pos: at}
	if rs == nil {
		r.Default, r.Source = true, istioDefaultSource
		return r
	}
	r.Pos = f.keyPos(h, "retries")
	if a := get(rs, "attempts"); a != nil {
		if k, ok := f.intField(a, "retries.attempts"); ok {
			r.Retries = k
		}
	} else {
		r.Source = istioDefaultSource + " attempts"
	}
	if on := str(get(rs, "retryOn")); on != "" {
		r.On, r.Codes = nil, nil
		for _, c := range splitList(on) {
			if k, err := strconv.Atoi(c); err == nil {
				r.Codes = append(r.Codes, k) // Istio lets retryOn list codes
				continue
			}
			r.On = append(r.On, c)
		}
		if len(r.Codes) > 0 && !contains(r.On, "retriable-status-codes") {
			r.On = append(r.On, "retriable-status-codes")
		}
	}
	if pt := get(rs, "perTryTimeout"); pt != nil {
		if d, ok := f.duration(pt, "retries.perTryTimeout"); ok {
			r.PerTry, r.PerTryPos = d, f.pos(pt)
		}
	}
	return r
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (f *fileCtx) httpRoute(n *yaml.Node, name string) {
	spec := get(n, "spec")
	var hosts []string
	for _, h := range items(get(spec, "hostnames")) {
		hosts = append(hosts, str(h))
	}
	for _, rule := range items(get(spec, "rules")) {
		var dests []string
		for _, b := range items(get(rule, "backendRefs")) {
			dests = append(dests, str(get(b, "name")))
		}
		base := Route{Proxy: "gateway-api", Kind: "HTTPRoute " + name, Name: name, Hosts: hosts, Dest: dests, Pos: f.pos(rule)}
		// Unwritten timeouts are implementation-specific: nothing assumed.
		to := get(rule, "timeouts")
		if t := get(to, "request"); t != nil {
			if d, ok := f.duration(t, "timeouts.request"); ok {
				base.Timeout = Timeout{D: d, Set: d > 0, Pos: f.pos(t), Field: "timeouts.request"}
			}
		}
		if t := get(to, "backendRequest"); t != nil {
			if d, ok := f.duration(t, "timeouts.backendRequest"); ok && d > 0 {
				base.Retry.PerTry, base.Retry.PerTryPos = d, f.pos(t)
			}
		}
		if rs := get(rule, "retry"); rs != nil {
			perTry, perTryPos := base.Retry.PerTry, base.Retry.PerTryPos
			r := Retry{Pos: f.keyPos(rule, "retry"), PerTry: perTry, PerTryPos: perTryPos}
			if a := get(rs, "attempts"); a != nil {
				if k, ok := f.intField(a, "retry.attempts"); ok {
					r.Retries, r.Known = k, true
				}
			}
			for _, c := range items(get(rs, "codes")) {
				if k, ok := f.intField(c, "retry.codes"); ok {
					r.Codes = append(r.Codes, k)
				}
			}
			if len(r.Codes) > 0 {
				r.On = []string{"retriable-status-codes"}
			}
			base.Retry = r
		} else {
			base.Retry.Known = true // no retry written: the route asks for none
		}
		matches := items(get(rule, "matches"))
		if len(matches) == 0 {
			rt := base // no matches: PathPrefix "/"
			f.routes = append(f.routes, &rt)
			continue
		}
		for _, m := range matches {
			rt := base
			rt.Pos = f.pos(m)
			p := get(m, "path")
			switch str(get(p, "type")) {
			case "Exact":
				rt.Path, rt.Exact = str(get(p, "value")), true
			case "RegularExpression":
				rt.Regex = true
			default: // PathPrefix, the default type
				rt.Path = str(get(p, "value"))
			}
			f.routes = append(f.routes, &rt)
		}
	}
}

const nginxAnn = "nginx.ingress.kubernetes.io/"

func isNginxIngress(n *yaml.Node) bool {
	if strings.Contains(str(path(n, "spec", "ingressClassName")), "nginx") {
		return true
	}
	ann := path(n, "metadata", "annotations")
	if strings.Contains(str(get(ann, "kubernetes.io/ingress.class")), "nginx") {
		return true
	}
	if ann != nil {
		for i := 0; i < len(ann.Content); i += 2 {
			if strings.HasPrefix(ann.Content[i].Value, nginxAnn) {
				return true
			}
		}
	}
	return false
}

func (f *fileCtx) nginx(n *yaml.Node, name string) {
	ann := path(n, "metadata", "annotations")
	var timeout Timeout
	if t := get(ann, nginxAnn+"proxy-read-timeout"); t != nil {
		if d, ok := f.nginxSeconds(t, "proxy-read-timeout"); ok {
			timeout = Timeout{D: d, Set: d > 0, Pos: f.pos(t), Field: "proxy-read-timeout"}
		}
	} else {
		timeout = Timeout{D: nginxReadTimeout, Set: true, Default: true, Source: nginxReadTimeoutSource, Field: "proxy-read-timeout"}
	}
	retry := Retry{Known: true, IdempotentOnly: true}
	next, tries := nginxNextUpstream, nginxNextUpstreamTries
	nu, nt := get(ann, nginxAnn+"proxy-next-upstream"), get(ann, nginxAnn+"proxy-next-upstream-tries")
	if nu != nil {
		next = str(nu)
		retry.Pos = f.pos(nu)
	}
	if nt != nil {
		if k, ok := f.intField(nt, "proxy-next-upstream-tries"); ok {
			tries = k
		}
		if nu == nil {
			retry.Pos = f.pos(nt)
		}
	}
	if nu == nil && nt == nil {
		retry.Default, retry.Source = true, nginxRetrySource
	}
	for _, c := range splitList(next) {
		switch {
		case c == "off":
			retry.On = nil
		case c == "non_idempotent":
			retry.IdempotentOnly = false
		case strings.HasPrefix(c, "http_"):
			if k, err := strconv.Atoi(strings.TrimPrefix(c, "http_")); err == nil {
				retry.Codes = append(retry.Codes, k)
			}
			retry.On = append(retry.On, c)
		default:
			retry.On = append(retry.On, c)
		}
	}
	switch {
	case len(retry.On) == 0:
		retry.Retries = 0
	case tries == 0:
		retry.Known = false // no limit: as many tries as there are servers
	default:
		retry.Retries = tries - 1
	}
	var defaultBackend []string
	if s := str(path(n, "spec", "defaultBackend", "service", "name")); s != "" {
		defaultBackend = []string{s}
	}
	added := false
	for _, rule := range items(path(n, "spec", "rules")) {
		host := str(get(rule, "host"))
		for _, p := range items(path(rule, "http", "paths")) {
			rt := &Route{Proxy: "ingress-nginx", Kind: "ingress-nginx Ingress " + name, Name: name, Pos: f.pos(p), Timeout: timeout, Retry: retry}
			if host != "" {
				rt.Hosts = []string{host}
			}
			rt.Path = str(get(p, "path"))
			if str(get(p, "pathType")) == "Exact" {
				rt.Exact = true
			}
			if s := str(path(p, "backend", "service", "name")); s != "" {
				rt.Dest = []string{s}
			}
			f.fixDefaults(rt)
			f.routes = append(f.routes, rt)
			added = true
		}
	}
	if !added && defaultBackend != nil {
		rt := &Route{Proxy: "ingress-nginx", Kind: "ingress-nginx Ingress " + name, Name: name, Pos: f.pos(n), Timeout: timeout, Retry: retry, Dest: defaultBackend}
		f.fixDefaults(rt)
		f.routes = append(f.routes, rt)
	}
}

// fixDefaults points defaults without a position of their own at the route.
func (f *fileCtx) fixDefaults(rt *Route) {
	if rt.Timeout.Default && rt.Timeout.Pos.File == "" {
		rt.Timeout.Pos = rt.Pos
	}
	if rt.Retry.Pos.File == "" {
		rt.Retry.Pos = rt.Pos
	}
}

// nginxSeconds reads an ingress-nginx timeout: a number of seconds ("60"),
// or a duration with a unit.
func (f *fileCtx) nginxSeconds(n *yaml.Node, field string) (time.Duration, bool) {
	v := strings.TrimSpace(n.Value)
	if k, err := strconv.Atoi(v); err == nil && k >= 0 {
		return time.Duration(k) * time.Second, true
	}
	return f.duration(n, field)
}
