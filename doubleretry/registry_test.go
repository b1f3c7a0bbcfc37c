package doubleretry_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestRegistry: a retry of an interface whose implementation is looked up
// in a registry and registered by a package the caller links in (issue
// 11, class 7), beside a registered implementation that does not retry.
func TestRegistry(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./registry/agent")
}
