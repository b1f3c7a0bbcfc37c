package shapes

import (
	"context"
	"time"

	"example.com/rm/shapeslib"
)

// The wait and the guard are helpers of another package.
func importedHelpers(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=200ms,400ms jitter=no deadline=yes cancellable=no retryafter=no guard=30s`
		if _, err = do(ctx); err == nil {
			return nil
		}
		if !shapeslib.RoomFor(ctx, 30*time.Second) {
			return err
		}
		shapeslib.Pause(attempt)
	}
	return err
}
