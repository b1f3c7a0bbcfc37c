package retrytimeout

import (
	"time"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// prodWaits returns a loop's waits folded with the production values of
// the package variables its tests reassign (the model's
// Policy.ProdWaits): the findings judge the schedule the program runs,
// not what a _test.go file sets.
func (c *checker) prodWaits(l *retrymodel.Layer) ([]time.Duration, bool) {
	return l.Policy.ProdWaits, l.Policy.ProdWaits != nil
}
