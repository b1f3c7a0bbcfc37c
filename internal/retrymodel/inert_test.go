package retrymodel_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestInertStd checks which standard-library packages the model skips:
// those that depend on none of time, context and net, through any number
// of imports (unicode/utf8, strings, errors), and no other (net/url and os reach
// time through their imports; time and context themselves).
func TestInertStd(t *testing.T) {
	want := map[string]bool{
		"unicode/utf8": true, "strings": true, "errors": true, "sync": true, "strconv": true,
		"net/url": false, "time": false, "context": false, "os": false, "net/http": false,
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, slices.Collect(maps.Keys(want))...)
	if err != nil {
		t.Fatal(err)
	}
	g, err := checker.Analyze([]*analysis.Analyzer{retrymodel.Analyzer}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, act := range g.Roots {
		w := want[act.Package.PkgPath]
		seen++
		if act.Err != nil {
			t.Fatalf("%s: %v", act.Package.PkgPath, act.Err)
		}
		if got := act.Result.(*retrymodel.Result).Inert(); got != w {
			t.Errorf("%s: Inert() = %v, want %v", act.Package.PkgPath, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("analysed %d of the %d packages named", seen, len(want))
	}
}

// TestInertOwnModule checks that a package of another module is read even
// when it imports nothing that can wait or leave the process.
func TestInertOwnModule(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	analysistest.Run(t, dir, retrymodel.Analyzer, "./inert/...")
}
