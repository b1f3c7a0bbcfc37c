package shapes

import (
	"context"
	"math/rand/v2"
	"time"
)

type poller struct {
	base time.Duration
}

func newPoller() *poller { return &poller{base: 250 * time.Millisecond} }

// pause computes its own wait from the attempt number.
func pause(attempt int) {
	time.Sleep(time.Second << attempt)
}

func waitInHelper(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop: attempts=4 waits=1s,2s,4s jitter=no deadline=no cancellable=no retryafter=no`
		if _, err = do(ctx); err == nil {
			return nil
		}
		pause(attempt)
	}
	return err
}

// sleepFor waits a duration it computes from a struct field.
func (p *poller) sleepFor(ctx context.Context, attempt int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(p.base * time.Duration(attempt+1)):
		return nil
	}
}

func (p *poller) waitFromField(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=250ms,500ms jitter=no deadline=yes cancellable=yes retryafter=no`
		if _, err = do(ctx); err == nil {
			return nil
		}
		if err := p.sleepFor(ctx, attempt); err != nil {
			return err
		}
	}
	return err
}

// classify returns the delay the caller waits.
func classify(err error, attempt int) (bool, time.Duration) {
	if err == nil {
		return false, 0
	}
	return true, 100 * time.Millisecond << attempt
}

func delayFromClassifier(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop: attempts=4 waits=100ms,200ms,400ms jitter=no deadline=no cancellable=no retryafter=no`
		_, err = do(ctx)
		retry, delay := classify(err, attempt)
		if !retry {
			return err
		}
		time.Sleep(delay)
	}
	return err
}

// A timer whose duration carries jitter arithmetic.
func jitteredTimer(ctx context.Context) error {
	d := 2 * time.Second
	var err error
	for range 3 { // want `retry loop: attempts=3 waits>=1.8s,1.8s jitter=yes deadline=yes cancellable=yes retryafter=no`
		if _, err = do(ctx); err == nil {
			return nil
		}
		t := time.NewTimer(d - rand.N(d/10))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return err
}
