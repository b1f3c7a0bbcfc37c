// Package jitterflow: jitter is whether a random source reaches the wait,
// decided by data flow; names say nothing.
package jitterflow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
)

const maxRetries = 4

// shouldRetry's "jitter" is a constant 20% of the backoff; a Retry-After
// replaces the delay when the server sends one.
func shouldRetry(attempts int, err error) (bool, int64, error) {
	var apierr *anthropic.Error
	if !errors.As(err, &apierr) {
		return false, 0, err
	}
	if apierr.StatusCode != 429 && apierr.StatusCode != 529 {
		return false, 0, err
	}
	if attempts > maxRetries {
		return false, 0, fmt.Errorf("maximum retry attempts reached: %d", maxRetries)
	}
	retryMs := 0
	retryAfterValues := apierr.Response.Header.Values("Retry-After")
	backoffMs := 2000 * (1 << (attempts - 1))
	jitterMs := int(float64(backoffMs) * 0.2)
	retryMs = backoffMs + jitterMs
	if len(retryAfterValues) > 0 {
		if _, err := fmt.Sscanf(retryAfterValues[0], "%d", &retryMs); err == nil {
			retryMs = retryMs * 1000
		}
	}
	return true, int64(retryMs), nil
}

func send(ctx context.Context, c anthropic.Client, params anthropic.MessageNewParams) (*anthropic.Message, error) {
	attempts := 0
	for {
		attempts++
		msg, err := c.Messages.New(ctx, params)
		if err != nil {
			retry, after, retryErr := shouldRetry(attempts, err)
			if retryErr != nil {
				return nil, retryErr
			}
			if retry {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Duration(after) * time.Millisecond): // want `no jitter: retry loop waits 2.4s, 4.8s, 9.6s, 19.2s \(when the server sends no Retry-After\) with no random part`
					continue
				}
			}
			return nil, retryErr
		}
		return msg, nil
	}
}

// drawn adds a random part: quiet, whatever it is called.
func drawn(attempts int, err error) (bool, int64) {
	var apierr *anthropic.Error
	if !errors.As(err, &apierr) || attempts > maxRetries {
		return false, 0
	}
	backoffMs := 2000 * (1 << (attempts - 1))
	spreadMs := rand.IntN(backoffMs / 5)
	if ra := apierr.Response.Header.Get("Retry-After"); ra != "" {
		var s int
		if _, err := fmt.Sscanf(ra, "%d", &s); err == nil {
			return true, int64(s * 1000)
		}
	}
	return true, int64(backoffMs + spreadMs)
}

func sendDrawn(ctx context.Context, c anthropic.Client, params anthropic.MessageNewParams) (*anthropic.Message, error) {
	attempts := 0
	for {
		attempts++
		msg, err := c.Messages.New(ctx, params)
		if err == nil {
			return msg, nil
		}
		retry, after := drawn(attempts, err)
		if !retry {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(after) * time.Millisecond):
		}
	}
}

// Client waits a delay set at construction, the same before every attempt.
type Client struct {
	HTTP       *http.Client
	URL        string
	MaxRetries int
	RetryDelay time.Duration
}

func New(url string, delay time.Duration) *Client {
	return &Client{HTTP: http.DefaultClient, URL: url, MaxRetries: 3, RetryDelay: delay}
}

func (c *Client) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(c.RetryDelay):
		return nil
	}
}

func (c *Client) get(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return nil, err
	}
	return c.HTTP.Do(req)
}

func (c *Client) Fetch(ctx context.Context, retries int) (*http.Response, error) {
	var err error
	for attempt := 0; attempt <= retries; attempt++ {
		var resp *http.Response
		if resp, err = c.get(ctx); err == nil {
			return resp, nil
		}
		if attempt < retries {
			if err := c.wait(ctx); err != nil { // want `no jitter: retry loop waits the same RetryDelay before every attempt \(as many as its attempts, whose number is not known statically\) with no random part`
				return nil, err
			}
		}
	}
	return nil, err
}

// Watch polls at the fixed delay until the context ends: a poll, quiet.
func (c *Client) Watch(ctx context.Context) error {
	for {
		resp, err := c.get(ctx)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if err := c.wait(ctx); err != nil {
			return err
		}
	}
}

// FetchSpread draws its wait from the fixed delay: quiet.
func (c *Client) FetchSpread(ctx context.Context, retries int) (*http.Response, error) {
	var err error
	for attempt := 0; attempt <= retries; attempt++ {
		var resp *http.Response
		if resp, err = c.get(ctx); err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.RetryDelay/2 + rand.N(c.RetryDelay)):
		}
	}
	return nil, err
}

// Lock retries a local file at a fixed delay: nobody else is synchronised.
type Lock struct {
	Path  string
	Delay time.Duration
}

func (l *Lock) Acquire(ctx context.Context, tries int) (*os.File, error) {
	var err error
	for i := 0; i < tries; i++ {
		var f *os.File
		if f, err = os.OpenFile(l.Path, os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			return f, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(l.Delay):
		}
	}
	return nil, err
}

// backoffFor doubles a period per try through math.Exp2: a pure function
// of the attempt, no random part.
func backoffFor(period time.Duration, tries int) time.Duration {
	return period * time.Duration(math.Exp2(float64(tries)))
}

func deliver(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = fetch(ctx, url); err == nil {
			return nil
		}
		t := time.NewTimer(backoffFor(time.Second, i))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C: // want `no jitter: retry loop waits 1s, 2s, 4s with no random part`
		}
	}
	return err
}

// backoffDrawn draws the same exponent's wait at random: jitter. Quiet.
func backoffDrawn(period time.Duration, tries int) time.Duration {
	return time.Duration(rand.Int64N(int64(period) * int64(math.Exp2(float64(tries)))))
}

func deliverDrawn(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 4; i++ {
		if err = fetch(ctx, url); err == nil {
			return nil
		}
		t := time.NewTimer(backoffDrawn(time.Second, i))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return err
}

func fetch(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("server: %s", resp.Status)
	}
	return nil
}

// watchCapped doubles its wait and caps it right after: a fixed function
// of the attempt all the same.
func watchCapped(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 12; i++ {
		if err = fetch(ctx, url); err == nil {
			return nil
		}
		d := 250 * time.Millisecond << i
		if d > time.Minute {
			d = time.Minute
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d): // want `no jitter: retry loop waits 250ms, 500ms, 1s, .* with no random part`
		}
	}
	return err
}

// watchCappedDrawn draws its wait under the same cap: jitter. Quiet.
func watchCappedDrawn(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 12; i++ {
		if err = fetch(ctx, url); err == nil {
			return nil
		}
		d := 250 * time.Millisecond << i
		if d > time.Minute {
			d = time.Minute
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(rand.N(d)):
		}
	}
	return err
}
