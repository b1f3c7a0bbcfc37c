package cancelsrc

import (
	"context"
	"net/http"
	"time"
)

// holdFunc is a test seam: it is hold unless a test swaps it.
var holdFunc = hold

// hold returns when ctx is done; when the timer fired at the same moment
// it prefers the timer, in a select with a default that never blocks.
func hold(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		select {
		case <-t.C:
		default:
			return ctx.Err()
		}
	case <-t.C:
	}
	return nil
}

// The wait through the seam is cancellable: quiet.
func getPaused(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = get(ctx, hc, url); err == nil {
			return nil
		}
		if werr := holdFunc(ctx, jittered(attempt)); werr != nil {
			return werr
		}
	}
	return err
}
