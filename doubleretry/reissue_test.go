package doubleretry_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestReissue: a Bubble Tea retry (Update issues the request again after a
// failure) around an SDK that retries by default, beside one whose SDK
// retries are off and a refresh tick that asks again after an answer.
func TestReissue(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./reissue")
}
