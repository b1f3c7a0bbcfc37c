package retrymodel_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/testmod"
)

// show reports every layer the model finds with its policy, and every
// fallback chain, so testdata can state what the model must extract.
var show = &analysis.Analyzer{
	Name:     "show",
	Doc:      "report the retry model's layers",
	Requires: []*analysis.Analyzer{retrymodel.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		res := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
		for _, l := range res.Layers {
			pass.Reportf(l.Pos, "%s: %s", l.Name, l.Policy.String())
		}
		for _, f := range res.Fallbacks {
			pass.Reportf(f.Pos, "fallback")
		}
		return nil, nil
	},
}

func TestLoops(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, show, "./loops")
}

// TestFacts checks the facts the model exports: a retry in package b is
// seen from package a, chains nest across the boundary, and sleep helpers
// and p99 directives travel too.
func TestFacts(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, retrymodel.Analyzer, "./facts/...")
}

// TestHelpers checks retry helpers: a function that retries an operation
// it is given is seen as a layer where the operation is handed to it,
// across packages.
func TestHelpers(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, retrymodel.Analyzer, "./helpers/...")
}
