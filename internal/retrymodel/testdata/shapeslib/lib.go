// Package shapeslib holds wait and guard helpers that package shapes uses
// from another package: their summaries travel as facts.
package shapeslib

import (
	"context"
	"time"
)

// Pause waits before retry attempt+1: 200ms, 400ms, 800ms, ...
func Pause(attempt int) { // want Pause:`waits 200ms,400ms,800ms,1.6s,3.2s,6.4s,12.8s,25.6s`
	time.Sleep(200 * time.Millisecond << attempt)
}

// RoomFor reports whether ctx leaves at least d.
func RoomFor(ctx context.Context, d time.Duration) bool { // want RoomFor:`guards param 1`
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl) >= d
	}
	return true
}
