// Package backoffv3 exercises github.com/cenkalti/backoff/v3, read as v4.
package backoffv3

import (
	"context"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v3"
)

func get(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	_, err := http.DefaultClient.Do(req)
	return err
}

func bounded(ctx context.Context) error {
	return backoff.Retry(func() error { return get(ctx) }, backoff.WithContext(backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 2), ctx)) // want `^backoff\.Retry kind=library attempts=3 waits=1s,1s jitter=no deadline=yes`
}

// v3: WithMaxRetries(b, 0) does not bound the retries (v4 stops at once).
func zero(ctx context.Context) error {
	return backoff.Retry(func() error { return get(ctx) }, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 0)) // want `^backoff\.Retry kind=library attempts=unbounded waits=1s,1s,1s,1s,1s`
}
