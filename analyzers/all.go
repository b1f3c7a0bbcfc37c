// Package analyzers is the retryvet suite.
//
// All returns every analyzer; cmd/retryvet, the golangci-lint plugin and
// the tests take the list from here. The smaller analyzers live in
// subpackages (retrystatus, expiredctx); the larger ones at the top of the
// module (deadlinecensus, doubleretry, retrytimeout).
package analyzers

import (
	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/analyzers/expiredctx"
	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/deadlinecensus"
	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/retrytimeout"
)

// All returns the retryvet analyzers in a stable order.
func All() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		// one line per analyzer, in the order of DESIGN.md
		deadlinecensus.Analyzer,
		doubleretry.Analyzer,
		retrytimeout.Analyzer,
		retrystatus.Analyzer,
		expiredctx.Analyzer,
	}
}
