// Package wrap puts a breaker-like wrapper with a retry of its own in
// front of another core.Store implementation it holds: which store it
// wraps, and whether anyone hands the wrapper to core's retry, is
// configuration, so core's loop is not said to wrap it. Its own loop
// around the held store is a nesting of this package.
package wrap

import (
	"context"
	"time"

	"example.com/t/iface/core"
	"example.com/t/iface/core/hand"
)

var _ core.Store = (*Store)(nil)

type Store struct{ next *hand.Store }

func (s *Store) Put(ctx context.Context, key, val string) error {
	var err error
	for i := 0; i < 2; i++ { // want `retry loop \(2 attempts\) at wrap/wrap.go:22 wraps retry loop \(3 attempts\) at hand/hand.go:\d+ \(through hand.\(\*Store\).Put, hand.\(\*Store\).put\): up to 6 requests per call`
		if err = s.next.Put(ctx, key, val); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}
