package shapes

import (
	"context"
	"time"
)

// A wait helper whose duration is runtime state: the limiter's next delay
// grows each time it is taken, so nothing gives the schedule, but it is a
// wait between attempts all the same.
type growing struct{ next time.Duration }

func (g *growing) take(ctx context.Context) error {
	d := g.next
	g.next *= 2
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func stateWait(ctx context.Context, g *growing) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop: attempts=4 jitter=no deadline=yes cancellable=yes retryafter=no$`
		if _, err = do(ctx); err == nil {
			return nil
		}
		if err := g.take(ctx); err != nil {
			return err
		}
	}
	return err
}

// The same helper paces a batch: an error leaves, nothing is retried.
func statePacedBatch(ctx context.Context, g *growing, items []string) error {
	for _, it := range items {
		if err := send(ctx, it); err != nil {
			return err
		}
		if err := g.take(ctx); err != nil {
			return err
		}
	}
	return nil
}
