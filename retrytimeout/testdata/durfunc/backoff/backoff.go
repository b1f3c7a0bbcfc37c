// Package backoff computes waits from the attempt number, for callers in
// other packages.
package backoff

import (
	"math"
	"time"
)

// Do is attempts^e tenths of a second, 2 minutes from the 14th attempt on.
func Do(attempts int) time.Duration {
	if attempts > 13 {
		return 2 * time.Minute
	}
	return time.Duration(math.Pow(float64(attempts), math.E)) * time.Millisecond * 100
}

// Seconds is 2^attempt seconds, a minute from the 6th attempt on.
func Seconds(attempt int) time.Duration {
	if attempt >= 6 {
		return time.Minute
	}
	return time.Second << attempt
}
