// Package handu hands retrying calls to hand's helpers.
package handu

import (
	"context"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"

	"example.com/rm/helpers/hand"
)

var rc = retryablehttp.NewClient() // want rc:`^retryablehttp client \(retries 4\) built at handu/handu.go:13$`

func get(ctx context.Context, url string) error { // want get:`^reaches retryablehttp.Client.Do\(5\); remote$`
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := rc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Nested: Wrap hands the retrying call on to Do, which hands it to
// retry-go: 3 x 5.
func Nested(ctx context.Context, url string) error { // want Nested:`^reaches retry helper hand.Wrap\(3\) > retryablehttp.Client.Do\(5\); remote$`
	_, err := hand.Wrap(ctx, func() (int, error) { return 0, get(ctx, url) })
	return err
}

// Passed hands get by name through Pass.
func Passed(ctx context.Context) error { // want Passed:`^reaches retry helper hand.Pass\(3\) > retryablehttp.Client.Do\(5\); remote$`
	return hand.Pass(ctx, func() error { return get(ctx, "http://svc") })
}

// Started: Background runs the call beside the caller, not in a retry.
func Started(ctx context.Context, url string) { // want Started:`^reaches retryablehttp.Client.Do\(5\); remote$`
	hand.Background(func() error { return get(ctx, url) })
}

// Called: Once calls it once, no retry around it.
func Called(ctx context.Context, url string) error { // want Called:`^reaches retryablehttp.Client.Do\(5\); remote$`
	return hand.Once(func() error { return get(ctx, url) })
}

// Held: the operation is a closure held in a local before it is handed
// over, as executors are called (op := func() error {...}; exec(ctx, op)).
func Held(ctx context.Context, url string) error { // want Held:`^reaches retry helper hand.Pass\(3\) > retryablehttp.Client.Do\(5\); remote$`
	op := func() error { return get(ctx, url) }
	return hand.Pass(ctx, op)
}
