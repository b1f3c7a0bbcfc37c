package infra

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Pos is a position in a manifest: the file relative to the module root
// (slash-separated), line and column (1-based).
type Pos struct {
	File      string
	Line, Col int
}

// String renders file:line, the way messages name a manifest position.
func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// A Timeout is the deadline a proxy puts on a request.
type Timeout struct {
	D time.Duration
	// Set: a timeout applies. False when none is written and the proxy has
	// no default (Istio, Gateway API), or it is written as 0 (disabled).
	Set bool
	// Default: nothing is written; D is the proxy's default (Source says
	// which, with its version).
	Default bool
	Source  string
	Pos     Pos    // where it is written; the route itself for a default
	Field   string // "timeout", "per_try_timeout", "timeouts.request", ...
}

// Retry is what a proxy retries around a request.
type Retry struct {
	// Retries after the first attempt; 0 when the proxy does not retry.
	Retries int
	// Known is false when the count is not fixed by the manifest or a
	// documented default (Gateway API without attempts).
	Known bool
	// Default: nothing is written; the values are the proxy's defaults
	// (Source cites them).
	Default bool
	Source  string
	// On are the conditions, as the proxy spells them ("5xx", "reset",
	// "retriable-status-codes", "timeout", "http_502"); Codes the status
	// codes retried by a retriable-status-codes condition or Gateway API codes.
	On    []string
	Codes []int
	// IdempotentOnly: the proxy does not retry non-idempotent requests
	// (nginx without non_idempotent).
	IdempotentOnly bool
	PerTry         time.Duration
	PerTryPos      Pos
	Pos            Pos
}

// Attempts is the number of times one client request can reach the
// handler: the first attempt and the retries.
func (r Retry) Attempts() int { return 1 + r.Retries }

// Route is one path match of a proxy in front of the module's handlers.
type Route struct {
	Proxy string // "envoy", "istio", "gateway-api", "ingress-nginx"
	// Kind names the route in messages: "envoy route", "istio
	// VirtualService reviews", "HTTPRoute api", "ingress-nginx Ingress web".
	Kind  string
	Name  string   // the resource or virtual host name
	Hosts []string // domains, hosts, hostnames
	// Path is the path match; Exact says it matches only that path. An
	// empty Path with !Exact matches every path.
	Path  string
	Exact bool
	// Regex: the match is a regular expression the analysis does not
	// evaluate; the route covers no handler.
	Regex bool
	// PathRegex: a Linkerd pathRegex, matched against the whole path.
	PathRegex string
	// Method: the route matches only this method ("" any).
	Method string
	Dest   []string // destination hosts, clusters, backend services
	// Timeout is the request timeout; PerTry, in Retry, the timeout of
	// one attempt. Deadline returns the one a handler sees.
	Timeout Timeout
	Retry   Retry
	Pos     Pos // the route entry
}

// Label names the route the way a census row and a message do:
// "envoy route /v1/complete".
func (r *Route) Label() string {
	if r.PathRegex != "" {
		return r.Kind + " route " + strconv.Quote(r.Name)
	}
	path := r.Path
	if path == "" {
		path = "/"
	}
	return r.Kind + " " + path
}

// settings keys a route by what it does, not where it is written.
func (r *Route) settings() string {
	t, rt := r.Timeout, r.Retry
	return fmt.Sprint("settings", r.Kind, r.Path, r.Exact, r.Regex, r.PathRegex, r.Method, r.Hosts, r.Dest, t.D, t.Set, t.Default,
		rt.Retries, rt.Known, rt.Default, rt.On, rt.Codes, rt.IdempotentOnly, rt.PerTry)
}

// Deadline is the deadline a handler behind the route sees: the per-try
// timeout when there is one below the request timeout, else the request
// timeout. ok is false when no timeout applies.
func (r *Route) Deadline() (Timeout, bool) {
	t := r.Timeout
	if r.Retry.PerTry > 0 && (!t.Set || r.Retry.PerTry < t.D) {
		return Timeout{D: r.Retry.PerTry, Set: true, Pos: r.Retry.PerTryPos, Field: "per-try timeout"}, true
	}
	return t, t.Set
}

// Covers reports whether a request to a handler registered for pattern (a
// net/http pattern: "/v1/complete", "/v1/", "POST /v1/items/{id}",
// "example.com/x") goes through this route.
func (r *Route) Covers(pattern string) bool {
	if r.Regex {
		return false
	}
	method, path := SplitPattern(pattern)
	if r.Method != "" && method != "" && !hasMethod(method, r.Method) {
		return false
	}
	if r.PathRegex != "" {
		// A wildcard segment stands for some value: "x".
		p := wildcard.ReplaceAllString(path, "x")
		re, err := regexp.Compile("^(?:" + r.PathRegex + ")$")
		return err == nil && re.MatchString(p)
	}
	if i := strings.IndexByte(path, '{'); i >= 0 {
		path = path[:i] // a wildcard: what is fixed before it
	}
	if r.Exact {
		return path == r.Path
	}
	return pathPrefix(path, r.Path)
}

// pathPrefix: the proxies' prefix matches are on the raw string (Envoy,
// Istio); Gateway API and Ingress Prefix types match whole segments, which
// a string prefix over-approximates only for "/ab" against "/a".
func pathPrefix(path, prefix string) bool {
	return prefix == "" || strings.HasPrefix(path, prefix)
}

// hasMethod: the comma-separated list includes m.
func hasMethod(list, m string) bool {
	for _, x := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(x), m) {
			return true
		}
	}
	return false
}

var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// SplitPattern splits a net/http (Go 1.22) pattern into its method (""
// when none) and path, dropping a host.
func SplitPattern(pattern string) (method, path string) {
	pattern = strings.TrimSpace(pattern)
	if m, rest, ok := strings.Cut(pattern, " "); ok {
		method, pattern = m, strings.TrimSpace(rest)
	}
	if i := strings.IndexByte(pattern, '/'); i > 0 {
		pattern = pattern[i:] // host/path
	}
	return method, pattern
}

// RetriesAfterStart reports the conditions under which the proxy retries
// a request the handler has already started on (a response status, a
// reset, a timeout), as opposed to conditions that fire before the request
// reaches it (connect-failure, refused-stream). codesOnly is set when the
// only such conditions are specific status codes (Codes): they fire only if
// the handler answers with one of them.
func (r *Route) RetriesAfterStart() (conds []string, codesOnly bool) {
	if r.Retry.Retries == 0 && r.Retry.Known {
		return nil, false
	}
	codesOnly = true
	for _, c := range r.Retry.On {
		switch c {
		case "5xx", "gateway-error", "reset", "retriable-4xx", "retriable-headers", "timeout", "error", "invalid_header",
			"deadline-exceeded", "internal":
			conds = append(conds, c)
			codesOnly = false
		case "retriable-status-codes", "codes":
			conds = append(conds, c)
		default:
			if strings.HasPrefix(c, "http_") {
				conds = append(conds, c)
			}
		}
	}
	if len(conds) == 0 {
		return nil, false
	}
	return conds, codesOnly
}

// Conditions renders what the route retries on: "5xx, reset",
// "connect-failure, ..., retriable-status-codes (503)".
func (r *Route) Conditions() string {
	on := slices.Clone(r.Retry.On)
	if len(r.Retry.Codes) > 0 {
		var cs []string
		for _, c := range r.Retry.Codes {
			cs = append(cs, strconv.Itoa(c))
		}
		on = append(on, "status "+strings.Join(cs, ", "))
	}
	if len(on) == 0 {
		return "conditions implementation-specific"
	}
	return strings.Join(on, ", ")
}

// splitList splits a comma- or space-separated condition list.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
