package testvar

import (
	"testing"
	"time"
)

// The tests shorten the waits; production keeps its values.
func TestFetch(t *testing.T) {
	retryDelay, slowDelay = 0, time.Millisecond
	_ = Fetch
}
