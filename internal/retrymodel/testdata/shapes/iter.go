package shapes

import (
	"context"
	"iter"
	"time"
)

// newRetryTimer yields attempt numbers, waiting d between them.
func newRetryTimer(ctx context.Context, n int, d time.Duration) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := 0; i < n; i++ {
			select {
			case ch <- i:
			case <-ctx.Done():
				return
			}
			time.Sleep(d)
		}
	}()
	return ch
}

func yieldedByChannel(ctx context.Context) error {
	var err error
	for range newRetryTimer(ctx, 3, 2*time.Second) { // want `retry loop \(yielded attempts\): attempts=\? waits=2s`
		if _, err = do(ctx); err == nil {
			return nil
		}
	}
	return err
}

// attempts is the same as an iterator.
func attempts(n int, d time.Duration) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
			time.Sleep(d)
		}
	}
}

func yieldedBySeq(ctx context.Context) error {
	var err error
	for range attempts(4, time.Second) { // want `retry loop \(yielded attempts\): attempts=\? waits=1s`
		if _, err = do(ctx); err == nil {
			return nil
		}
	}
	return err
}

// A range over work items from a channel is no retry.
func items(ctx context.Context) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for _, s := range []string{"a", "b"} {
			ch <- s
		}
	}()
	return ch
}

func consume(ctx context.Context) error {
	for it := range items(ctx) {
		if _, err := do(ctx); err != nil {
			return err
		}
		_ = it
	}
	return nil
}
