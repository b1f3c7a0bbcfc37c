package retrytimeout

import (
	"time"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// prodWaits returns a loop's waits folded with the production values of
// the package variables its tests reassign (the model's
// Policy.ProdWaits): the findings judge the schedule the program runs,
// not what a _test.go file sets.
// last is the production wait after the last failure, if the loop waits there.
func (c *checker) prodWaits(l *retrymodel.Layer) (ws []time.Duration, last time.Duration, ok bool) {
	return l.Policy.ProdWaits, l.Policy.ProdLastWait, l.Policy.ProdWaits != nil
}
