package retrystatus_test

import (
	"path/filepath"
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

// TestModelCases runs the loops the retry model first missed (the status
// tested on the err == nil path through a switch, a set, a local copy or a
// combined condition); the model sees them now.
func TestModelCases(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./gaps")
}

// TestExample: one 5xx code is no enumeration, and Example functions are
// documentation; two codes in production code are reported.
func TestExample(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./example")
}

// TestNoClassifier: remote retries that retry every failure, beside the
// ones that read the error or the status first.
func TestNoClassifier(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./noclass")
}

// TestStopsRetrying: classifiers that stop a client or SDK retrying 429
// and 5xx, beside ones that keep its default.
func TestStopsRetrying(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./stops")
}

// TestStops429: retries that give up on 429 while they retry 5xx, through
// a classifier of another package and in the loop, beside ones that retry
// both, read the error's kind first, or retry only connection errors.
func TestStops429(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./ratelimit")
}

// TestQuota: an OpenAI retry whose classifier returns (retry, delay, err)
// and retries every 429.
func TestQuota(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./quota")
}

// TestReissue: the classifier of a Bubble Tea retry (an error handler
// answering with the request again) whose default re-issues every code it
// does not list, beside one that gives up on them.
func TestReissue(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./reissue")
}
