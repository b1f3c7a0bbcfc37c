package values_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/deadlinecensus"
	"github.com/retryvet/retryvet/internal/values"
)

// The analyzer reads the same file: the p99, the field's production value
// and the handler's infrastructure deadline, each named as the file's in
// the message; a flag's default is named as a default.
func TestAnalyzerValues(t *testing.T) {
	dir, err := filepath.Abs("testdata/svc")
	if err != nil {
		t.Fatal(err)
	}
	values.Reset()
	values.SetFile(filepath.Join(dir, values.FileName))
	t.Cleanup(values.Reset)
	analysistest.Run(t, dir, deadlinecensus.Analyzer, "./...")
}
