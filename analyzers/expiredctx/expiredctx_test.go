package expiredctx_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/expiredctx"
	"github.com/retryvet/retryvet/internal/testmod"
)

func TestExpiredctx(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, expiredctx.Analyzer, "./a", "./deferred", "./jobwrapper", "./worker", "./gormjob", "./perattempt", "./bounded", "./runner", "./unchecked")
	analysistest.Run(t, dir, expiredctx.Analyzer, "./store", "./quiet", "./fallback", "./rpc", "./cancelled", "./etcdop", "./etcdrotate", "./cleanup")
}
