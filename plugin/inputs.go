package plugin

import (
	"sync"

	"github.com/retryvet/retryvet/internal/infra"
)

// The analyzers read no file (internal/inputs): like the other drivers,
// the plugin declares the values file (read by New) and the manifests of
// the module golangci-lint runs in. The manifests are collected once per
// module root: each per-analyzer plugin asks, and collecting walks the
// module.
var collected struct {
	sync.Mutex
	root   string
	bundle *infra.Bundle
}

// manifests is infra.Collect(root), cached; nil outside a module.
func manifests(root string) *infra.Bundle {
	if root == "" {
		return nil
	}
	collected.Lock()
	defer collected.Unlock()
	if collected.bundle == nil || collected.root != root {
		collected.root, collected.bundle = root, infra.Collect(root)
	}
	return collected.bundle
}
