package shapes

import (
	"context"
	"time"
)

// Waits through func values: what the call does is what the values the
// package gives the field or variable do.

type sleepy struct {
	sleep func(time.Duration)
}

func newSleepy() *sleepy { return &sleepy{sleep: time.Sleep} }

// A field given time.Sleep: a wait that ignores cancellation.
func (s *sleepy) fetch(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,2s jitter=no deadline=no cancellable=no`
		if _, err = do(ctx); err == nil {
			return nil
		}
		s.sleep(time.Second << attempt)
	}
	return err
}

type ctxSleepy struct {
	sleep func(context.Context, time.Duration) error
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func newCtxSleepy() *ctxSleepy { return &ctxSleepy{sleep: sleepCtx} }

// A field given a sleeper that honours ctx: cancellable, and the retry is
// bounded by ctx.
func (s *ctxSleepy) fetch(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,2s jitter=no deadline=yes cancellable=yes`
		if _, err = do(ctx); err == nil {
			return nil
		}
		if err := s.sleep(ctx, time.Second<<attempt); err != nil {
			return err
		}
	}
	return err
}

type injected struct {
	sleep func(time.Duration)
}

// NewInjected takes the sleep from its caller: not known here.
func NewInjected(sleep func(time.Duration)) *injected { return &injected{sleep: sleep} }

// Still a retry that waits; whether the wait can be cancelled is unknown.
func (s *injected) fetch(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,2s jitter=no deadline=no cancellable=unknown`
		if _, err = do(ctx); err == nil {
			return nil
		}
		s.sleep(time.Second << attempt)
	}
	return err
}

type noted struct {
	note func(time.Duration)
}

func newNoted() *noted { return &noted{note: func(time.Duration) {}} }

// A func field whose only value does not wait: the call is no wait, and
// the loop retries without one.
func (s *noted) fetch(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 jitter=no deadline=no cancellable=unknown`
		if _, err = do(ctx); err == nil {
			return nil
		}
		s.note(time.Second << attempt)
	}
	return err
}
