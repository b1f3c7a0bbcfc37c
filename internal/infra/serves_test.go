package infra

import (
	"os"
	"path/filepath"
	"testing"
)

// write lays out files under a temporary module root.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const edgeEnvoy = `static_resources:
  listeners:
  - filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          route_config:
            virtual_hosts:
            - name: backend
              domains: ["*"]
              routes:
              - match:
                  prefix: "/v1/complete"
                route:
                  cluster: edge
                  retry_policy:
                    retry_on: 5xx
                    num_retries: 2
              - match:
                  prefix: "/v1/admin"
                route:
                  cluster: admin
                  retry_policy:
                    retry_on: 5xx
                    num_retries: 2
`

// TestServedByMain: a route's destination names the binary that serves
// it: the cluster "edge" is cmd/edge, whose main imports internal/api
// through internal/server, so the route applies to internal/api's
// handlers; "admin" is cmd/admin, whose main does not reach
// internal/api, so its route is another service's. Before, the
// directory cmd/edge was taken for another service than internal/api
// and both routes were dropped.
func TestServedByMain(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"go.mod":                    "module example.com/svc\n\ngo 1.26\n",
		"cmd/edge/main.go":          "package main\n\nimport _ \"example.com/svc/internal/server\"\n\nfunc main() {}\n",
		"cmd/admin/main.go":         "package main\n\nimport _ \"example.com/svc/internal/admin\"\n\nfunc main() {}\n",
		"internal/server/server.go": "package server\n\nimport _ \"example.com/svc/internal/api\"\n",
		"internal/api/api.go":       "package api\n",
		"internal/admin/admin.go":   "package admin\n",
		"deploy/envoy.yaml":         edgeEnvoy,
	})
	for _, mode := range []string{"disk", "bundle"} {
		var c *Config
		if mode == "disk" {
			c = Load(root)
		} else {
			c = Collect(root).Config()
		}
		api := filepath.Join(root, "internal", "api")
		if got := c.For("POST /v1/complete", api); len(got) != 1 || got[0].Dest[0] != "edge" {
			t.Errorf("%s: For(/v1/complete, internal/api) = %v, want the edge route", mode, got)
		}
		if got := c.For("GET /v1/admin/users", api); len(got) != 0 {
			t.Errorf("%s: For(/v1/admin/users, internal/api) = %v, want none: admin is another binary", mode, got)
		}
		if got := c.For("GET /v1/admin/users", filepath.Join(root, "internal", "admin")); len(got) != 1 || got[0].Dest[0] != "admin" {
			t.Errorf("%s: For(/v1/admin/users, internal/admin) = %v, want the admin route", mode, got)
		}
	}
}

// TestServedByNameWithoutMain: a directory named like the destination
// that holds no main (a library called edge) leaves the name rule as it
// was: the route is another service's for a package outside it.
func TestServedByNameWithoutMain(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"go.mod":              "module example.com/svc\n\ngo 1.26\n",
		"pkg/edge/edge.go":    "package edge\n",
		"internal/api/api.go": "package api\n",
		"deploy/envoy.yaml":   edgeEnvoy,
	})
	c := Load(root)
	if got := c.For("POST /v1/complete", filepath.Join(root, "internal", "api")); len(got) != 0 {
		t.Errorf("For(/v1/complete, internal/api) = %v, want none (edge is a directory of another part)", got)
	}
	if got := c.For("POST /v1/complete", filepath.Join(root, "pkg", "edge")); len(got) != 1 {
		t.Errorf("For(/v1/complete, pkg/edge) = %v, want the edge route", got)
	}
}
