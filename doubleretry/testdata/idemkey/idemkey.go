// Package idemkey holds POST requests a retry sends again with no
// idempotency key to an API that takes one (Stripe's by its host; an API
// this package already sends a key to), beside requests that carry the
// key, are handed to a helper that may set it, are not retried, or go to
// an API with no sign of taking one.
package idemkey

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

var errRetry = errors.New("retry")

func backoff(ctx context.Context, i int) error {
	t := time.NewTimer(time.Duration(1<<i) * 100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Refund retries a POST to Stripe's API, which folds repeats by
// Idempotency-Key, without one.
func Refund(ctx context.Context, hc *http.Client, charge string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.stripe.com/v1/refunds", strings.NewReader("charge="+charge))
	if err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		resp, err := hc.Do(req) // want `the POST request built at idemkey/idemkey.go:33 is sent up to 4 times per call by the retry loop at idemkey/idemkey.go:37 with no idempotency key, and api.stripe.com takes Idempotency-Key: a request the server carried out before its response was lost .* make one key per call before the retry and set it on every attempt` `the POST request built at idemkey/idemkey.go:33 is sent again by the retry loop at idemkey/idemkey.go:37 with the body the first attempt read to its end`
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := backoff(ctx, i); werr != nil {
			return werr
		}
	}
	return errRetry
}

const ledger = "https://ledger.internal/v2"

// Open sends a key to the ledger: the ledger takes one.
func Open(ctx context.Context, hc *http.Client, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ledger+"/accounts", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Post retries a ledger entry with no key, though the ledger takes one.
func Post(ctx context.Context, hc *http.Client, account string) error {
	var lastErr error
	for i := 0; i < 3; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/accounts/%s/entries", ledger, account), strings.NewReader("{}"))
		if err != nil {
			return err
		}
		resp, err := hc.Do(req) // want `the POST request built at idemkey/idemkey.go:73 is sent up to 3 times per call by the retry loop at idemkey/idemkey.go:72 with no idempotency key, and the API takes one: this package sends Idempotency-Key at idemkey/idemkey.go:61`
		if err != nil {
			lastErr = err
			if werr := backoff(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			lastErr = fmt.Errorf("ledger: %s", resp.Status)
			if werr := backoff(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return nil
	}
	return lastErr
}

// Capture makes one key per call and sets it on every attempt: quiet.
func Capture(ctx context.Context, hc *http.Client, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.stripe.com/v1/payment_intents/pi_1/capture", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	for i := 0; i < 4; i++ {
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		if werr := backoff(ctx, i); werr != nil {
			return werr
		}
	}
	return errRetry
}

func sign(req *http.Request) { req.Header.Set("Authorization", "Bearer sk") }

// Signed hands the request to a helper before sending it: what the helper
// sets is not read. Quiet.
func Signed(ctx context.Context, hc *http.Client) error {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.stripe.com/v1/payouts", nil)
		if err != nil {
			return err
		}
		sign(req)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if werr := backoff(ctx, i); werr != nil {
			return werr
		}
	}
	return errRetry
}

// Balance retries a GET: a read, repeated harmlessly. Quiet.
func Balance(ctx context.Context, hc *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.stripe.com/v1/balance", nil)
	if err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if werr := backoff(ctx, i); werr != nil {
			return werr
		}
	}
	return errRetry
}

// Once sends a Stripe POST with no retry: quiet.
func Once(ctx context.Context, hc *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.stripe.com/v1/customers", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
