// Package timeout: an attempt-only retry with fixed waits, no jitter and a
// wait that ignores cancellation (retrytimeout).
package timeout

import (
	"context"
	"errors"
	"time"
)

var errBusy = errors.New("busy")

func send(ctx context.Context, msg string) error { return errBusy }

// Send retries 5 times, sleeping 2s between attempts whatever ctx says.
func Send(ctx context.Context, msg string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = send(ctx, msg); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return err
}
