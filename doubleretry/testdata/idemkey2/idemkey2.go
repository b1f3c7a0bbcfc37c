// Package idemkey2 retries a POST to an API with no sign of taking an
// idempotency key (no key sent anywhere in the package, a host not known
// to take one): whether a key would help is not known, so it is quiet.
package idemkey2

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

func Push(ctx context.Context, hc *http.Client, points string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://metrics.example.com/api/v1/push", strings.NewReader(points))
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return errors.New("push failed")
}
