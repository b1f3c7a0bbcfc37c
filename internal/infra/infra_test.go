package infra

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T) *Config {
	t.Helper()
	return Load("testdata")
}

func find(t *testing.T, c *Config, kind, path string) *Route {
	t.Helper()
	for _, r := range c.Routes {
		if r.Kind == kind && r.Path == path {
			return r
		}
	}
	var have []string
	for _, r := range c.Routes {
		have = append(have, r.Kind+" "+r.Path)
	}
	t.Fatalf("no %s %q; have %v", kind, path, have)
	return nil
}

func TestEnvoy(t *testing.T) {
	c := load(t)
	r := find(t, c, "envoy route", "/v1/complete")
	if !r.Timeout.Set || !r.Timeout.Default || r.Timeout.D != 15*time.Second {
		t.Errorf("default timeout: %+v", r.Timeout)
	}
	if got := r.Pos.String(); got != "deploy/envoy.yaml:25" {
		t.Errorf("route at %s", got)
	}
	// The virtual host's retry policy applies: 2 retries on 5xx.
	if r.Retry.Retries != 2 || r.Retry.Attempts() != 3 || r.Conditions() != "5xx" || r.Retry.Pos.String() != "deploy/envoy.yaml:21" {
		t.Errorf("retry: %+v", r.Retry)
	}
	if conds, codesOnly := r.RetriesAfterStart(); len(conds) != 1 || codesOnly {
		t.Errorf("after start: %v %v", conds, codesOnly)
	}
	h := find(t, c, "envoy route", "/v1/health")
	if h.Timeout.Set || !h.Exact {
		t.Errorf("timeout 0s disables: %+v", h.Timeout)
	}
	v1 := find(t, c, "envoy route", "/v1/")
	d, ok := v1.Deadline()
	if !ok || d.D != 30*time.Second || d.Pos.String() != "deploy/envoy.yaml:41" {
		t.Errorf("per-try deadline: %+v", d)
	}
	// num_retries unwritten: Envoy's default 1; connect-failure fires before the handler runs.
	if v1.Retry.Retries != 1 || !strings.Contains(v1.Retry.Source, "default") {
		t.Errorf("default num_retries: %+v", v1.Retry)
	}
	if conds, _ := v1.RetriesAfterStart(); len(conds) != 0 {
		t.Errorf("connect-failure is before the handler: %v", conds)
	}
	rx := find(t, c, "envoy route", "")
	if !rx.Regex || rx.Covers("/v2/x") {
		t.Errorf("a regex covers nothing: %+v", rx)
	}
}

func TestIstio(t *testing.T) {
	c := load(t)
	r := find(t, c, "istio VirtualService llm", "/v1/complete")
	if r.Retry.Retries != 3 || r.Retry.PerTry != 30*time.Second || r.Timeout.D != 90*time.Second {
		t.Errorf("explicit: %+v %+v", r.Retry, r.Timeout)
	}
	if d, _ := r.Deadline(); d.D != 30*time.Second {
		t.Errorf("deadline is the per-try timeout: %+v", d)
	}
	off := find(t, c, "istio VirtualService llm", "/v1/embed")
	if off.Retry.Retries != 0 || off.Timeout.Set {
		t.Errorf("attempts 0, no timeout (Istio disables it): %+v", off)
	}
	def := find(t, c, "istio VirtualService llm", "")
	if !def.Retry.Default || def.Retry.Retries != 2 || def.Conditions() != "connect-failure, refused-stream, unavailable, cancelled, retriable-status-codes, status 503" {
		t.Errorf("mesh default: %+v %q", def.Retry, def.Conditions())
	}
	if conds, codesOnly := def.RetriesAfterStart(); !codesOnly || len(conds) != 1 {
		t.Errorf("the mesh default retries a started request only on 503: %v %v", conds, codesOnly)
	}
	if !def.Covers("POST /v1/anything") {
		t.Error("a route without a match covers every path")
	}
}

func TestGatewayAndNginx(t *testing.T) {
	c := load(t)
	g := find(t, c, "HTTPRoute api", "/v1")
	if d, _ := g.Deadline(); d.D != 5*time.Second || g.Retry.Retries != 2 || g.Conditions() != "retriable-status-codes, status 500, 503" {
		t.Errorf("HTTPRoute: %+v %+v", g.Timeout, g.Retry)
	}
	n := find(t, c, "ingress-nginx Ingress web", "/")
	if n.Timeout.D != 30*time.Second || n.Timeout.Default {
		t.Errorf("nginx timeout: %+v", n.Timeout)
	}
	if !n.Retry.Default || n.Retry.Retries != 2 || !n.Retry.IdempotentOnly || n.Conditions() != "error, timeout" {
		t.Errorf("nginx default retries: %+v", n.Retry)
	}
}

func TestProblems(t *testing.T) {
	c := load(t)
	var errs, skipped []string
	for _, p := range c.Errors {
		errs = append(errs, p.String())
	}
	for _, p := range c.Skipped {
		skipped = append(skipped, p.String())
	}
	want := []string{
		"deploy/bad.yaml:20: malformed YAML document: mapping values are not allowed in this context; its routes are not read (the other documents of the file are)",
		`deploy/bad.yaml:28: timeout "five seconds" is not a duration; ignored`,
	}
	if fmt.Sprint(errs) != fmt.Sprint(want) {
		t.Errorf("errors:\n%s\nwant\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	// The documents around the malformed one are read.
	find(t, c, "istio VirtualService good", "")
	find(t, c, "istio VirtualService badvalue", "")
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "charts/llm/templates/virtualservice.yaml:4: template, skipped") {
		t.Errorf("skipped: %v", skipped)
	}
}

func TestCovers(t *testing.T) {
	r := &Route{Path: "/v1/complete"}
	for pattern, want := range map[string]bool{
		"/v1/complete":              true,
		"POST /v1/complete":         true,
		"example.com/v1/complete":   true,
		"/v1/complete/{id}":         true,
		"/v1/completions":           false,
		"/v1/":                      false,
		"GET /v2/complete":          false,
		"POST /v1/complete/{id...}": true,
	} {
		if got := r.Covers(pattern); got != want {
			t.Errorf("Covers(%q) = %v", pattern, got)
		}
	}
	if m, p := SplitPattern("POST example.com/v1/x"); m != "POST" || p != "/v1/x" {
		t.Errorf("SplitPattern: %q %q", m, p)
	}
}

func TestFor(t *testing.T) {
	c := load(t)
	var got []string
	for _, r := range c.For("POST /v1/complete", "testdata/llm") {
		got = append(got, r.Label()+" "+r.Pos.String())
	}
	// release/bundle.yaml repeats deploy/mesh.yaml's VirtualService: one
	// route deployed one way or another, listed once. The Ingress routes
	// to "web", not to the package's service "llm" that the others name.
	want := []string{
		"envoy route /v1/complete deploy/envoy.yaml:25",
		"istio VirtualService llm /v1/complete deploy/mesh.yaml:10",
		"HTTPRoute api /v1 deploy/mesh.yaml:43",
		`linkerd ServiceProfile llm.prod.svc.cluster.local route "POST /v1/complete" deploy/profile.yaml:9`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("For:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLinkerd(t *testing.T) {
	c := load(t)
	var complete, models *Route
	for _, r := range c.Routes {
		switch r.Name {
		case "POST /v1/complete":
			complete = r
		case "GET /v1/models/{id}":
			models = r
		}
	}
	if complete == nil || models == nil {
		t.Fatalf("ServiceProfile routes not read")
	}
	if !complete.Timeout.Default || complete.Timeout.D != 10*time.Second || complete.Retry.Known || complete.Conditions() != "5xx" {
		t.Errorf("isRetryable, default timeout: %+v %+v", complete.Timeout, complete.Retry)
	}
	if !complete.Covers("POST /v1/complete") || complete.Covers("GET /v1/complete") || complete.Covers("POST /v1/complete/x") {
		t.Error("pathRegex and method match the whole path and the method")
	}
	if !models.Covers("GET /v1/models/{id}") || models.Covers("/v1/models/a/b") || models.Retry.Retries != 0 || models.Timeout.D != 300*time.Millisecond {
		t.Errorf("models: %+v", models)
	}
	if got := complete.Label(); got != `linkerd ServiceProfile llm.prod.svc.cluster.local route "POST /v1/complete"` {
		t.Errorf("label %s", got)
	}
}
