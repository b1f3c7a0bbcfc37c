package plugin

import (
	"path/filepath"
	"testing"

	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/values"
)

// TestInputs: the plugin declares the values file and the manifests of
// the module golangci-lint runs in, which the analyzers no longer look
// for themselves.
func TestInputs(t *testing.T) {
	t.Cleanup(func() { values.Reset(); infra.Use(nil); collected.bundle = nil })
	t.Chdir(filepath.Join("..", "cmd", "retryvet", "testdata", "hermetic"))
	p, err := New(nil, "doubleretry")
	if err != nil {
		t.Fatal(err)
	}
	names(t, p)
	if name, text, ok := values.Declared(); !ok || name != ".retryvet.yml" || text == "" {
		t.Errorf("values file: declared %v as %q (%d bytes), want .retryvet.yml", ok, name, len(text))
	}
	if b := infra.DeclaredBundle(); b.Empty() || b.Files[0].Name != "deploy/envoy.yaml" {
		t.Errorf("manifests: %+v, want deploy/envoy.yaml", b)
	}
}
