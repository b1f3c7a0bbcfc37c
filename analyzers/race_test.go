package analyzers_test

import (
	"go/types"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestSuiteConcurrently runs the whole suite, as the drivers do, over retry
// loops whose waits grow in place. The checker runs independent analyzers
// of a package at the same time (the retry model beside buildssa), so under
// `go test -race` (a step of .ci/run) this catches any write into state the
// passes share, such as pass.TypesInfo. Without -race it still checks that
// every analyzer runs on every package without an error, and that no
// analyzer adds to the packages' types.Info.
func TestSuiteConcurrently(t *testing.T) {
	// testdata/race imports only small parts of the standard library:
	// under -race the suite also analyses every dependency for facts.
	for _, dir := range []string{"testdata"} {
		t.Run(dir, func(t *testing.T) {
			testmod.Download(t, dir)
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			cfg := &packages.Config{
				Mode:  packages.LoadAllSyntax,
				Dir:   abs,
				Tests: true,
				Env:   append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod"),
			}
			pkgs, err := packages.Load(cfg, "./...")
			if err != nil {
				t.Fatal(err)
			}
			if packages.PrintErrors(pkgs) > 0 {
				t.Fatal("testdata does not load")
			}
			before := make(map[*packages.Package][6]int)
			packages.Visit(pkgs, nil, func(p *packages.Package) { before[p] = infoSizes(p.TypesInfo) })
			res, err := checker.Analyze(analyzers.All(), pkgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The race detector sees a write only when it happens to overlap
			// a reader in its window; a changed size of a shared map is
			// proof of a write whatever the timing.
			for p, n := range before {
				if now := infoSizes(p.TypesInfo); now != n {
					t.Errorf("%s: types.Info changed during analysis (Types, Defs, Uses, Implicits, Selections, Scopes sizes %v, now %v): an analyzer writes into shared state", p.PkgPath, n, now)
				}
			}
			n := 0
			for act := range res.All() {
				if act.Err != nil {
					t.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
				}
				n++
			}
			if n == 0 {
				t.Fatal("no analysis ran")
			}
		})
	}
}

func infoSizes(info *types.Info) [6]int {
	if info == nil {
		return [6]int{}
	}
	return [6]int{len(info.Types), len(info.Defs), len(info.Uses), len(info.Implicits), len(info.Selections), len(info.Scopes)}
}
