package infra

import (
	"gopkg.in/yaml.v3"
)

// envoy reads every RouteConfiguration in a document: static bootstrap
// (static_resources.listeners[].filter_chains[].filters[].typed_config.route_config)
// or a route configuration file of its own (virtual_hosts at the top). Any
// mapping with a virtual_hosts sequence is one.
func (f *fileCtx) envoy(n *yaml.Node) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		if vhs := get(n, "virtual_hosts"); vhs != nil && vhs.Kind == yaml.SequenceNode {
			for _, vh := range items(vhs) {
				f.envoyVirtualHost(vh)
			}
			return
		}
		for i := 1; i < len(n.Content); i += 2 {
			f.envoy(n.Content[i])
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			f.envoy(c)
		}
	}
}

func (f *fileCtx) envoyVirtualHost(vh *yaml.Node) {
	name := str(get(vh, "name"))
	var domains []string
	for _, d := range items(get(vh, "domains")) {
		domains = append(domains, str(d))
	}
	vhRetry := get(vh, "retry_policy")
	for _, r := range items(get(vh, "routes")) {
		action := get(r, "route")
		if action == nil {
			continue // direct_response, redirect: nothing is proxied
		}
		rt := &Route{Proxy: "envoy", Kind: "envoy route", Name: name, Hosts: domains, Pos: f.pos(r)}
		m := get(r, "match")
		switch {
		case get(m, "path") != nil:
			rt.Path, rt.Exact = str(get(m, "path")), true
		case get(m, "prefix") != nil:
			rt.Path = str(get(m, "prefix"))
		case get(m, "path_separated_prefix") != nil:
			rt.Path = str(get(m, "path_separated_prefix"))
		default:
			rt.Regex = true // safe_regex, connect_matcher, path_match_policy
		}
		if c := str(get(action, "cluster")); c != "" {
			rt.Dest = append(rt.Dest, c)
		}
		for _, wc := range items(path(action, "weighted_clusters", "clusters")) {
			rt.Dest = append(rt.Dest, str(get(wc, "name")))
		}
		if t := get(action, "timeout"); t != nil {
			if d, ok := f.duration(t, "route timeout"); ok {
				rt.Timeout = Timeout{D: d, Set: d > 0, Pos: f.pos(t), Field: "timeout"}
			}
		} else {
			rt.Timeout = Timeout{D: envoyRouteTimeout, Set: true, Default: true, Source: envoyRouteTimeoutSource, Pos: rt.Pos, Field: "timeout"}
		}
		rp, rpPos := get(action, "retry_policy"), f.keyPos(action, "retry_policy")
		if rp == nil {
			rp, rpPos = vhRetry, f.keyPos(vh, "retry_policy") // the virtual host's policy applies to routes without one
		}
		if rp != nil {
			f.envoyRetry(rt, rp, rpPos)
		} else {
			rt.Retry = Retry{Known: true} // Envoy retries nothing without a policy
		}
		f.routes = append(f.routes, rt)
	}
}

func (f *fileCtx) envoyRetry(rt *Route, rp *yaml.Node, at Pos) {
	r := Retry{Known: true, Retries: envoyNumRetries, Pos: at}
	if n := get(rp, "num_retries"); n != nil {
		if k, ok := f.intField(n, "num_retries"); ok {
			r.Retries = k
		}
	} else {
		r.Source = "Envoy default num_retries 1 (RetryPolicy, Envoy v1.x)"
	}
	r.On = splitList(str(get(rp, "retry_on")))
	for _, c := range items(get(rp, "retriable_status_codes")) {
		if k, ok := f.intField(c, "retriable_status_codes"); ok {
			r.Codes = append(r.Codes, k)
		}
	}
	if pt := get(rp, "per_try_timeout"); pt != nil {
		if d, ok := f.duration(pt, "per_try_timeout"); ok {
			r.PerTry, r.PerTryPos = d, f.pos(pt)
		}
	}
	if len(r.On) == 0 {
		r.Retries = 0 // no retry_on: no condition can trigger a retry
	}
	rt.Retry = r
}
