// Package infra reads the retry and timeout settings of the proxies and
// meshes in front of a module's HTTP handlers from the manifests the
// repository ships: Envoy static route configuration, Istio VirtualService,
// Kubernetes Gateway API HTTPRoute and ingress-nginx Ingress annotations.
//
// A route is a path match with the timeout the proxy puts on a request and
// the retries it makes around it, each with the manifest position that sets
// it or, where nothing is written, the proxy's documented default (cited
// with its version in defaults.go). deadlinecensus puts a route's timeout on
// the request contexts of the handlers it serves; doubleretry multiplies its
// retries into the layers those handlers reach.
//
// Manifests are YAML files under the module root (multi-document files
// included); vendor/, node_modules/, testdata/, hidden directories and
// nested modules are not read. A Helm template (a file with `{{`) is
// reported as skipped, a malformed document as an error naming its file and
// line, and the rest is still read.
package infra
