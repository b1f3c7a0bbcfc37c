package effects_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestWritesFacts checks the write facts asserted in expiredctx's testdata,
// where each write sits next to the finding it causes; the diagnostics
// there are expiredctx's to meet, and so are its RunnerFacts ("runs ...").
func TestWritesFacts(t *testing.T) {
	const testdata = "../../analyzers/expiredctx/testdata"
	testmod.Download(t, testdata)
	dir, err := filepath.Abs(testdata)
	if err != nil {
		t.Fatal(err)
	}
	facts := testmod.Shared{T: t, Skip: func(kind, pattern string) bool {
		return kind == "diagnostic" || strings.HasPrefix(pattern, "runs ")
	}}
	analysistest.Run(facts, dir, effects.Analyzer,
		"./a", "./deferred", "./jobwrapper", "./worker", "./gormjob", "./perattempt", "./bounded", "./runner", "./unchecked",
		"./store", "./quiet", "./fallback", "./rpc", "./cancelled", "./etcdop", "./etcdrotate", "./cleanup", "./escape")
}

// TestAddsFacts checks which writes add a record (adds.go) on doubleretry's
// repeated-write testdata; the diagnostics there are doubleretry's.
func TestAddsFacts(t *testing.T) {
	const testdata = "../../doubleretry/testdata"
	testmod.Download(t, testdata)
	dir, err := filepath.Abs(testdata)
	if err != nil {
		t.Fatal(err)
	}
	facts := testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "diagnostic" }}
	analysistest.Run(facts, dir, effects.Analyzer, "./repeated")
}
