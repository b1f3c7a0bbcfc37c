package infra

import "time"

// The defaults a proxy applies where a manifest writes nothing, each with
// the documentation and version it is taken from.

// Envoy (v1.5 through v1.3x, unchanged): RouteAction.timeout "If not
// specified, the default is 15s"; 0 disables it. It spans the whole request,
// retries included.
// https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto#envoy-v3-api-field-config-route-v3-routeaction-timeout
const envoyRouteTimeout = 15 * time.Second

const envoyRouteTimeoutSource = "Envoy default 15s (RouteAction.timeout, Envoy v1.x)"

// Envoy RetryPolicy.num_retries: "If a retry policy is in place, Envoy will
// default to retrying one time" (router filter docs since v1.5; v3
// RetryPolicy.num_retries defaults to 1). Without a retry policy Envoy does
// not retry.
const envoyNumRetries = 1

// Istio (1.x): VirtualService HTTPRoute.timeout "Timeout for HTTP requests,
// default is disabled" (Istio sets Envoy's route timeout to 0, overriding
// Envoy's 15s). https://istio.io/latest/docs/reference/config/networking/virtual-service/#HTTPRoute

// Istio (1.x) mesh default retry policy, applied to a VirtualService route
// with no retries block and to traffic with no VirtualService (pilot's
// DefaultPolicy; meshConfig.defaultHttpRetryPolicy overrides it): 2 retries
// on connect-failure, refused-stream, unavailable, cancelled and
// retriable-status-codes with 503 retriable. An explicit retries block with
// no retryOn keeps this retryOn. attempts: 0 turns retries off.
// https://istio.io/latest/docs/concepts/traffic-management/#retries
const (
	istioDefaultAttempts = 2
	istioDefaultRetryOn  = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
	istioDefaultSource   = "Istio mesh default (2 retries, Istio 1.x)"
)

var istioDefaultCodes = []int{503}

// Gateway API (v1.0+ standard channel for timeouts, GEP-1742; retry GEP-1731,
// experimental since v1.2, standard since v1.7): an unspecified
// timeouts.request, timeouts.backendRequest or retry.attempts is
// "implementation-specific", so nothing is assumed; "0s" disables a timeout.
// https://gateway-api.sigs.k8s.io/reference/spec/#httproutetimeouts
// https://gateway-api.sigs.k8s.io/geps/gep-1731/

// ingress-nginx (controller v1.x ConfigMap defaults, unchanged since 0.x):
// proxy-read-timeout 60 (seconds, between two successive reads of the
// response, so for a handler that writes nothing until it is done it is a
// total), proxy-next-upstream "error timeout", proxy-next-upstream-tries 3
// (tries in all, the first included; 0 means no limit). nginx (>= 1.9.13)
// does not pass a non-idempotent request (POST, LOCK, PATCH) to the next
// server unless proxy-next-upstream lists non_idempotent.
// https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/configmap/
// https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_next_upstream
const (
	nginxReadTimeout       = 60 * time.Second
	nginxReadTimeoutSource = "ingress-nginx default 60s (proxy-read-timeout, controller v1.x)"
	nginxNextUpstream      = "error timeout"
	nginxNextUpstreamTries = 3
	nginxRetrySource       = "ingress-nginx default (proxy-next-upstream \"error timeout\", 3 tries, controller v1.x)"
)

// Linkerd (2.x ServiceProfile, linkerd.io/v1alpha2; superseded by Gateway
// API types since 2.16 but still read): a route's timeout "If
// unspecified, the default timeout is 10 seconds" (it includes retries);
// isRetryable routes are retried on failure (5xx unless responseClasses
// say otherwise) within the retry budget, retryRatio 0.2,
// minRetriesPerSecond 10, ttl 10s by default: a share of the traffic, not
// a count per request.
// https://linkerd.io/2.12/tasks/configuring-timeouts/
// https://linkerd.io/2/reference/service-profiles/
const (
	linkerdRouteTimeout       = 10 * time.Second
	linkerdRouteTimeoutSource = "Linkerd default 10s (ServiceProfile route timeout, Linkerd 2.x)"
	linkerdBudgetSource       = "Linkerd default retry budget (retryRatio 0.2, minRetriesPerSecond 10, ttl 10s, Linkerd 2.x)"
)
