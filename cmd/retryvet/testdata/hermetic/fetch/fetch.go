// Package fetch declares no //retryvet:p99: the p99 of get is in
// .retryvet.yml only, so what is said about the per-attempt timeout
// below depends on the values file.
package fetch

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"
)

func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Get gives each attempt 2s, with jittered, cancellable waits.
func Get(ctx context.Context, url string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = get(actx, url)
		cancel()
		if err == nil {
			return nil
		}
		wait := time.Duration(rand.Int64N(int64(time.Second << attempt)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return err
}
