package expiredctx_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/expiredctx"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestEscape checks the third rule (escape.go): closures that run after
// their function's cancel, beside the lookalikes that are fine.
func TestEscape(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(own(t), dir, expiredctx.Analyzer, "./escape")
}
