package expiredctx_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/expiredctx"
	"github.com/retryvet/retryvet/internal/testmod"
)

// The testdata packages; internal/effects asserts its write facts on the
// same files (its effects_test.go lists them too, with ./escape).
var (
	fixPkgs = []string{"./a", "./deferred", "./jobwrapper", "./worker", "./gormjob", "./perattempt", "./bounded", "./runner", "./unchecked"}
	pkgs    = []string{"./store", "./quiet", "./fallback", "./rpc", "./cancelled", "./etcdop", "./etcdrotate", "./cleanup", "./testdeadline", "./riverjob", "./lambdafn", "./xcontext", "./detached"}
)

func TestExpiredctx(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(own(t), dir, expiredctx.Analyzer, fixPkgs...)
	analysistest.Run(own(t), dir, expiredctx.Analyzer, pkgs...)
}

// own meets this analyzer's expectations: the write facts (WritesFact,
// OpWritesFact) are internal/effects' to meet; expiredctx's own fact is
// the RunnerFact ("runs ...").
func own(t *testing.T) testmod.Shared {
	return testmod.Shared{T: t, Skip: func(kind, pattern string) bool {
		return kind == "fact" && !strings.HasPrefix(pattern, "runs ")
	}}
}
